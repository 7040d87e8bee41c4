"""How often the dashboard lets anyone try a password (pure: the time is given).

Failed log-ins are counted per client address and per operator name, across connections. The
first few failures are free; after them each further try must wait, twice as long each time,
up to a ceiling; a try that comes too early is refused without the password being hashed, so
a flood costs the recorder almost nothing. A success clears its name's and its address's
count; a count is forgotten after a quiet spell.

The dashboard holds a too-early request from such an address until its wait is over (up to a
limit) before answering, so a client that guesses in a loop is slowed to the waits' pace.

Failures are told in bursts, one line when a burst begins and one when it ends, with how many
tries, from where and for which names (never one line per try).
"""

from collections.abc import Callable
from dataclasses import dataclass, field

FREE_FAILURES = 3
"""Failures after which each try must wait (FIRST_WAIT_S, then twice as long each time)."""
FIRST_WAIT_S = 1.0
MAX_WAIT_S = 300.0
QUIET_S = 900.0
"""A count is forgotten after this long without a failure."""
BURST_GAP_S = 60.0
"""Failures of one address less than this apart belong to one burst."""
NAMES_TOLD = 5


@dataclass
class _Count:
    failures: int = 0
    last: float = 0.0
    until: float = 0.0
    """No try before this time."""


@dataclass
class _Burst:
    first: float
    last: float
    failures: int = 0
    refused: int = 0
    names: list[str] = field(default_factory=list)


Say = Callable[[str], None]


class LoginGuard:
    """The failure counts of addresses and names, and the bursts being told."""

    def __init__(self, say: Say, max_keys: int = 10_000) -> None:
        self.say = say
        self.max_keys = max_keys
        self._counts: dict[str, _Count] = {}
        self._bursts: dict[str, _Burst] = {}

    def wait_s(self, client: str, name: str, now: float) -> float:
        """Seconds before this address may try this name again (0: it may try now); a try
        refused here is counted in its address's burst."""
        wait = max(self._until(f"addr:{client}", now), self._until(f"user:{name}", now)) - now
        if wait > 0:
            self._burst(client, name, now).refused += 1
        self._end_quiet_bursts(now)
        return max(0.0, wait)

    def has_failed(self, client: str, now: float) -> bool:
        """Whether this address has failed to log in (and its count is not yet forgotten)."""
        self._until(f"addr:{client}", now)  # forgets a count gone quiet
        count = self._counts.get(f"addr:{client}")
        return count is not None and count.failures > 0

    def address_wait_s(self, client: str, now: float) -> float:
        """Seconds before this address may try any name again (0: now)."""
        return max(0.0, self._until(f"addr:{client}", now) - now)

    def failed(self, client: str, name: str, now: float) -> None:
        """A wrong name or password from `client`."""
        for key in (f"addr:{client}", f"user:{name}"):
            count = self._count(key, now)
            count.failures += 1
            count.last = now
            over = count.failures - FREE_FAILURES
            if over >= 0:
                count.until = now + min(MAX_WAIT_S, FIRST_WAIT_S * 2 ** min(over, 30))
        burst = self._burst(client, name, now)
        burst.failures += 1
        if burst.failures == 1:
            self.say(
                f"dashboard: failed operator log in from {client} as {name[:64]!r}; further "
                "failures from this address are counted and told when they stop"
            )

    def succeeded(self, client: str, name: str) -> None:
        """A right name and password: their counts start again."""
        self._counts.pop(f"addr:{client}", None)
        self._counts.pop(f"user:{name}", None)

    def _until(self, key: str, now: float) -> float:
        count = self._counts.get(key)
        if count is None:
            return 0.0
        if now - count.last > QUIET_S:
            del self._counts[key]
            return 0.0
        return count.until

    def _count(self, key: str, now: float) -> _Count:
        if key not in self._counts and len(self._counts) >= self.max_keys:
            self._forget_oldest()
        return self._counts.setdefault(key, _Count(last=now))

    def _forget_oldest(self) -> None:
        oldest = min(self._counts, key=lambda k: self._counts[k].last)
        del self._counts[oldest]

    def _burst(self, client: str, name: str, now: float) -> _Burst:
        burst = self._bursts.pop(client, None)
        if burst is not None and now - burst.last > BURST_GAP_S:
            self._tell_end(client, burst)
            burst = None
        if burst is None:
            if len(self._bursts) >= self.max_keys:
                first = next(iter(self._bursts))
                self._tell_end(first, self._bursts[first])
            burst = _Burst(first=now, last=now)
        self._bursts[client] = burst  # the latest last: bursts stay in the order of their last
        burst.last = now
        if name[:64] not in burst.names and len(burst.names) < NAMES_TOLD:
            burst.names.append(name[:64])
        return burst

    def _end_quiet_bursts(self, now: float) -> None:
        """Tell the bursts quiet for BURST_GAP_S, from the longest quiet to the first that is
        not (every try asks: it costs the bursts ending, not all the bursts there are)."""
        while self._bursts:
            client, burst = next(iter(self._bursts.items()))
            if now - burst.last <= BURST_GAP_S:
                return
            self._tell_end(client, burst)

    def end_quiet(self, now: float) -> None:
        """Tell the bursts that have stopped (called now and then, and on any try)."""
        self._end_quiet_bursts(now)

    def _tell_end(self, client: str, burst: _Burst) -> None:
        self._bursts.pop(client, None)
        if burst.failures + burst.refused <= 1:
            return
        names = ", ".join(repr(n) for n in burst.names)
        self.say(
            f"dashboard: {burst.failures} failed operator log ins from {client} over "
            f"{burst.last - burst.first:.0f} s ({burst.refused} more tries refused as too "
            f"early; names tried: {names})"
        )
