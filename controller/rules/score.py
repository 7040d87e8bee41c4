"""A score that explains itself, and the payments that follow from it."""

from collections.abc import Mapping
from types import MappingProxyType
from typing import NamedTuple

from controller.rules.errors import RulesError
from controller.rules.seats import SEATS, Seat
from controller.rules.shapes import Arrangement

Payments = dict[Seat, int]
"""Signed score change per seat; the four always sum to zero."""
NO_PAYMENTS: Mapping[Seat, int] = MappingProxyType(dict.fromkeys(SEATS, 0))


class PatternValue(NamedTuple):
    """One counted pattern: its name and its value in the ruleset's unit."""

    name: str
    """The pattern's name as the ruleset's data file spells it (`xN` when counted N times)."""
    value: int
    """Its value (points, fan, ...), already multiplied where it counts per set."""


class Tally(NamedTuple):
    """A ruleset's verdict on one arrangement: the counted patterns and what they add up to."""

    patterns: tuple[PatternValue, ...]
    total: int
    score: int
    limits: tuple[str, ...] = ()
    rejected: str = ""
    """Non-empty when this arrangement may not win (the reason, in plain words)."""


class Score(NamedTuple):
    """The full answer for a declared win."""

    ruleset: str
    valid: bool
    reason: str
    patterns: tuple[PatternValue, ...] = ()
    limits: tuple[str, ...] = ()
    total: int = 0
    unit: str = "points"
    score: int = 0
    payments: Mapping[Seat, int] = NO_PAYMENTS
    reading: Arrangement | None = None
    """The arrangement of the hand that was scored (the best one)."""

    @property
    def arrangement(self) -> str:
        """The scored reading in notation, e.g. `234m 345p 55p 567s [678s]` ('' if invalid)."""
        return self.reading.describe() if self.reading else ""

    def as_json(self) -> dict[str, object]:
        """The CLI's `--json` object."""
        return {
            "ruleset": self.ruleset,
            "valid": self.valid,
            "reason": self.reason,
            "patterns": [{"name": p.name, "value": p.value} for p in self.patterns],
            "total": self.total,
            "unit": self.unit,
            "score": self.score,
            "payments": {seat.name: self.payments.get(seat, 0) for seat in Seat},
        }


def no_payments() -> Payments:
    """Every seat at zero."""
    return dict.fromkeys(SEATS, 0)


def payments_from(debts: Mapping[Seat, int], receiver: Seat) -> Payments:
    """Payments where each seat in `debts` pays its amount to `receiver`."""
    result = {seat: -debts.get(seat, 0) for seat in SEATS}
    if receiver in debts:
        raise RulesError(f"seat {receiver.name} cannot pay itself")
    result[receiver] = sum(debts.values())
    return result


def add_payments(*parts: Mapping[Seat, int]) -> Payments:
    """The seat-by-seat sum of several payments."""
    result = no_payments()
    for part in parts:
        for seat, amount in part.items():
            result[seat] += amount
    return result
