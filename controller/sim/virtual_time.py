"""An asyncio event loop on virtual time, for simulated sessions that cost only their CPU time.

`loop.time()` is a virtual clock. Whenever no callback is ready, the loop asks its selector to
wait until the next timer; the selector here looks once at the real file descriptors without
waiting and, if nothing is there, moves the virtual clock straight to that timer instead of
sleeping. Sleeps, timeouts and `call_later` all run on this clock, so a simulated table, its
players and the daemon play a session as fast as the CPU allows while every timeout keeps its
meaning (the way the `looptime` test plugin works).

Real work in flight must not be jumped over: a thread writing the outbox, a connect in an
executor, a broker's reply on its way. While any of it is pending the selector really waits
(in short slices) and the virtual clock follows the real one, so a real 10 s timeout still
means 10 real seconds of waiting for a real peer. The loop counts its own executor jobs; other
pending work is declared with `hold_while(predicate)` (e.g. "the outbox writer is busy",
"results are waiting for the recorder's ack").

    loop = VirtualTimeLoop()
    asyncio.Runner(loop_factory=lambda: loop).run(main())
"""

import asyncio
import selectors
import time
from collections.abc import Callable, Coroutine, Mapping
from concurrent.futures import Executor
from typing import Any, TypeVar

from controller.clock import Clock

T = TypeVar("T")
REAL_SLICE_S = 0.005
"""While real work is pending, the selector waits in slices this long (then looks again)."""
BUSY_LOOKS = 8
"""While callbacks are ready (the loop asks not to wait), the selector looks at the real
descriptors only every this many turns: a look costs a system call, the loop turns about a
thousand times per simulated hand, and whatever is ready is still seen a few turns later (and
always before the virtual clock moves)."""


class _VirtualSelector(selectors.BaseSelector):
    """The loop's selector: real readiness, virtual waiting."""

    def __init__(self, loop_time: "VirtualTimeLoop") -> None:
        self._real = selectors.DefaultSelector()
        self._loop = loop_time
        self._busy_turns = 0

    def register(self, fileobj: Any, events: int, data: Any = None) -> selectors.SelectorKey:
        """As the real selector."""
        return self._real.register(fileobj, events, data)

    def unregister(self, fileobj: Any) -> selectors.SelectorKey:
        """As the real selector."""
        return self._real.unregister(fileobj)

    def modify(self, fileobj: Any, events: int, data: Any = None) -> selectors.SelectorKey:
        """As the real selector."""
        return self._real.modify(fileobj, events, data)

    def get_map(self) -> Mapping[Any, selectors.SelectorKey]:
        """As the real selector."""
        return self._real.get_map()

    def close(self) -> None:
        """As the real selector."""
        self._real.close()

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        """Ready descriptors now; else the virtual clock moves to the next timer, unless real
        work is pending (then wait for real and let the virtual clock follow)."""
        if timeout == 0:
            self._busy_turns += 1
            if self._busy_turns < BUSY_LOOKS:
                return []
        self._busy_turns = 0
        events = self._real.select(0)
        if events or timeout == 0:
            return events
        if self._loop.real_work_pending():
            step = REAL_SLICE_S if timeout is None else min(timeout, REAL_SLICE_S)
            started = time.monotonic()
            events = self._real.select(step)
            self._loop.advance(time.monotonic() - started)
            return events
        if timeout is None:  # nothing scheduled: only the outside world can wake the loop
            return self._real.select(None)
        self._loop.advance(timeout)
        return []


class VirtualTimeLoop(asyncio.SelectorEventLoop):
    """A selector event loop whose clock is virtual and jumps over idle time."""

    def __init__(self, start: float = 0.0) -> None:
        self._now = start
        self._holds: list[Callable[[], bool]] = []
        self._executor_jobs = 0
        super().__init__(_VirtualSelector(self))

    def time(self) -> float:
        """The virtual monotonic time."""
        return self._now

    def advance(self, seconds: float) -> None:
        """Move the virtual clock forward (the selector does this when the loop is idle)."""
        if seconds > 0:
            self._now += seconds

    def hold_while(self, pending: Callable[[], bool]) -> Callable[[], None]:
        """Keep real time while `pending()` is true (real work in flight); returns a function
        that withdraws the hold. `pending` is called on the loop's thread, often: keep it cheap."""
        self._holds.append(pending)
        return lambda: self._holds.remove(pending) if pending in self._holds else None

    def real_work_pending(self) -> bool:
        """True while an executor job runs or any hold says real work is in flight."""
        return self._executor_jobs > 0 or any(pending() for pending in self._holds)

    def run_in_executor(  # type: ignore[override]
        self,
        executor: Executor | None,
        func: Callable[..., T],
        *args: Any,
    ) -> "asyncio.Future[T]":
        """As asyncio's, counted: virtual time does not jump while the job runs."""
        future = super().run_in_executor(executor, func, *args)
        self._executor_jobs += 1
        future.add_done_callback(self._executor_job_done)
        return future

    def _executor_job_done(self, _: "asyncio.Future[Any]") -> None:
        self._executor_jobs -= 1


class LoopClock(Clock):
    """The daemon's Clock read from the running loop's time (virtual on a VirtualTimeLoop)."""

    def __init__(self, loop: asyncio.AbstractEventLoop, wall_start: float | None = None) -> None:
        self._loop = loop
        # From the real wall clock by default: messages carry timestamps other programs
        # (the recorder) compare with their own clocks.
        start = time.time() if wall_start is None else wall_start
        self._wall_offset = start - loop.time()

    def monotonic(self) -> float:
        """The loop's time."""
        return self._loop.time()

    def wall(self) -> float:
        """The loop's time shifted to a fixed epoch origin."""
        return self._loop.time() + self._wall_offset


def run_virtual(main: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run the coroutine `main()` to its end on a fresh VirtualTimeLoop; returns its result."""
    with asyncio.Runner(loop_factory=VirtualTimeLoop) as runner:
        return runner.run(main())
