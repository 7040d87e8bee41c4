"""Players who make mistakes (issue 12): how often each kind of slip happens, seeded.

A rate is a chance per opportunity: per turn for a slow turn, a false win, a draw out of
turn, a short or a long hand; per pung a player would claim for a late claim; per discard a
seat could wrongly chow (not the next seat), pung with a penalty tile, or lay a set out on
ahead of a win (a claim race). The same seed
and hand make the same slips. What each player really did wrong is kept as `Slip` records
(moves.py) beside the moves, so a test compares the referee's report with the truth.
"""

import random
from dataclasses import dataclass

from controller.rules import Ruleset

DEFAULT_TURN_LIMIT_S = 15.0
"""The turn limit a slow player overruns when the ruleset names none (WMC's 15 s)."""


@dataclass(frozen=True)
class Sloppiness:
    """How often the players slip; all zero: they play cleanly."""

    seed: int = 0
    slow_turn: float = 0.0
    slow_by_s: float = 10.0
    """How far past the ruleset's turn limit a slow turn runs (seconds of table time)."""
    false_win: float = 0.0
    draw_out_of_turn: float = 0.0
    short_hand: float = 0.0
    long_hand: float = 0.0
    late_claim: float = 0.0
    wrong_seat_chow: float = 0.0
    """Per discard a seat not next to the discarder could chow."""
    penalty_set: float = 0.0
    """Per discard a seat could pung with one of its penalty tiles."""
    claim_race: float = 0.0
    """Per discard won on that another seat could have claimed a set of."""

    def rng(self, hand: int) -> random.Random:
        """The dice of the slips of one hand (the same for the same seed and hand)."""
        return random.Random(f"mahjong-table slips {self.seed}:{hand}")

    def slow_turn_s(self, ruleset: Ruleset) -> float:
        """How long a slow turn lasts: the ruleset's turn limit plus `slow_by_s`."""
        timing = ruleset.data.get("timing")
        limit = timing.get("turn_seconds") if isinstance(timing, dict) else None
        base = float(limit) if isinstance(limit, int | float) else DEFAULT_TURN_LIMIT_S
        return base + self.slow_by_s


SLOPPY = Sloppiness(
    slow_turn=0.03,
    false_win=0.01,
    draw_out_of_turn=0.01,
    short_hand=0.005,
    long_hand=0.005,
    late_claim=0.25,
    wrong_seat_chow=0.05,
    penalty_set=0.5,
    claim_race=1.0,
)
"""`simulate --habits sloppy`: every kind of slip turns up in a session of a few hands."""
