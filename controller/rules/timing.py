"""Turn and hand time limits with penalty points (WMC rules), from a ruleset's `[timing]`."""

import math
from collections.abc import Sequence
from dataclasses import dataclass

from controller.rules.data import Table, get


@dataclass(frozen=True)
class TimePenalty:
    """Time penalty of one player in one hand."""

    points: int
    forfeit: bool


@dataclass(frozen=True)
class TimingRules:
    """WMC turn and hand time limits (from `[timing]`)."""

    turn_seconds: float
    hand_seconds: float
    penalty: int
    step_seconds: float
    grace_seconds: float
    forfeit_over: int

    @classmethod
    def from_data(cls, data: Table) -> "TimingRules":
        """The `[timing]` table of the ruleset's data."""
        number = (int, float)
        return cls(
            turn_seconds=get(data, "timing.turn_seconds", number),
            hand_seconds=get(data, "timing.hand_seconds", number),
            penalty=get(data, "timing.penalty", int),
            step_seconds=get(data, "timing.step_seconds", number),
            grace_seconds=get(data, "timing.grace_seconds", number),
            forfeit_over=get(data, "timing.forfeit_over", int),
        )

    def assess(self, turns: Sequence[float]) -> TimePenalty:
        """Points for these turn times in order (the grace after dealing is taken off the first).

        Each started step over the turn limit costs `penalty`, and so does each started step
        of the hand's total over the hand limit; both apply.
        """
        counted = list(turns)
        if counted:
            counted[0] = max(0.0, counted[0] - self.grace_seconds)
        steps = sum(self._steps(seconds - self.turn_seconds) for seconds in counted)
        steps += self._steps(sum(counted) - self.hand_seconds)
        points = steps * self.penalty
        return TimePenalty(points, points > self.forfeit_over)

    def _steps(self, over: float) -> int:
        return math.ceil(over / self.step_seconds) if over > 0 else 0
