"""Seat winds and counting seats with dice.

Seats go counter-clockwise E -> S -> W -> N; a seat's `next` player (下家) sits to its right
and plays after it, its `previous` player (上家) sits to its left. The dealer is always East.
"""

from enum import IntEnum

from controller.rules.errors import RulesError


class Seat(IntEnum):
    """A seat wind in the current hand (E is the dealer)."""

    E = 0
    S = 1
    W = 2
    N = 3

    @property
    def next(self) -> "Seat":
        """The player after this one (to the right)."""
        return SEATS[(self + 1) % 4]

    @property
    def previous(self) -> "Seat":
        """The player before this one (to the left)."""
        return SEATS[(self + 3) % 4]

    @property
    def opposite(self) -> "Seat":
        """The player across the table."""
        return SEATS[(self + 2) % 4]

    @property
    def wind(self) -> int:
        """The tile kind of this seat's wind (27-30)."""
        return 27 + self  # int arithmetic: much cheaper than the enum's .value

    def others(self) -> tuple["Seat", ...]:
        """The three other seats, in playing order after this one."""
        return _OTHERS[self]

    @classmethod
    def parse(cls, text: str) -> "Seat":
        """A seat from its letter E, S, W or N."""
        try:
            return cls[text.strip().upper()]
        except KeyError:
            raise RulesError(f"unknown seat '{text}': use E, S, W or N") from None


SEATS: tuple[Seat, ...] = tuple(Seat)
"""E, S, W, N (index = seat value)."""
_OTHERS = tuple(tuple(SEATS[(seat + step) % 4] for step in (1, 2, 3)) for seat in range(4))


def dice_seat(roller: Seat, total: int) -> Seat:
    """The seat a dice total points at, the roller counting 1 (5, 9 = roller; 2, 6 = next)."""
    if total < 1:
        raise RulesError(f"a dice total of {total} points at no seat")
    return SEATS[(roller + total - 1) % 4]


def check_dice(dice: tuple[int, ...], count: int) -> None:
    """Raise RulesError unless `dice` holds `count` values of 1-6."""
    if len(dice) != count:
        raise RulesError(f"expected {count} dice values, got {len(dice)}")
    for value in dice:
        if not 1 <= value <= 6:
            raise RulesError(f"a die shows 1-6, got {value}")
