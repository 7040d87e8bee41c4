"""Injectable clocks: the daemon reads time only through these, so tests never sleep."""

import time
from typing import Protocol


class Clock(Protocol):
    """A source of monotonic seconds and of wall-clock seconds since the epoch."""

    def monotonic(self) -> float:
        """Seconds from an arbitrary origin; never goes backwards."""
        ...

    def wall(self) -> float:
        """Seconds since the Unix epoch, for timestamps people read."""
        ...


class SystemClock:
    """The real clock of the machine."""

    def monotonic(self) -> float:
        """Seconds from the kernel's monotonic clock."""
        return time.monotonic()

    def wall(self) -> float:
        """Seconds since the epoch from the system clock."""
        return time.time()


class ManualClock:
    """A clock that moves only when a test (or a replay) advances it."""

    def __init__(self, start: float = 0.0, wall_start: float = 1_700_000_000.0) -> None:
        self._now = start
        self._wall_offset = wall_start - start

    def monotonic(self) -> float:
        """The current manual time."""
        return self._now

    def wall(self) -> float:
        """The manual time shifted to a fixed epoch origin."""
        return self._now + self._wall_offset

    def advance(self, seconds: float) -> None:
        """Move time forward; moving it backwards is a bug in the caller."""
        if seconds < 0:
            raise ValueError(f"a clock cannot go back {-seconds} s")
        self._now += seconds
