"""Hub test set-up: every outbox a test opened is closed afterwards (its writer thread stops)."""

from collections.abc import Iterator

import pytest

from tests.hub.helpers import OPENED, WATCHED


@pytest.fixture(autouse=True)
def _close_outboxes() -> Iterator[None]:
    yield
    WATCHED.clear()
    while OPENED:
        OPENED.pop().close()
