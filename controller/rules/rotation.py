"""Who deals next and when a round ends (from a ruleset's `[rotation]`).

The table's four places are numbered 0-3 counter-clockwise; the dealer's place sits East
and the others take S, W, N in turn, so `seat_of(place)` changes as the deal moves on.
"""

from enum import StrEnum

from controller.rules.data import Table, get
from controller.rules.errors import RulesError
from controller.rules.seats import Seat, dice_seat
from controller.rules.values import replace, value


class DealerRule(StrEnum):
    """How the next dealer is chosen."""

    EVERY_HAND = "every-hand"
    """The deal passes to the next player after every hand, drawn or won."""
    WINNER = "winner"
    """The (first) winner deals next; after a drawn hand the dealer deals again."""
    DICE = "dice"
    """The dealer rolls the dice for the next dealer, counting seats from himself."""


@value
class HandOutcome:
    """How a hand ended: the winners' seats in the order they won (empty: a drawn hand)."""

    winners: tuple[Seat, ...] = ()

    @property
    def drawn(self) -> bool:
        """No one won."""
        return not self.winners


@value
class DealState:
    """Where the deal stands: the dealer's place, the hand number and round, draws in a row."""

    dealer: int = 0
    hand: int = 1
    round: int = 1
    draw_streak: int = 0

    def seat_of(self, place: int) -> Seat:
        """The seat wind of the player at `place` (0-3) this hand."""
        return Seat((place - self.dealer) % 4)

    def place_of(self, seat: Seat) -> int:
        """The place (0-3) of the player sitting `seat` this hand."""
        return (self.dealer + seat) % 4


@value
class RotationRules:
    """Dealer rotation of a ruleset."""

    dealer: DealerRule
    hands_per_round: int

    @classmethod
    def from_data(cls, data: Table) -> "RotationRules":
        """The `[rotation]` table of a ruleset's data."""
        text = get(data, "rotation.dealer", str)
        try:
            rule = DealerRule(text)
        except ValueError:
            raise RulesError(
                f"rotation.dealer: use every-hand, winner or dice; got '{text}'"
            ) from None
        hands = get(data, "rotation.hands_per_round", int)
        if hands < 1:
            raise RulesError(f"rotation.hands_per_round must be at least 1, not {hands}")
        return cls(rule, hands)

    def next_state(
        self, state: DealState, outcome: HandOutcome, dice: tuple[int, int] | None = None
    ) -> DealState:
        """The deal state for the next hand."""
        streak = state.draw_streak + 1 if outcome.drawn else 0
        if self.dealer is DealerRule.EVERY_HAND:
            step = 1
        elif self.dealer is DealerRule.WINNER:
            step = 0 if outcome.drawn else int(outcome.winners[0])
        else:
            if dice is None:
                raise RulesError("the next dealer is chosen by dice: pass the dice")
            step = int(dice_seat(Seat.E, sum(dice)))
        return self._advance(replace(state, draw_streak=streak), step)

    def _advance(self, state: DealState, step: int) -> DealState:
        if step == 0:
            return state
        hand = state.hand + 1
        if hand > self.hands_per_round:
            return replace(state, dealer=(state.dealer + step) % 4, hand=1, round=state.round + 1)
        return replace(state, dealer=(state.dealer + step) % 4, hand=hand)
