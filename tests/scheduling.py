"""How the suite's tests are spread over pytest-xdist workers: the costliest first, and never
one costly test queued behind another.

An xdist worker runs a test only once it knows the next one (for fixture teardown), so each
worker always holds one test queued behind the one it runs. With xdist's own `loadgroup`
queue, the test queued behind a 3-minute soak was often the next soak, while the other workers
ran out of work and idled (three soaks in a row on one worker: 10 minutes for a 7-minute
suite). Here:

- the collection is ordered by cost (`slow(seconds)`, the costliest first; `order_by_cost`),
  and xdist keeps that order (no reordering by group size);
- a worker running, or holding, a test taken from the front of the queue (the costly end) is
  given its next test from the back (the cheap end), and one holding only cheap tests is given
  the front. So every costly test starts as soon as a worker is free, with a cheap one queued
  behind it.
"""

from collections.abc import Sequence

import pytest
from xdist.scheduler import LoadGroupScheduling
from xdist.workermanage import WorkerController

SLOW_SECONDS = 10.0
"""The cost of a `slow` test that gives no `seconds`."""


def cost(item: pytest.Item) -> float:
    """Seconds a test takes in the suite, as its `slow` mark says (0 when not slow)."""
    slow = item.get_closest_marker("slow")
    if slow is None:
        return 0.0
    return float(slow.kwargs.get("seconds", slow.args[0] if slow.args else SLOW_SECONDS))


def order_by_cost(items: Sequence[pytest.Item]) -> list[pytest.Item]:
    """The costliest first; tests of equal cost in their collected order."""
    return sorted(items, key=lambda item: -cost(item))  # sorted() is stable


class CostliestFirst(LoadGroupScheduling):  # type: ignore[misc]  # xdist has no types
    """`--dist loadgroup` (an `xdist_group` runs on one worker) with the queue taken from both
    ends: costly tests from the front, each with a cheap one from the back queued behind it."""

    def __init__(self, config: pytest.Config, log: object = None) -> None:
        config.option.loadscopereorder = False  # keep the collection's order: costliest first
        super().__init__(config, log)
        self._front: set[str] = set()
        """Scopes (tests, groups) taken from the front of the queue."""

    def _assign_work_unit(self, node: WorkerController) -> None:
        assert self.workqueue
        held = self.assigned_work.get(node, {})
        costly = any(s in self._front and not all(u.values()) for s, u in held.items())
        scope, work_unit = self.workqueue.popitem(last=costly)
        if not costly:
            self._front.add(scope)
        self.assigned_work.setdefault(node, {})[scope] = work_unit
        collected = self.registered_collections[node]
        node.send_runtest_some(
            [collected.index(nodeid) for nodeid, done in work_unit.items() if not done]
        )
