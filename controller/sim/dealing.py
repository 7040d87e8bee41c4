"""The simulated players take the deal the dice decide, as careful people do: each seat
takes its blocks from the wall in order, then flowers are set aside and replaced from the
wall's end. Returns the wall tracker that play goes on with."""

from dataclasses import replace
from itertools import groupby

from controller.rules import Ruleset, Wall, parse_tile
from controller.rules.tiles import is_flower
from controller.table.deal import Take, expected_deal
from controller.table.tiles import TileMap
from firmware_bridge.messages import Zone
from firmware_bridge.sim.table import SimulatedTable


def take_deal(
    table: SimulatedTable,
    ruleset: Ruleset,
    dice: tuple[int, ...],
    dealer: int,
    *,
    swap: bool = False,
) -> Wall:
    """Deal the raised walls of `table` by the dice to the four seats (`swap`: seats S and W
    each take one of the other's tiles, a wrong deal); returns the wall for play."""
    standing = table.wall()
    tiles = TileMap.from_names("seen", {tile.uid: tile.name for tile in standing.values()})
    plan = ruleset.wall_plan(dice)
    wall = plan.wall()
    placed = {slot: tile.uid for slot, tile in standing.items()}
    takes = list(expected_deal(plan, placed, tiles, dealer, wall).takes)
    if swap:
        takes = _swap_first(takes, 1, 2)
    # A seat takes its block of the deal (two stacks, or the last tiles) in one go.
    for place, block in groupby((t for t in takes if not t.replacement), lambda t: t.place):
        table.draw_block(place, [take.slot for take in block])
    for take in (t for t in takes if t.replacement):
        _set_aside_flowers(table, take.place)
        table.draw(take.place, *take.slot)
    for place in range(4):
        _set_aside_flowers(table, place)
    return wall


def _set_aside_flowers(table: SimulatedTable, place: int) -> None:
    hand = table.zone_tiles(place, Zone.HAND)
    flowers = [tile.uid for tile in hand if is_flower(parse_tile(tile.name))]
    if flowers:
        table.meld(place, flowers)


def _swap_first(takes: list[Take], one: int, other: int) -> list[Take]:
    first = next(i for i, t in enumerate(takes) if t.place == one)
    second = next(i for i, t in enumerate(takes) if t.place == other)
    takes = list(takes)
    takes[first] = replace(takes[first], place=other)
    takes[second] = replace(takes[second], place=one)
    return takes
