"""A session: a ruleset, four players, a length; hand numbers, dealer rotation, running scores.

Pure: the hand cycle asks it whether another hand may start and tells it how each hand ended.
Players are listed by physical seat (0-3 = the E, S, W, N chairs); the ruleset's rotation
moves the deal round the chairs, so each hand's seat winds follow from the dealer's chair.
"""

from collections.abc import Sequence
from dataclasses import dataclass, replace

from controller.rules import DealState, HandOutcome, Ruleset
from controller.rules.rotation import DealerRule
from controller.rules.values import replace as rules_replace
from controller.table.records import SessionStart

WINDS = "ESWN"


@dataclass(frozen=True)
class SessionPlan:
    """What a session is: who plays which rules for how long."""

    id: str
    ruleset: str
    players: tuple[str, ...]
    hands: int = 16
    """Hands to play (0: no limit)."""
    rounds: int = 0
    """Rounds to play (0: no limit)."""
    deadline_s: float = 0.0
    """Session length in seconds from its start (0: none)."""
    margin_s: float = 60.0
    """No new hand starts this close to the deadline."""
    seating_draw: bool = True
    """Hold the seating draw where the ruleset has one (False: the players keep the chairs
    listed, e.g. seated by the venue)."""

    def __post_init__(self) -> None:
        if len(self.players) != 4 or len(set(self.players)) != 4:
            raise ValueError("a session needs four different players")


@dataclass(frozen=True)
class HandRecord:
    """One finished hand as the session keeps it."""

    number: int
    dealer: int
    round: int
    winners: tuple[int, ...]
    payments: tuple[int, ...]


class Session:
    """The live session: which hand is next, who deals it, and the scores so far."""

    def __init__(self, plan: SessionPlan, ruleset: Ruleset, started_at: float) -> None:
        self.plan = plan
        self.ruleset = ruleset
        self.started_at = started_at
        self.deal = DealState()
        self.hand_number = 1
        self.scores = [0, 0, 0, 0]
        self.history: list[HandRecord] = []
        self.ending = ""
        self.dealer_rolls: list[tuple[int, int]] = []
        """The dice of every dealer roll, in order (dice-rotation rulesets)."""
        self.seating: SessionStart | None = None
        """The seating draw's record, once the players are seated by it."""
        self._pending: HandOutcome | None = None

    @property
    def needs_dealer_roll(self) -> bool:
        """The ruleset picks each new dealer by dice, and that roll is still to come."""
        return self._pending is not None

    @property
    def needs_seating(self) -> bool:
        """The seating draw is still to come before the first hand."""
        wanted = self.plan.seating_draw and self.ruleset.seating_draw
        return wanted and self.seating is None and not self.history

    def seat(self, start: SessionStart) -> None:
        """The seating draw is done: the players sit on the chairs it gives (`plan.players`
        lists them by chair from now on), the East drawer on chair 0 deals first."""
        self.seating = start
        self.plan = replace(self.plan, players=start.players)
        self.deal = rules_replace(self.deal, dealer=start.dealer)

    @property
    def round_wind(self) -> str:
        """The prevailing wind of the current round."""
        return WINDS[(self.deal.round - 1) % 4]

    def wind_of(self, place: int) -> str:
        """The seat wind of the player at `place` this hand."""
        return self.deal.seat_of(place).name

    def over_reason(self, now: float) -> str:
        """Why no further hand may start ('' if one may)."""
        plan = self.plan
        if self.ending:
            return self.ending
        if plan.hands and len(self.history) >= plan.hands:
            return f"all {plan.hands} hands played"
        if plan.rounds and self.deal.round > plan.rounds:
            return f"all {plan.rounds} rounds played"
        if plan.deadline_s and now >= self.started_at + plan.deadline_s - plan.margin_s:
            return "the session's time is up"
        return ""

    def finish_hand(self, winners: Sequence[int], payments: Sequence[int]) -> None:
        """Record a finished hand (winners by place, in order; payments by place) and rotate."""
        self.history.append(
            HandRecord(
                self.hand_number, self.deal.dealer, self.deal.round, tuple(winners), tuple(payments)
            )
        )
        for place, amount in enumerate(payments):
            self.scores[place] += amount
        outcome = HandOutcome(tuple(self.deal.seat_of(place) for place in winners))
        self.hand_number += 1
        if self.ruleset.rotation.dealer is DealerRule.DICE:
            self._pending = outcome
        else:
            self.deal = self.ruleset.next_deal(self.deal, outcome)

    def roll_for_dealer(self, dice: tuple[int, int]) -> int:
        """Apply the dealer roll of a dice-rotation ruleset; returns the new dealer's place."""
        assert self._pending is not None, "no dealer roll is due"
        self.dealer_rolls.append(dice)
        self.deal = self.ruleset.next_deal(self.deal, self._pending, dice)
        self._pending = None
        return self.deal.dealer
