"""How the suite's tests are spread over pytest-xdist workers: never one slow test queued
behind another while a worker idles.

An xdist worker runs a test only once it knows the next one (for fixture teardown), so each
worker always holds one test queued behind the one it runs. With xdist's own `loadgroup`
queue (slow tests first), the test queued behind a soak of several minutes was often the next
soak: one run put all three hostile soaks on one worker, back to back (602 s of a 689 s run),
while the others ran out of work. Here a worker running or holding a test taken from the
front of the queue (the slow end) is given its next test from the back (the quick end), and
one holding only quick tests is given the front: every slow test starts as soon as a worker
is free, with a quick one queued behind it, and quick tests run beside the slow ones all
along (many of them wait on real time while the slow ones use the CPU).

Tried and measured worse on this 2-CPU machine: ordering the slow tests by their cost
(pytest 9 m 12 s: the CPU-bound tests all ran together first, the waiting ones all at the
end), and keeping one worker on quick tests only (slow tests still running at 9 m). This
takes 7 m 59 s, xdist's own queue 8 m 35 s in the same conditions.
"""

import pytest
from xdist.scheduler import LoadGroupScheduling
from xdist.workermanage import WorkerController


class BothEnds(LoadGroupScheduling):  # type: ignore[misc]  # xdist has no types
    """`--dist loadgroup` (an `xdist_group` runs on one worker) with the queue taken from both
    ends: slow tests from the front, each with a quick one from the back queued behind it."""

    def __init__(self, config: pytest.Config, log: object = None) -> None:
        super().__init__(config, log)
        self._front: set[str] = set()
        """Scopes (tests, groups) taken from the front of the queue."""

    def _assign_work_unit(self, node: WorkerController) -> None:
        """xdist's own assignment of the queue's first unit, after putting first the unit this
        node is to take: the back's while it holds a slow one, else the front's."""
        assert self.workqueue
        held = self.assigned_work.get(node, {})
        if any(s in self._front and not all(u.values()) for s, u in held.items()):
            self.workqueue.move_to_end(next(reversed(self.workqueue)), last=False)
        else:
            self._front.add(next(iter(self.workqueue)))
        super()._assign_work_unit(node)
