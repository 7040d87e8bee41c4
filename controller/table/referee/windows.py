"""Claim windows and declare presses: the window open on a discard (or on an added kong's
fourth tile, for robbing), the windows the next draws closed, the window a set was claimed
from, and the presses not yet judged (in a window, in the seat's own turn, or not placed
yet). Changed only through the steps below (the referee holds them as `WindowSteps`, whose fields
are read-only); `claims` decides when each applies."""

import enum
from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass, field
from typing import Protocol

from controller.table.incidents import Instant

PASSED_KEPT = 4
"""Windows kept in `Windows.passed`."""


class Close(enum.Enum):
    """Why a claim window closed."""

    TIME = "time"
    DRAW = "the next draw"
    CLAIM = "a claim"


@dataclass
class Window:
    """A claim window: on a discard, or on an added kong's fourth tile (robbing)."""

    uid: int
    source: int
    opened: float
    robbing: bool = False
    declares: dict[int, Instant] = field(default_factory=dict)
    taken_by: int | None = None
    """The seat that moved the tile into its HAND (to win on it)."""
    last: bool = False
    """The wall was empty at the discard (the last discard)."""
    after_kong: bool = False
    """The discarder's last draw replaced a kong (杠上炮 if won on)."""
    wall_before: int | None = None
    """How many tiles the wall held before the discarder's last draw (None: no draw)."""


class WindowSteps(Protocol):
    """The windows as the referee holds them: fields read-only, changed by the steps."""

    @property
    def open(self) -> Window | None:
        """The window open now (None: none)."""

    @property
    def closed(self) -> Window | None:
        """The window the next draw closed (a declaration on it now comes too late)."""

    @property
    def claimed(self) -> Window | None:
        """The window a set was claimed from, until the claimer discards: a win declared on
        its discard meanwhile still comes first (R-CLAIM-3)."""

    @property
    def passed(self) -> Sequence[Window]:
        """The last windows a draw closed (a round's worth, newest last): a set claimed from
        one of them is a late claim, even after the next discard."""

    @property
    def self_declared(self) -> Mapping[int, Instant]:
        """Presses in the seat's own turn, to be judged once its tiles settle."""

    @property
    def early(self) -> Mapping[int, Instant]:
        """Presses not yet matched to a window or a turn (a press may come before the tiles)."""

    @property
    def reported(self) -> Set[int]:
        """Tags already named in an incident (a late claim): not named again as strays."""

    def opens(self, window: Window, after_discard: bool = False) -> None:
        """A window opens (a discard's also ends the wait on the window before it)."""

    def close(self, by_draw: bool, drawer: int) -> Window | None:
        """The open window closes (None: none was open). Closed by a draw, it passes; the
        drawer's press on it is one in its own turn, and the others' wait for the next window
        (unless the seat took this tile)."""

    def shut(self) -> None:
        """The hand is over: no window is open."""

    def taken(self, window: Window, place: int) -> None:
        """The seat moved the window's tile into its HAND (to win on it)."""

    def set_claimed(self, window: Window | None) -> None:
        """A set was claimed from this window (None: the claim is complete, or void)."""

    def report_late(self, uid: int) -> None:
        """The tag was named in a late claim's incident."""

    def pressed(self, place: int, at: Instant) -> None:
        """A declare press, not placed yet (a seat's first press counts)."""

    def placed(self, place: int) -> None:
        """The press is placed or judged: it waits no more."""

    def in_window(self, place: int, at: Instant) -> None:
        """The press claims the open window."""

    def in_own_turn(self, place: int, at: Instant) -> None:
        """The press declares a win in the seat's own turn."""

    def judged_self(self, place: int) -> None:
        """The seat's declaration in its own turn is judged."""

    def turn_over(self) -> None:
        """A win: declarations in the winner's turn are over."""

    def reopen_for(self, window: Window, place: int, at: Instant) -> None:
        """A win declared on the discard a set was just claimed from: its window opens
        again, with that declaration alone (R-CLAIM-3)."""


class Windows:
    """The claim windows of the hand and the presses not yet judged (held as `WindowSteps`:
    its fields are read-only to the referee)."""

    def __init__(self) -> None:
        self.open: Window | None = None
        self.closed: Window | None = None
        self.claimed: Window | None = None
        self.passed: list[Window] = []
        self.self_declared: dict[int, Instant] = {}
        self.early: dict[int, Instant] = {}
        self.reported: set[int] = set()

    def opens(self, window: Window, after_discard: bool = False) -> None:
        self.open = window
        if after_discard:
            self.closed = None

    def close(self, by_draw: bool, drawer: int) -> Window | None:
        window = self.open
        if window is None:
            return None
        self.open = None
        if by_draw:
            self.closed = window
            self.passed = [*self.passed[1 - PASSED_KEPT :], window]
            if drawer in window.declares:
                self.self_declared[drawer] = window.declares.pop(drawer)
            for place in [p for p in window.declares if p != window.taken_by]:
                self.early[place] = window.declares.pop(place)
        return window

    def shut(self) -> None:
        self.open = None

    def taken(self, window: Window, place: int) -> None:
        window.taken_by = place

    def set_claimed(self, window: Window | None) -> None:
        self.claimed = window

    def report_late(self, uid: int) -> None:
        self.reported.add(uid)

    def pressed(self, place: int, at: Instant) -> None:
        self.early.setdefault(place, at)

    def placed(self, place: int) -> None:
        del self.early[place]

    def in_window(self, place: int, at: Instant) -> None:
        assert self.open is not None
        self.open.declares.setdefault(place, at)
        del self.early[place]

    def in_own_turn(self, place: int, at: Instant) -> None:
        self.self_declared.setdefault(place, at)
        del self.early[place]

    def judged_self(self, place: int) -> None:
        self.self_declared.pop(place, None)

    def turn_over(self) -> None:
        self.self_declared.clear()

    def reopen_for(self, window: Window, place: int, at: Instant) -> None:
        window.declares = {place: at}
        self.open = window
