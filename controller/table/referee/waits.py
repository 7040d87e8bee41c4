"""What the referee waits for and since when: tags out of place, read nowhere or read in two
zones at once; the reads again it asked for (and the newest one answered); zone reads that
may be missing (MCU events lost). Changed only through the steps below (the referee holds
them as `WaitSteps`, whose fields are read-only); `machine` decides when to read again and
when a wait is over."""

from collections import deque
from typing import Protocol

ASKED_KEPT = 8
"""Reads again under way that the referee keeps count of."""


class WaitSteps(Protocol):
    """The waits as the referee holds them: fields read-only, changed by the steps."""

    @property
    def odd_since(self) -> float | None:
        """Since when tags lie out of place (None: none do)."""

    @property
    def unseen_since(self) -> float | None:
        """Since when tags that must lie in a zone are read nowhere."""

    @property
    def conflict_since(self) -> float | None:
        """Since when tags are read in two zones at once (R-SENSOR-2)."""

    @property
    def read_done(self) -> float | None:
        """When the newest read again that has come back was asked."""

    @property
    def reads(self) -> int:
        """How often the zones were read again for the present wait."""

    @property
    def read_at(self) -> float | None:
        """When the zones were last asked to be read again (for tags out of place or not
        read, or a press no tile explains yet)."""

    @property
    def missing_since(self) -> float | None:
        """Zone reads from about then on may be missing (MCU events lost, not yet read
        again): what falls due after it waits."""

    def note(self, t: float, odd: bool, unseen: bool, conflicts: bool) -> None:
        """What lies out of place, unread or in conflict now: a wait starts, or is over."""

    def adopted(self) -> None:
        """The tags out of place were taken as they lie: that wait is over."""

    def gone(self) -> None:
        """The tags read nowhere were taken to have left the table: that wait is over."""

    def nothing_waits(self) -> None:
        """Nothing waits: no read again is due."""

    def waiting(self) -> None:
        """Something waits: a new wait counts its reads again from none."""

    def asked(self, t: float) -> None:
        """The zones are asked to be read again now."""

    def answered(self, asked_at: float) -> None:
        """The read again asked at `asked_at` came back (and any asked before it)."""

    def missing(self, since: float | None) -> None:
        """Zone reads may be missing since then (None: complete again)."""


class Waits:
    """Since when each wait lasts, and the reads again under way (held as `WaitSteps`)."""

    def __init__(self) -> None:
        self.odd_since: float | None = None
        self.unseen_since: float | None = None
        self.conflict_since: float | None = None
        self.read_done: float | None = None
        self.reads = 0
        self.read_at: float | None = None
        self.missing_since: float | None = None
        self._asked: deque[float] = deque(maxlen=ASKED_KEPT)

    def note(self, t: float, odd: bool, unseen: bool, conflicts: bool) -> None:
        # A wait that lasts keeps its start; a new one starts at `t`; one that is over, none.
        if not odd:
            self.odd_since = None
        elif self.odd_since is None:
            self.odd_since = t
        if not unseen:
            self.unseen_since = None
        elif self.unseen_since is None:
            self.unseen_since = t
        if not conflicts:
            self.conflict_since = None
        elif self.conflict_since is None:
            self.conflict_since = t

    def adopted(self) -> None:
        self.odd_since = None

    def gone(self) -> None:
        self.unseen_since = None

    def nothing_waits(self) -> None:
        self.read_at = None

    def waiting(self) -> None:
        if self.read_at is None:
            self.reads = 0

    def asked(self, t: float) -> None:
        self.read_at = t
        self.reads += 1
        self._asked.append(t)

    def answered(self, asked_at: float) -> None:
        while self._asked and self._asked[0] <= asked_at:
            self.read_done = self._asked.popleft()

    def missing(self, since: float | None) -> None:
        self.missing_since = since
