"""What the referee waits for and since when: tags out of place, read nowhere or read in two
zones at once; the reads again it asked for (and the newest one answered); zone reads that
may be missing (MCU events lost). Changed only through the steps below; `machine` decides
when to read again and when a wait is over."""

from collections import deque

ASKED_KEPT = 8
"""Reads again under way that the referee keeps count of."""


class Waits:
    """Since when each wait lasts, and the reads again under way."""

    def __init__(self) -> None:
        self._odd_since: float | None = None
        self._unseen_since: float | None = None
        self._conflict_since: float | None = None
        self._asked: deque[float] = deque(maxlen=ASKED_KEPT)
        self._read_done: float | None = None
        self._reads = 0
        self._read_at: float | None = None
        self._missing_since: float | None = None

    @property
    def odd_since(self) -> float | None:
        """Since when tags lie out of place (None: none do)."""
        return self._odd_since

    @property
    def unseen_since(self) -> float | None:
        """Since when tags that must lie in a zone are read nowhere."""
        return self._unseen_since

    @property
    def conflict_since(self) -> float | None:
        """Since when tags are read in two zones at once (R-SENSOR-2)."""
        return self._conflict_since

    @property
    def read_done(self) -> float | None:
        """When the newest read again that has come back was asked."""
        return self._read_done

    @property
    def reads(self) -> int:
        """How often the zones were read again for the present wait."""
        return self._reads

    @property
    def read_at(self) -> float | None:
        """When the zones were last asked to be read again (for tags out of place or not
        read, or a press no tile explains yet)."""
        return self._read_at

    @property
    def missing_since(self) -> float | None:
        """Zone reads from about then on may be missing (MCU events lost, not yet read
        again): what falls due after it waits."""
        return self._missing_since

    def note(self, t: float, odd: bool, unseen: bool, conflicts: bool) -> None:
        """What lies out of place, unread or in conflict now: a wait starts, or is over."""
        self._odd_since = _since(self._odd_since, t, odd)
        self._unseen_since = _since(self._unseen_since, t, unseen)
        self._conflict_since = _since(self._conflict_since, t, conflicts)

    def adopted(self) -> None:
        """The tags out of place were taken as they lie: that wait is over."""
        self._odd_since = None

    def gone(self) -> None:
        """The tags read nowhere were taken to have left the table: that wait is over."""
        self._unseen_since = None

    def nothing_waits(self) -> None:
        """Nothing waits: no read again is due."""
        self._read_at = None

    def waiting(self) -> None:
        """Something waits: a new wait counts its reads again from none."""
        if self._read_at is None:
            self._reads = 0

    def asked(self, t: float) -> None:
        """The zones are asked to be read again now."""
        self._read_at = t
        self._reads += 1
        self._asked.append(t)

    def answered(self, asked_at: float) -> None:
        """The read again asked at `asked_at` came back (and any asked before it)."""
        while self._asked and self._asked[0] <= asked_at:
            self._read_done = self._asked.popleft()

    def missing(self, since: float | None) -> None:
        """Zone reads may be missing since then (None: complete again)."""
        self._missing_since = since


def _since(since: float | None, t: float, waiting: bool) -> float | None:
    """A wait that lasts keeps its start; a new one starts at `t`; one that is over, none."""
    if not waiting:
        return None
    return t if since is None else since
