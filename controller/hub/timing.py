"""Time for the hub link: jittered exponential backoff, and waits measured on an injectable clock.

Waits are measured on a `Clock` and the clock is looked at every `tick_s` real seconds, so a
test drives minutes of outage by advancing a ManualClock while the real run takes a fraction
of a second; on the table the SystemClock makes the same code wait for real.
"""

import asyncio
import random
from dataclasses import dataclass, field

from controller.clock import Clock


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
    window: int = 256
    gap_grace_s: float = 5.0


class Pacer:
    """Sleeps measured on a Clock; a wake event ends a sleep early."""

    def __init__(self, clock: Clock, tick_s: float) -> None:
        self.clock = clock
        self.tick_s = tick_s

    async def sleep(self, seconds: float, wake: asyncio.Event | None = None) -> None:
        """Return once `seconds` have passed on the clock, or when `wake` is set."""
        deadline = self.clock.monotonic() + seconds
        while (left := deadline - self.clock.monotonic()) > 0:
            step = min(left, self.tick_s)
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
