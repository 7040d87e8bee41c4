"""Building commands as the hub does, for the command tests."""

from datetime import timedelta
from typing import Any

import msgspec

from controller.clock import Clock
from controller.hub.contract.envelopes import CommandMessage, encode, new_header
from controller.hub.contract.hub_commands import Action
from controller.hub.contract.signing import TableKey
from tests.hub.factories import KEY_TEXT


def command(
    action: Action,
    clock: Clock,
    table: str = "t1",
    lifetime_s: float = 60.0,
    key: str = KEY_TEXT,
) -> bytes:
    """A signed command payload."""
    head = new_header(table, 1, 1, clock)
    expires = head["ts"] + timedelta(seconds=lifetime_s)
    return encode(TableKey(key).sign(CommandMessage(expires=expires, action=action, **head)))


def resign(fields: dict[str, Any], key: str = KEY_TEXT) -> bytes:
    """Sign arbitrary (possibly invalid) command fields with the table key."""
    unsigned = {k: v for k, v in fields.items() if k != "sig"}
    digest = TableKey(key)._digest(unsigned)  # the same signing the hub does
    return msgspec.json.encode({**unsigned, "sig": digest})
