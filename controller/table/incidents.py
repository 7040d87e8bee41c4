"""A moment on both clocks, and the irregularities the table records at one: what the referee,
the turn clocks and the hand cycle all report, below any of them."""

import enum
from dataclasses import dataclass

from controller.table.rulings import Ruling


@dataclass(frozen=True)
class Instant:
    """A moment on both clocks: monotonic (for timeouts) and wall (for people and results)."""

    monotonic: float
    wall: float


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
