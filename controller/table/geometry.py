"""Where the rules' wall positions stand on this table.

The rules engine names a wall position by the seat wind whose wall it is in this hand; the
table MCU by the physical side 0-3 (the wall in front of seat E, S, W, N). Stacks count from
the right-hand end as seen from the seat and layer 0 is the bottom in both, and both run
clockwise from a side into the side before it, so only the side turns with the dealer.
"""

from controller.rules import Seat, WallPosition
from controller.rules.wall import WallLayout

Slot = tuple[int, int, int]
"""A physical wall place: (side 0-3, stack, layer)."""


def physical_slot(position: WallPosition, dealer_place: int) -> Slot:
    """The physical place of a rules position when the dealer sits at `dealer_place`."""
    return ((int(position.side) + dealer_place) % 4, position.stack, position.layer)


def rules_position(slot: Slot, dealer_place: int) -> WallPosition:
    """The rules position of a physical place (the inverse of `physical_slot`)."""
    side, stack, layer = slot
    return WallPosition(Seat((side - dealer_place) % 4), stack, layer)


def side_slots(layout: WallLayout) -> list[tuple[int, int]]:
    """(stack, layer) of each tile of one side as the stacking head builds it.

    The head fills stack after stack, bottom first; an odd count leaves the last stack
    (the left-hand end) with its bottom tile only.
    """
    slots = [(s, layer) for s in range(layout.stacks_per_side) for layer in range(layout.layers)]
    return slots[: layout.tiles_per_side]


def layout_problem(layout: WallLayout) -> str:
    """Why this table cannot build the ruleset's walls ('' if it can)."""
    built: dict[int, int] = {}
    for stack, _ in side_slots(layout):
        built[stack] = built.get(stack, 0) + 1
    wanted = {stack: layout.height(stack) for stack in range(layout.stacks_per_side)}
    if built != wanted:
        return (
            "the ruleset wants the short stack at the right-hand end of each wall; "
            "this table builds it at the left-hand end"
        )
    return ""
