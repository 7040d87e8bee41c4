"""Time for the hub link: jittered exponential backoff, and waits measured on an injectable clock.

Waits are measured on a `Clock` and the clock is looked at every `tick_s` real seconds, so a
test drives minutes of outage by advancing a ManualClock while the real run takes a fraction
of a second; on the table the SystemClock makes the same code wait for real.
"""

import asyncio
import heapq
import random
from collections.abc import Iterable
from dataclasses import dataclass, field

from controller.clock import Clock
from controller.hub.mqtt.changes import Changes


@dataclass(frozen=True)
class Backoff:
    """Delays that grow by `factor` per attempt up to `cap_s`, half of each delay random."""

    base_s: float
    factor: float
    cap_s: float

    def delay(self, attempt: int, rng: random.Random) -> float:
        """The wait before retry number `attempt` (0 for the first retry)."""
        ceiling = min(self.cap_s, self.base_s * self.factor ** min(attempt, 64))
        return ceiling / 2 + rng.uniform(0, ceiling / 2)


@dataclass(frozen=True)
class LinkTiming:
    """Every duration the hub link and the recorder use."""

    reconnect: Backoff = field(default_factory=lambda: Backoff(1.0, 1.5, 60.0))
    resend: Backoff = field(default_factory=lambda: Backoff(5.0, 2.0, 300.0))
    tick_s: float = 0.25
    connect_timeout_s: float = 10.0
    publish_timeout_s: float = 10.0
    keepalive_s: int = 30
    window: int = 1024
    """Results the table's link keeps sent but not yet acked, at most. The recorder acks a
    batch only once it is stored, so the table waits a store commit and two trips through
    the broker before it may send more: a window smaller than what the recorder takes in that
    time leaves it idle between batches (256 held a backlog to about half the rate of plain
    MQTT on a busy venue PC). Results not acked within the resend wait go again (counted as
    duplicates by the recorder)."""
    gap_grace_s: float = 5.0
    status_interval_s: float = 0.5
    """The table's status goes out at most once per this many seconds of the table's clock,
    always the newest and within this time of the last change; a change of phase or of the
    fault, and the link's own news, go out at once."""


class ResendSchedule:
    """When each result sent but not yet acknowledged is due to be sent again."""

    def __init__(self, backoff: Backoff, rng: random.Random) -> None:
        self.backoff = backoff
        self.rng = rng
        self._due: dict[str, float] = {}
        self._attempts: dict[str, int] = {}
        self._queue: list[tuple[float, str]] = []
        """(due, id), earliest first; an entry whose time is not `_due[id]` is stale."""

    def is_due(self, result_id: str, now: float) -> bool:
        """True for a result never sent, or whose wait for an ack is over."""
        return self._due.get(result_id, now) <= now

    def sent(self, result_id: str, now: float) -> bool:
        """Note a send and schedule the next; True when it was a resend."""
        attempt = self._attempts.get(result_id, 0)
        self._attempts[result_id] = attempt + 1
        due = now + self.backoff.delay(attempt, self.rng)
        self._due[result_id] = due
        heapq.heappush(self._queue, (due, result_id))
        return attempt > 0

    def due(self, now: float) -> list[str]:
        """The results sent whose wait for an ack is over, earliest first (each is due until
        it is `sent` again)."""
        found = []
        while self._queue and self._queue[0][0] <= now:
            due, result_id = heapq.heappop(self._queue)
            if self._due.get(result_id) == due:
                found.append(result_id)
        return found

    def forget(self, ids: Iterable[str]) -> None:
        """Stop scheduling these results (acked or refused)."""
        for result_id in ids:
            self._due.pop(result_id, None)
            self._attempts.pop(result_id, None)
        if len(self._queue) > 2 * len(self._due) + 64:  # mostly stale: keep the live entries
            self._queue = [(due, i) for due, i in self._queue if self._due.get(i) == due]
            heapq.heapify(self._queue)

    def send_all_now(self) -> None:
        """Make every result due at once (a new connection, the hub back, a resend request)."""
        self._due.clear()
        self._queue.clear()

    def next_in(self, now: float) -> float | None:
        """Seconds until the next result is due, None when none is scheduled."""
        while self._queue and self._due.get(self._queue[0][1]) != self._queue[0][0]:
            heapq.heappop(self._queue)
        return max(0.0, self._queue[0][0] - now) if self._queue else None


class Pacer:
    """Sleeps measured on a Clock; a wake event ends a sleep early."""

    def __init__(self, clock: Clock, tick_s: float) -> None:
        self.clock = clock
        self.tick_s = tick_s
        self.turns = Changes()
        """Notified each time the owner has looked at the clock again (once per tick)."""

    async def sleep(self, seconds: float, wake: asyncio.Event | None = None) -> None:
        """Return once `seconds` have passed on the clock, or when `wake` is set."""
        deadline = self.clock.monotonic() + seconds
        raise_if_cancelled()
        while (left := deadline - self.clock.monotonic()) > 0:
            raise_if_cancelled()
            step = min(left, self.tick_s)
            self.turns.notify()
            if wake is None:
                await asyncio.sleep(step)
                continue
            # asyncio.timeout, not wait_for: wait_for of Python 3.11 can swallow a cancellation.
            try:
                async with asyncio.timeout(step):
                    await wake.wait()
            except TimeoutError:
                continue
            return


def raise_if_cancelled() -> None:
    """Raise a cancellation a library call swallowed (`asyncio.wait_for` of Python 3.11 can,
    when the awaited result arrives as the cancellation does); the task would go on otherwise."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError
