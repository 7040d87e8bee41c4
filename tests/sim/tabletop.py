"""The simulated players on the simulated table with no daemon: the walls are built and
raised by the table model's own machine steps, the dice come from a seed, and a stand-in
umpire accepts the declarations and ends the hand as the ruleset says. After every move
the umpire checks the zones: each move must show on the table exactly as docs/play.md
describes it, and every seat must hold a full hand."""

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from controller.rules import Ruleset, WallPosition, get_ruleset, parse_tile
from controller.rules.tiles import is_flower
from controller.sim.dealing import take_deal
from controller.sim.hand_play import HandPlay, PlayStyle
from controller.sim.mistakes import Sloppiness
from controller.sim.moves import Move, MoveKind, SlipKind
from controller.table.geometry import physical_slot
from firmware_bridge.messages import TileSetKind, Zone
from firmware_bridge.sim.model import WallLayout
from firmware_bridge.sim.table import SimulatedTable
from firmware_bridge.sim.tiles import Tile

FULL = PlayStyle(claims=True, kongs=True, rob_kongs=True, shared_wins=True, win_types=True)
_KINDS = {
    144: TileSetKind.WITH_FLOWERS_144,
    136: TileSetKind.NO_FLOWERS_136,
    108: TileSetKind.SUITS_ONLY_108,
}


def raised_table(ruleset: Ruleset, seed: int) -> SimulatedTable:
    """A simulated table whose walls the machine built and raised (no MCU running)."""
    table = SimulatedTable(seed, speed=0)
    layout = WallLayout(ruleset.wall.tiles_per_side, ruleset.wall.layers)
    for slot, tile in table.model.plan_build(_KINDS[ruleset.tiles.total], layout):
        table.model.place_below(slot, tile)
    table.model.raise_walls()
    return table


def where(table: SimulatedTable, uid: int) -> tuple[int, Zone] | None:
    """The seat and zone a tag lies in (None: still in the wall)."""
    for place in range(4):
        for zone in Zone:
            if any(tile.uid == uid for tile in table.zone_tiles(place, zone)):
                return place, zone
    return None


@dataclass
class StandIn:
    """An umpire that believes every declaration (the players only declare real wins)."""

    ruleset: Ruleset
    table: SimulatedTable
    play: HandPlay | None = None
    winners: list[int] = field(default_factory=list)
    over: bool = False
    checked: int = 0
    problems: list[str] = field(default_factory=list)
    refused: list[int] = field(default_factory=list)
    """Places whose declaration was refused (false wins)."""
    stalled: list[float] = field(default_factory=list)

    async def declare(self, places: Sequence[int]) -> list[int]:
        self.check()
        assert self.play is not None
        false = {
            slip.place
            for slip in self.play.slips
            if slip.kind is SlipKind.FALSE_WIN and slip.move_index == len(self.play.moves) - 1
        }
        self.refused += [p for p in places if p in false]
        places = [p for p in places if p not in false]
        self.winners += places
        if places and (
            self.ruleset.hand_over(len(self.winners), wall_left=1) or not self._someone_left()
        ):
            self.over = True
        return list(places)

    def playing(self) -> bool:
        return not self.over

    async def wall_empty(self) -> None:
        self.over = True

    async def pace(self, followed: bool = True) -> None:
        self.check()

    async def stall(self, seconds: float) -> None:
        self.stalled.append(seconds)

    def _someone_left(self) -> bool:
        return len(set(self.winners)) < 3

    def check(self) -> None:
        """Every move since the last check shows on the table; every hand is full."""
        assert self.play is not None
        for move in self.play.moves[self.checked :]:
            problem = move_problem(self.table, move)
            if problem:
                self.problems.append(f"{move}: {problem}")
        self.checked = len(self.play.moves)
        for place in range(4):
            held = [t for t in self.table.zone_tiles(place, Zone.HAND) if not _flower(t)]
            in_sets = {uid for _, uids in self.play.melds[place] for uid in uids}
            # a set laid out and refused lies in the MELD zone until its tiles are put back
            held += [
                t
                for t in self.table.zone_tiles(place, Zone.MELD)
                if not _flower(t) and t.uid not in in_sets
            ]
            sets = len(self.play.melds[place])
            if place in self.winners or move_in_progress(self.play.moves, place):
                continue
            if len(held) + 3 * sets - self.play.off[place] not in (13, 14):
                self.problems.append(
                    f"seat {place} holds {len(held)} tiles and {sets} sets after "
                    f"{self.play.moves[-1] if self.play.moves else 'the deal'}"
                )


def move_in_progress(moves: list[Move], place: int) -> bool:
    """A robbed or won-on tile is in flight for this seat (its hand is one over)."""
    return bool(moves) and moves[-1].place == place and moves[-1].kind is MoveKind.DECLARE


def _flower(tile: Tile) -> bool:
    return is_flower(parse_tile(tile.name))


def move_problem(table: SimulatedTable, move: Move) -> str:
    """What on the table contradicts the move ('' if the zones show it)."""
    at = [where(table, uid) for uid in move.uids]
    own = move.place
    kind = move.kind
    if kind in (MoveKind.DRAW, MoveKind.REPLACEMENT):
        ok = at[0] in ((own, Zone.HAND), (own, Zone.MELD))
        return "" if ok else f"the drawn tile lies in {at[0]}"
    if kind is MoveKind.FLOWER:
        return "" if at[0] == (own, Zone.MELD) else f"the flower lies in {at[0]}"
    if kind is MoveKind.DISCARD:
        river = table.zone_tiles(own, Zone.DISCARD)
        ok = bool(river) and river[-1].uid == move.uids[0]
        return "" if ok else "the discard is not the newest tile of the river"
    if kind in (MoveKind.CHOW, MoveKind.PUNG, MoveKind.EXPOSED_KONG):
        if any(a != (own, Zone.MELD) for a in at):
            return f"the set's tiles lie in {at}"
        if kind is MoveKind.CHOW and move.source != (own - 1) % 4:
            return "a chow from a seat that is not the previous one"
        return ""
    if kind in (MoveKind.CONCEALED_KONG, MoveKind.ADDED_KONG):
        melded = [t for t in table.zone_tiles(own, Zone.MELD) if t.name == _name(table, move)]
        ok = all(a == (own, Zone.MELD) for a in at) and len(melded) == 4
        return "" if ok else f"the kong shows {len(melded)} tiles in the MELD zone"
    if kind in (MoveKind.ROB_KONG, MoveKind.TAKE_DISCARD):
        return "" if at[0] == (own, Zone.HAND) else f"the won tile lies in {at[0]}"
    return ""


def _name(table: SimulatedTable, move: Move) -> str:
    tile = next(t for t in table.model.zones[(move.place, Zone.MELD)] if t.uid == move.uids[0])
    return tile.name


@dataclass
class Played:
    """One hand played on the table top."""

    play: HandPlay
    umpire: StandIn
    table: SimulatedTable


async def play_hand(
    ruleset_name: str,
    seed: int,
    style: PlayStyle = FULL,
    *,
    arrange: Callable[[SimulatedTable, Ruleset, tuple[int, ...], int], None] | None = None,
    sloppy: Sloppiness | None = None,
) -> Played:
    """Deal and play one hand from `seed` (dice and dealer from it too); `arrange` may
    stack the raised walls first (a scripted wall)."""
    ruleset = get_ruleset(ruleset_name)
    rng = random.Random(f"tabletop {seed}")
    dice = tuple(rng.randint(1, 6) for _ in range(2 * ruleset.wall.dice_rolls))
    dealer = rng.randrange(4)
    table = raised_table(ruleset, seed)
    if arrange is not None:
        arrange(table, ruleset, dice, dealer)
    wall = take_deal(table, ruleset, dice, dealer)
    umpire = StandIn(ruleset, table)
    play = HandPlay(table, umpire, ruleset, dealer, wall, style=style, hand=seed, sloppy=sloppy)
    umpire.play = play
    await play.play()
    return Played(play, umpire, table)


class StackedWall:
    """A scripted wall: tiles of chosen faces put at chosen wall positions before the deal
    (the shuffle stacked in advance), each swapped with a tile of that face elsewhere."""

    def __init__(self, table: SimulatedTable, dealer: int) -> None:
        self.table = table
        self.dealer = dealer
        self.fixed: set[tuple[int, int, int]] = set()

    def put(self, position: WallPosition, name: str) -> None:
        """Stand a tile of face `name` at `position`."""
        wall = self.table.model.wall
        slot = physical_slot(position, self.dealer)
        other = next(s for s, t in sorted(wall.items()) if t.name == name and s not in self.fixed)
        wall[slot], wall[other] = wall[other], wall[slot]
        self.fixed.add(slot)

    def put_all(self, positions: Sequence[WallPosition], names: Sequence[str]) -> None:
        """Stand these faces at these positions, in order."""
        for position, name in zip(positions, names, strict=True):
            self.put(position, name)
