"""What the hand cycle reports about a hand: its start, its wins, its incidents, its result."""

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING

from controller.rules import Meld, Seat, WinType
from controller.table.rulings import Ruling

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


class IncidentKind(enum.StrEnum):
    """Every kind of incident the table records (the value is the result's `kind`)."""

    TURN_TIME = "turn_time"
    HAND_TIME = "hand_time"
    TIME_FORFEIT = "time_forfeit"
    SHORT_HAND = "short_hand"
    LONG_HAND = "long_hand"
    FALSE_WIN = "false_win"
    """A declaration that is not a win (out of turn, or a hand the rules do not score)."""
    RIGHT_LOST = "right_lost"
    """A win, claim or kong by a seat that lost the right to it this hand (相公)."""
    PENALTY_TILE_USED = "penalty_tile_used"
    """A penalty tile of a false win put into an exposed set."""
    DRAW_OUT_OF_TURN = "draw_out_of_turn"
    WRONG_WALL_DRAW = "wrong_wall_draw"
    WRONG_CLAIM = "wrong_claim"
    """A claim the rules do not allow on that discard (a chow from the wrong seat, a set that
    does not fit): refused, its exposed tiles become penalty tiles."""
    CLAIM_VOID = "claim_void"
    """A set laid out on a discard that a win took: void, no fault, its tiles back in the hand."""
    SENSOR_CONFLICT = "sensor_conflict"
    """A tag read in two zones at once: read again, no move."""
    LATE_CLAIM = "late_claim"
    """A discard taken, or a win declared on it, after the next draw."""
    HEAD_BUMP = "head_bump"
    """A second valid win on one discard where only the first in turn wins."""
    KONG_ON_LAST_TILE = "kong_on_last_tile"
    WIN_PASSED = "win_passed"
    """A ready hand let the last tiles go (a win it had to take)."""
    UNKNOWN_TILE = "unknown_tile"
    TILE_LEFT_TABLE = "tile_left_table"
    STRAY_TILES = "stray_tiles"
    """Tiles moved in a way no move of play explains."""
    WRONG_DEAL = "wrong_deal"
    SETTLEMENT = "settlement"
    """A payment the ruleset could not settle."""
    TABLE_RESTARTED = "table_restarted"


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
    ruling: Ruling | None = None
    """The row of docs/rulings.md the referee applied (None: no ruling, e.g. the clocks)."""


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
