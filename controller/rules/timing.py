"""Turn and hand time limits and their penalties, from a ruleset's `[timing]` table.

One definition of every timing value (turn limit, hand total, grace after the deal, penalty
step and points, forfeit threshold, warning-only or points) and of the step rule: each
*started* step over a limit costs `penalty` points. Every value is bounds-checked when the
ruleset loads, so a venue's ruleset file with a value out of bounds is refused (by
`config check` too) with the key and the allowed range. The live clocks that apply these
limits during play are `controller/table/clocks.py`.
"""

import enum
import math
from collections.abc import Sequence

from controller.rules.data import Table, get
from controller.rules.errors import RulesError
from controller.rules.values import value

MICROS = 1_000_000
"""Clock instants and limits are counted in whole microseconds (exact step arithmetic)."""


class TimingMode(enum.StrEnum):
    """What passing a time limit costs."""

    POINTS = "points"
    """Penalty points per started step (WMC); too many points forfeit the hand."""
    WARNING = "warning"
    """A warning (light and buzzer, an incident without points) and nothing else."""


BOUNDS: dict[str, tuple[float, float]] = {
    "turn_seconds": (5, 600),
    "hand_seconds": (30, 7200),
    "step_seconds": (1, 600),
    "grace_seconds": (0, 120),
    "penalty": (1, 100),
    "forfeit_over": (1, 10_000),
}
"""Allowed range of each numeric `[timing]` key (inclusive)."""


@value
class TimePenalty:
    """Time penalty of one player in one hand."""

    points: int
    forfeit: bool


@value
class TimingRules:
    """Turn and hand time limits (from `[timing]`)."""

    turn_seconds: float
    hand_seconds: float
    penalty: int
    step_seconds: float
    grace_seconds: float
    forfeit_over: int
    mode: TimingMode = TimingMode.POINTS

    def __post_init__(self) -> None:
        for key, (low, high) in BOUNDS.items():
            value = getattr(self, key)
            if not low <= value <= high:
                raise RulesError(
                    f"ruleset data 'timing.{key}' must be between {low:g} and {high:g}, "
                    f"not {value!r}"
                )

    @classmethod
    def from_data(cls, data: Table) -> "TimingRules":
        """The `[timing]` table of the ruleset's data (bounds checked)."""
        number = (int, float)
        mode = get(data, "timing.mode", str)
        try:
            timing_mode = TimingMode(mode)
        except ValueError:
            choices = ", ".join(m.value for m in TimingMode)
            raise RulesError(
                f"ruleset data 'timing.mode' must be one of {choices}, not {mode!r}"
            ) from None
        return cls(
            turn_seconds=get(data, "timing.turn_seconds", number),
            hand_seconds=get(data, "timing.hand_seconds", number),
            penalty=get(data, "timing.penalty", int),
            step_seconds=get(data, "timing.step_seconds", number),
            grace_seconds=get(data, "timing.grace_seconds", number),
            forfeit_over=get(data, "timing.forfeit_over", int),
            mode=timing_mode,
        )

    @property
    def charges_points(self) -> bool:
        """Whether passing a limit costs points (else it is a warning only)."""
        return self.mode is TimingMode.POINTS

    def steps_over(self, over_us: int) -> int:
        """Started penalty steps for `over_us` microseconds past a limit (0 if not past it)."""
        step_us = micros(self.step_seconds)
        return -(-over_us // step_us) if over_us > 0 else 0

    def points(self, turns_counted_us: Sequence[int]) -> int:
        """Penalty points of one player's counted turn times (microseconds) in one hand.

        Each started step over the turn limit costs `penalty`, and so does each started step
        of the hand's total over the hand limit; both apply. Warning-only rulesets: 0.
        """
        if not self.charges_points:
            return 0
        turn_us, hand_us = micros(self.turn_seconds), micros(self.hand_seconds)
        steps = sum(self.steps_over(counted - turn_us) for counted in turns_counted_us)
        steps += self.steps_over(sum(turns_counted_us) - hand_us)
        return steps * self.penalty

    def assess(self, turns: Sequence[float]) -> TimePenalty:
        """Points for these turn times in order (the grace after dealing is taken off the first).

        A summary for turns that start with the deal (the dealer's); the live clocks take the
        grace off whatever part of any turn falls within it.
        """
        counted = [micros(seconds) for seconds in turns]
        if counted:
            counted[0] = max(0, counted[0] - micros(self.grace_seconds))
        points = self.points(counted)
        return TimePenalty(points, self.charges_points and points > self.forfeit_over)


def micros(seconds: float) -> int:
    """Seconds as whole microseconds (the clocks' resolution)."""
    return math.floor(seconds * MICROS + 0.5)
