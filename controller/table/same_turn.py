"""Who may still claim the last discard, given what happened at the table since it fell
(seed 003's same-turn rules, as far as the tile sensors can see them). Pure.

    open = open_claims(AfterDiscard.WALL_TILE_LIFTED, claimant, discarder, ruleset.claims)

Seed 003: the next player who lifts the next wall tile gives up claiming the discard, except a
win (which keeps its priority); once that tile is in the next player's hand (its HAND zone),
or the next player has discarded, declared a win or a kong, nobody may claim the discard any
more (a claim then is late). A chow is complete once its set is shown *and* its discard made:
from the first of the two the others may no longer pung or kong the discard, and a win keeps
its priority until both are done. If someone pungs or kongs while the next player holds the
lifted tile, the tile goes back and the player who draws next may take it or the one after it
(the referee accepts either as that draw). Drawing before the previous player has discarded is
a long hand, discarding before drawing a short hand (`irregularities.py`).
"""

import enum

from controller.rules.claims import Claim, ClaimRules
from controller.rules.seats import Seat


class AfterDiscard(enum.Flag):
    """What the table has seen since the last discard."""

    NOTHING = 0
    WALL_TILE_LIFTED = enum.auto()
    """The next wall tile left the wall, not yet in the next player's HAND zone."""
    TILE_IN_HAND = enum.auto()
    """The next player's drawn tile is in its HAND zone."""
    NEXT_PLAYER_ACTED = enum.auto()
    """The next player discarded, declared a win or declared a kong."""
    CHOW_SHOWN = enum.auto()
    """A chow with the discard lies in the chower's MELD zone."""
    CHOW_DISCARD = enum.auto()
    """The chower has discarded."""


_ALL = (Claim.WIN, Claim.KONG, Claim.PUNG, Claim.CHOW)


def open_claims(
    seen: AfterDiscard,
    claimant: Seat,
    discarder: Seat,
    rules: ClaimRules,
    last_discard: bool = False,
) -> frozenset[Claim]:
    """The claims `claimant` may still make on `discarder`'s last discard."""
    if seen & (AfterDiscard.TILE_IN_HAND | AfterDiscard.NEXT_PLAYER_ACTED):
        return frozenset()
    chow = seen & (AfterDiscard.CHOW_SHOWN | AfterDiscard.CHOW_DISCARD)
    if chow == AfterDiscard.CHOW_SHOWN | AfterDiscard.CHOW_DISCARD:
        return frozenset()
    allowed = {c for c in _ALL if rules.allowed(c, claimant, discarder, last_discard)}
    if chow or (seen & AfterDiscard.WALL_TILE_LIFTED and claimant is discarder.next):
        allowed &= {Claim.WIN}
    return frozenset(allowed)
