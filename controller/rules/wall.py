"""Wall geometry from a ruleset's data: dice -> wall break -> dealing order -> draws.

A wall position is (side, stack, layer): `side` is the seat wind of the player whose wall
it is in this hand, `stack` counts from that player's right end (0) leftwards, `layer` 0 is
the bottom tile. Seen from above, stack 0 of a side follows the last stack of the next
side clockwise (E's wall continues into N's, as the break count does past the end).
The live wall is drawn clockwise from just left of the break; the tail (right of the
break) is the wall's end, where kong and flower replacements are taken, top tile first.
"""

from typing import NamedTuple

from controller.rules.data import Table, get
from controller.rules.errors import RulesError
from controller.rules.seats import Seat, check_dice, dice_seat
from controller.rules.values import value

DEALT = 13
"""Tiles each player holds after the deal; the dealer holds one more."""


class WallPosition(NamedTuple):
    """Where one tile stands in the wall."""

    side: Seat
    stack: int
    layer: int

    def __str__(self) -> str:
        return f"{self.side.name} wall stack {self.stack + 1} {'top' if self.layer else 'bottom'}"


class DealStep(NamedTuple):
    """One take during the deal: a seat takes these wall positions."""

    seat: Seat
    positions: tuple[WallPosition, ...]


@value
class WallLayout:
    """The shape of the wall and how a hand is broken and dealt (from `[wall]` and `[deal]`)."""

    tiles_per_side: int
    layers: int
    short_stack_left: bool
    never_drawn: int
    dice_rolls: int
    deal_blocks: tuple[str, ...]

    @classmethod
    def from_data(cls, data: Table, total_tiles: int) -> "WallLayout":
        """The layout in a ruleset's data, checked against the number of tiles in play."""
        layout = cls(
            tiles_per_side=get(data, "wall.tiles_per_side", int),
            layers=get(data, "wall.layers", int),
            short_stack_left=get(data, "wall.short_stack", str) == "left",
            never_drawn=get(data, "wall.never_drawn", int),
            dice_rolls=get(data, "wall.dice_rolls", int),
            deal_blocks=tuple(get(data, "deal.blocks", list)),
        )
        layout.check(total_tiles)
        return layout

    def check(self, total_tiles: int) -> None:
        """Raise RulesError if the layout cannot hold the tiles or deals wrong hands."""
        if self.tiles_per_side * 4 != total_tiles:
            raise RulesError(
                f"wall: 4 sides of {self.tiles_per_side} tiles do not hold {total_tiles} tiles"
            )
        if self.layers < 1 or self.dice_rolls not in (1, 2) or self.never_drawn < 0:
            raise RulesError("wall: layers >= 1, dice_rolls 1 or 2, never_drawn >= 0")
        live = total_tiles - 4 * DEALT - 1  # tiles left to draw after the deal
        if self.never_drawn >= live:
            raise RulesError(
                f"wall: never_drawn {self.never_drawn} leaves no tile to draw after the deal "
                f"(at most {live - 1})"
            )
        dealt = dict.fromkeys(Seat, 0)
        for block in self.deal_blocks:
            for letter in block.replace(" ", ""):
                dealt[Seat.parse(letter)] += 1
        expected = {seat: DEALT + (seat is Seat.E) for seat in Seat}
        if dealt != expected:
            got = ", ".join(f"{seat.name} {n}" for seat, n in dealt.items())
            raise RulesError(f"deal: blocks give {got}; the dealer takes 14 and the others 13")

    @property
    def stacks_per_side(self) -> int:
        """Stacks on each side, counting a short stack."""
        return -(-self.tiles_per_side // self.layers)

    def height(self, stack: int) -> int:
        """How many tiles stand in `stack` of a side."""
        short = self.tiles_per_side % self.layers
        if not short:
            return self.layers
        last = self.stacks_per_side - 1 if self.short_stack_left else 0
        return short if stack == last else self.layers

    def plan(self, dice: tuple[int, ...], dealer: Seat = Seat.E) -> "WallPlan":
        """The break, the deal and the draw order for these dice (two per roll, in roll order).

        Sides and seats come out as seat winds (E = the dealer). Pass the dealer's table
        place (0-3 as a Seat) as `dealer` to get them as table places instead.
        """
        check_dice(dice, 2 * self.dice_rolls)
        breaker = dice_seat(dealer, dice[0] + dice[1])
        count = sum(dice)
        stacks = self._ring(breaker)
        start = count % len(stacks)
        ordered = stacks[start:] + stacks[:start]
        sequence = tuple(
            WallPosition(side, stack, layer)
            for side, stack in ordered
            for layer in reversed(range(self.height(stack)))
        )
        replacements = tuple(
            WallPosition(side, stack, layer)
            for side, stack in reversed(ordered)
            for layer in reversed(range(self.height(stack)))
        )
        deal, used = self._deal(sequence, dealer)
        return WallPlan(dice, breaker, count, sequence, deal, used, self.never_drawn, replacements)

    def _ring(self, breaker: Seat) -> list[tuple[Seat, int]]:
        sides = (breaker, breaker.previous, breaker.opposite, breaker.next)
        return [(side, stack) for side in sides for stack in range(self.stacks_per_side)]

    def _deal(
        self, sequence: tuple[WallPosition, ...], dealer: Seat
    ) -> tuple[tuple[DealStep, ...], int]:
        steps: list[DealStep] = []
        at = 0
        for block in self.deal_blocks:
            letters = block.replace(" ", "")
            owners = [Seat((Seat.parse(letter) + dealer) % 4) for letter in letters]
            for seat in dict.fromkeys(owners):
                taken = tuple(sequence[at + i] for i, owner in enumerate(owners) if owner is seat)
                steps.append(DealStep(seat, taken))
            at += len(letters)
        return tuple(steps), at


@value
class WallPlan:
    """Everything the dice decide for one hand."""

    dice: tuple[int, ...]
    breaker: Seat
    break_count: int
    sequence: tuple[WallPosition, ...]
    """Every wall position in drawing order from the live end to the tail end."""
    deal: tuple[DealStep, ...]
    first_live: int
    """Index in `sequence` of the first draw after the deal."""
    never_drawn: int
    replacements: tuple[WallPosition, ...]
    """The order replacement tiles (kong, flower) are taken from the tail end."""

    @property
    def first_draw(self) -> WallPosition:
        """The first live draw after the deal (the dealer's next player draws it)."""
        return self.sequence[self.first_live]

    @property
    def dealt(self) -> dict[Seat, tuple[WallPosition, ...]]:
        """The wall positions each seat holds after the deal."""
        hands: dict[Seat, tuple[WallPosition, ...]] = dict.fromkeys(Seat, ())
        for step in self.deal:
            hands[step.seat] += step.positions
        return hands

    def wall(self) -> "Wall":
        """A tracker of draws for this hand, starting right after the deal."""
        return Wall(self)


class Wall:
    """Which tile comes next: live draws from the head, replacements from the tail end."""

    def __init__(self, plan: WallPlan) -> None:
        self._plan = plan
        self._index = {position: i for i, position in enumerate(plan.sequence)}
        self._untaken = list(range(plan.first_live, len(plan.sequence)))
        self._left = set(self._untaken)

    @property
    def remaining(self) -> int:
        """Tiles that may still be drawn (live draws and replacements together)."""
        return max(0, len(self._untaken) - self._plan.never_drawn)

    @property
    def last_drawable(self) -> WallPosition | None:
        """The last tile that may be drawn (the sea-bottom tile), None if none is left."""
        if not self.remaining:
            return None
        return self._plan.sequence[self._untaken[self.remaining - 1]]

    def draw(self) -> WallPosition:
        """Take the next live tile."""
        self._need_tile()
        return self._take(self._untaken[0])

    def draw_replacement(self) -> WallPosition:
        """Take the next replacement tile from the tail end (after a kong or a flower)."""
        self._need_tile()
        for position in self._plan.replacements:
            index = self._index[position]
            if index in self._left:
                return self._take(index)
        raise AssertionError("a wall with tiles left has a replacement tile")

    def _need_tile(self) -> None:
        if not self.remaining:
            raise RulesError("the wall is exhausted: no tile may be drawn")

    def _take(self, index: int) -> WallPosition:
        self._untaken.remove(index)
        self._left.discard(index)
        return self._plan.sequence[index]
