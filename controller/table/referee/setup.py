"""What the referee starts a hand from: the ruleset, the tile set, the wall as built, the
dice, the deal state and the zones as the deal left them. The same setup rebuilds the hand
from a black box."""

from collections.abc import Mapping
from dataclasses import dataclass

from controller.rules import DealState, Ruleset
from controller.table.deal import expected_deal
from controller.table.geometry import Slot, physical_slot
from controller.table.ports import Zone
from controller.table.referee.state import Play, Settings
from controller.table.referee.wall import WallTiles
from controller.table.tiles import TileMap


@dataclass(frozen=True)
class RefereeSetup:
    """Everything the referee needs to follow one hand (all of it goes into the black box)."""

    ruleset: Ruleset
    tiles: TileMap
    placed: Mapping[Slot, int]
    dice: tuple[int, ...]
    deal: DealState
    hands: Mapping[int, frozenset[int]]
    """Each seat's HAND zone when the deal was checked."""
    melds: Mapping[int, frozenset[int]]
    """Each seat's MELD zone then (flowers set aside)."""
    settings: Settings

    def play(self) -> Play:
        """The referee's memory at the start of play."""
        dealer = self.deal.dealer
        plan = self.ruleset.wall_plan(self.dice)
        expected = expected_deal(plan, self.placed, self.tiles, dealer)
        order = [self.placed[physical_slot(p, dealer)] for p in plan.sequence]
        replacements = [self.placed[physical_slot(p, dealer)] for p in plan.replacements]
        held = {uid for uids in (*self.hands.values(), *self.melds.values()) for uid in uids}
        dealt = {
            uid for place in range(4) for uid in expected.hands[place] | expected.flowers[place]
        }
        wall = WallTiles(order, replacements, held | dealt, plan.never_drawn)
        # A dealt tile no antenna has read yet is taken to be where the deal put it.
        unseen = {p: expected.hands[p] - held for p in range(4)}
        unseen_flowers = {p: expected.flowers[p] - held for p in range(4)}
        hands = [set(self.hands.get(p, ())) | unseen[p] for p in range(4)]
        flowers = [set(self.melds.get(p, frozenset())) | unseen_flowers[p] for p in range(4)]
        heavenly = next(
            (self.placed[t.slot] for t in reversed(expected.takes) if t.place == dealer), None
        )
        play = Play(
            self.ruleset, self.tiles, self.deal, wall, hands, flowers, self.settings, heavenly
        )
        for place in range(4):
            play.observe(place, Zone.HAND, self.hands.get(place, frozenset()))
            play.observe(place, Zone.MELD, self.melds.get(place, frozenset()))
            play.observe(place, Zone.DISCARD, frozenset())
        return play
