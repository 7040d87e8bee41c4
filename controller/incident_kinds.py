"""The one vocabulary of incidents, shared by the table (which records them in each hand
result) and the venue (whose director enters the ones no table can see): every kind a result's
incident may have, and which kinds mean the incident's player forfeits the hand.

Under the Shanghai qualifying rules a player who is seated but never starts a hand, who leaves
it, or whose line drops, loses that hand: it counts as one hand for that player only, and the
other three neither score it nor count it. A result naming a kind outside this list is refused
when it is decoded, and a tournament file naming one as a forfeit is an error: nothing is
loaded silently under a name nobody counts.

This module imports nothing else of ours: the table core records in it, and the hub contract
carries it (`controller.hub.contract.incidents`).
"""

import enum


class IncidentKind(enum.StrEnum):
    """Every kind of incident the table records (the value is the result's `kind`)."""

    TURN_TIME = "turn_time"
    HAND_TIME = "hand_time"
    TIME_FORFEIT = "time_forfeit"
    """A player ran out of time for the hand and loses it."""
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
    LEFT_HAND = "left_hand"
    """A player left during the hand (the director marked the seat, or the table's session
    was ended naming the leaver)."""
    NO_START = "no_start"
    """A player seated for the hand never started it."""


FORFEITS = frozenset({IncidentKind.TIME_FORFEIT, IncidentKind.LEFT_HAND, IncidentKind.NO_START})
"""Kinds that mean the incident's seat forfeited the hand."""
