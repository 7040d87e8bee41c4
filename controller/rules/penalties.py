"""Penalty points for irregularities other than time, from a ruleset's `[penalties]` table.

The seeds give the loss of rights and the penalty tiles as the penalty for these and no points
(seed 003); a venue may add points in its ruleset file. Bounds are checked when the ruleset
loads. What an irregularity costs besides points is `controller/table/irregularities.py`.
"""

from controller.rules.data import Table, get
from controller.rules.errors import RulesError
from controller.rules.values import fields, value

MAX_POINTS = 1000


@value
class PenaltyPoints:
    """Points each irregularity costs the seat (0: none), all within 0..MAX_POINTS."""

    false_win: int = 0
    """A declared and revealed hand that is not a win (錯和)."""
    short_hand: int = 0
    """Fewer tiles than the seat must hold (小相公)."""
    long_hand: int = 0
    """More tiles than the seat must hold (大相公); drawing out of turn is one."""
    wrong_claim: int = 0
    """A claim the rules do not allow (a chow from the wrong seat, a claim after the next draw)."""

    def __post_init__(self) -> None:
        for name in fields(self):
            points = getattr(self, name)
            if not 0 <= points <= MAX_POINTS:
                raise RulesError(
                    f"ruleset data 'penalties.{name}' must be between 0 and {MAX_POINTS}, "
                    f"not {points!r}"
                )

    @classmethod
    def from_data(cls, data: Table) -> "PenaltyPoints":
        """The `[penalties]` table of a ruleset's data (bounds checked)."""
        return cls(**{name: get(data, f"penalties.{name}", int) for name in fields(cls)})
