"""What the hand cycle reports about a hand: its start, its wins, its incidents, its result."""

from dataclasses import dataclass
from typing import TYPE_CHECKING

from controller.hub.contract.incidents import IncidentKind as IncidentKind
from controller.rules import Meld, Seat, WinType

if TYPE_CHECKING:
    from controller.table.referee.events import RefereeResult


@dataclass(frozen=True)
class Instant:
    """A moment on both clocks: monotonic (for timeouts) and wall (for people and results)."""

    monotonic: float
    wall: float


@dataclass(frozen=True)
class WinRecord:
    """One validated win; places are physical seats 0-3, tiles are kinds."""

    place: int
    discarder: int | None
    win_tile: int
    concealed: tuple[int, ...]
    melds: tuple[Meld, ...]
    flowers: tuple[int, ...]
    patterns: tuple[tuple[str, int], ...]
    total: int
    unit: str
    score: int
    win_type: WinType = WinType.DISCARD


@dataclass(frozen=True)
class IncidentRecord:
    """An irregularity seen at the table; it never stops play."""

    at: Instant
    place: int | None
    kind: IncidentKind
    detail: str
    penalty: int = 0
    """Penalty points the seat loses for it (0: none); `kind` says what they are for."""
    tiles: tuple[int, ...] = ()
    """The tiles concerned (kinds): e.g. a short hand's tiles, penalty tiles of a false win."""


@dataclass(frozen=True)
class HandStart:
    """A hand whose deal is decided: who sits where and the wall in draw order."""

    session: str
    hand: int
    ruleset: str
    """The ruleset's name (`Ruleset.name`)."""
    round_wind: Seat
    dealer: int
    players: tuple[str, ...]
    winds: tuple[Seat, ...]
    """Seat wind of each physical seat this hand."""
    dice: tuple[int, ...]
    wall_order: tuple[int, ...]
    """Tile kinds in drawing order from the live end (what the result reveals)."""
    started_at: Instant
    seating: "SessionStart | None" = None
    """The session's seating draw, in the start of the first hand it seated (else None)."""


@dataclass(frozen=True)
class FinishedHand:
    """A hand that is over, as it goes to the outbox."""

    start: HandStart
    wins: tuple[WinRecord, ...]
    payments: tuple[int, ...]
    incidents: tuple[IncidentRecord, ...]
    ended_at: Instant
    play: "RefereeResult | None" = None
    """The referee's account of the hand (a `RefereeResult`; None for hands before it)."""

    @property
    def drawn(self) -> bool:
        """No one won."""
        return not self.wins

    @property
    def penalties(self) -> tuple[int, ...]:
        """Penalty points per physical seat, as deltas (<= 0): the sum of its incidents'."""
        return tuple(-sum(i.penalty for i in self.incidents if i.place == p) for p in range(4))


@dataclass(frozen=True)
class SessionStart:
    """How a session began: the seating draw (WMC) and who sits on which chair for play."""

    session: str
    ruleset: str
    players_at_draw: tuple[str, ...]
    """Who sat on each chair (0-3) while drawing."""
    drawn: tuple[str, ...]
    """The wind tile each chair drew: 'E', 'S', 'W' or 'N'."""
    dice: tuple[int, ...]
    """The two rolls that decided who took the first wind tile (four values)."""
    players: tuple[str, ...]
    """Who sits on each chair for play: East's drawer on chair 0 (the first dealer), and so on."""
    dealer: int
    at: Instant
