"""The physical table the simulator models: two tile sets, hopper, walls, lifts, zones, dice.

Players (simulated or test code) move tiles with `draw`, `discard`, `meld`, `move`; each change
of a zone is announced to the listeners (the software MCU, which reads the zone antennas).
"""

import random
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from firmware_bridge.messages import SEATS, SIDES, TileSetKind, Zone
from firmware_bridge.sim.faults import Faults
from firmware_bridge.sim.tiles import Tile, in_kind, physical_sets

Slot = tuple[int, int, int]
"""(side, stack, layer) of a wall position."""
ZoneKey = tuple[int, Zone]


class TableStateError(ValueError):
    """A move that the physical table does not allow (no tile there, wrong zone, ...)."""


@dataclass(frozen=True)
class WallLayout:
    """How many tiles stand on each side and in how many layers.

    Stacks are numbered from the right-hand end as seen from the seat facing the side;
    a side with an odd count ends with a single tile (bottom layer) in its last stack.
    """

    tiles_per_side: int
    layers: int

    @property
    def stacks(self) -> int:
        """Stacks per side (a partial last stack counts)."""
        return -(-self.tiles_per_side // self.layers)

    def side_slots(self) -> list[tuple[int, int]]:
        """(stack, layer) of each tile of a side, in the order the stacking head places them."""
        slots = [(s, layer) for s in range(self.stacks) for layer in range(self.layers)]
        return slots[: self.tiles_per_side]


def layout_for(kind: TileSetKind, layers: int = 2) -> WallLayout:
    """The standard layout of a tile set (18x2, 17x2 or 13.5x2 stacks per side)."""
    return WallLayout(len_of(kind) // SIDES, layers)


def len_of(kind: TileSetKind) -> int:
    """Number of tiles in a set of this kind."""
    return {TileSetKind.WITH_FLOWERS_144: 144, TileSetKind.NO_FLOWERS_136: 136}.get(kind, 108)


class TableModel:
    """Where every tile of the table is, and the state of lifts, lid and emergency stop."""

    def __init__(self, seed: int, faults: Faults | None = None) -> None:
        self.seed = seed
        self.faults = faults or Faults()
        self.sets = _apply_tag_faults(physical_sets(seed), self.faults, seed)
        self.hopper: deque[str] = deque(self.sets)
        self.below: dict[Slot, Tile] = {}
        self.below_set: str | None = None
        self.below_layout: WallLayout | None = None
        self.wall: dict[Slot, Tile] = {}
        self.wall_layout: WallLayout | None = None
        self.surface_set: str | None = None
        self.zones: dict[ZoneKey, list[Tile]] = {(s, z): [] for s in range(SEATS) for z in Zone}
        self.taken_out: set[int] = set()
        """UIDs of tiles taken out of a set in the machine (builds leave them out) until they
        go down with the platform again."""
        self.lifts_up = False
        self.lid_open = False
        self.estop = False
        self.builds = 0
        self.listeners: list[Callable[[int, Zone], None]] = []

    # ---- machine side (driven by the MCU's motions) ----------------------------------------

    def plan_build(self, kind: TileSetKind, layout: WallLayout) -> list[tuple[Slot, Tile]]:
        """Sweep any walls below back, take the next set from the hopper, shuffle, plan slots."""
        if self.below_set is not None:
            self.hopper.appendleft(self.below_set)
            self.below.clear()
            self.below_set = None
        if not self.hopper:
            raise TableStateError("the hopper is empty")
        set_name = self.hopper.popleft()
        tiles = [
            tile
            for tile in self.sets[set_name]
            if in_kind(tile.name, kind) and tile.uid not in self.taken_out
        ]
        random.Random(f"{self.seed}:build:{self.builds}").shuffle(tiles)
        self.builds += 1
        self.below_set, self.below_layout = set_name, layout
        slots = [(side, *slot) for side in range(SIDES) for slot in layout.side_slots()]
        return list(zip(slots, tiles, strict=False))

    def place_below(self, slot: Slot, tile: Tile) -> None:
        """The stacking head put a tile in a wall under the table."""
        self.below[slot] = tile

    def raise_walls(self) -> None:
        """The lifts bring the walls below up to the (empty) playing surface."""
        if self.surface_set is not None:
            raise TableStateError("the playing surface still holds tiles")
        self.wall = dict(self.below)
        self.wall_layout = self.below_layout
        self.surface_set = self.below_set
        self.below.clear()
        self.below_set = None
        self.lifts_up = True

    def lower_platform(self) -> list[ZoneKey]:
        """Every tile on the surface drops into the hopper; returns the zones that emptied."""
        emptied = [key for key, tiles in self.zones.items() if tiles]
        for key in emptied:
            self.taken_out.difference_update(tile.uid for tile in self.zones[key])
            self.zones[key] = []
        if self.surface_set is not None:
            self.hopper.append(self.surface_set)
        self.surface_set = None
        self.wall.clear()
        self.lifts_up = False
        for seat, zone in emptied:
            self._changed(seat, zone)
        return emptied

    # ---- player side -----------------------------------------------------------------------

    def take_out(self, faces: list[str]) -> list[Tile]:
        """Take one tile of each face out of the set the next build leaves in the machine (the
        wind tiles of a seating draw); they are in nobody's zone until placed, and the machine
        builds without them until they go down with the platform."""
        if not self.hopper:
            raise TableStateError("no tile set rests in the machine")
        taken: list[Tile] = []
        for face in faces:
            tile = next(
                (
                    t
                    for t in self.sets[self.hopper[-1]]
                    if t.name == face and t.uid not in self.taken_out
                ),
                None,
            )
            if tile is None:
                raise TableStateError(f"no {face} left in set {self.hopper[-1]}")
            self.taken_out.add(tile.uid)
            taken.append(tile)
        return taken

    def take_from_wall(self, side: int, stack: int, layer: int) -> Tile:
        """Lift one tile off the raised wall."""
        tile = self.wall.pop((side, stack, layer), None)
        if tile is None:
            raise TableStateError(f"no tile in the wall at side {side} stack {stack} layer {layer}")
        return tile

    def place(self, tile: Tile, seat: int, zone: Zone) -> None:
        """Put a tile (held in a player's hand) into a zone."""
        self.zones[(seat, zone)].append(tile)
        self._changed(seat, zone)

    def draw(self, seat: int, side: int, stack: int, layer: int) -> Tile:
        """A player takes a wall tile into their HAND zone."""
        return self.draw_block(seat, [(side, stack, layer)])[0]

    def draw_block(self, seat: int, slots: Sequence[Slot]) -> list[Tile]:
        """A player takes wall tiles together (a block of the deal) into their HAND zone: the
        zone is read once they lie there."""
        tiles = [self.take_from_wall(*slot) for slot in slots]
        self.zones[(seat, Zone.HAND)].extend(tiles)
        self._changed(seat, Zone.HAND)
        return tiles

    def move(self, uid: int, seat: int, zone: Zone) -> Tile:
        """Move the tile answering `uid` from whichever zone holds it to `seat`'s `zone`."""
        tile, source = self._take(uid)
        self._changed(*source)
        self.place(tile, seat, zone)
        return tile

    def _take(self, uid: int) -> tuple[Tile, ZoneKey]:
        for key, tiles in self.zones.items():
            for tile in tiles:
                if tile.uid == uid:
                    tiles.remove(tile)
                    return tile, key
        raise TableStateError(f"no tile with UID {uid:016X} in any zone")

    def discard(self, seat: int, uid: int) -> Tile:
        """A player puts a tile from their hand into their river."""
        return self.move(uid, seat, Zone.DISCARD)

    def meld(self, seat: int, uids: list[int]) -> list[Tile]:
        """A player exposes tiles (from their hand, or claimed from a river) as a meld: the
        zones they left and the meld zone are read once the set lies there."""
        moved: list[Tile] = []
        changed: dict[ZoneKey, None] = {}
        for uid in uids:
            tile, source = self._take(uid)
            moved.append(tile)
            changed[source] = None
            self.zones[(seat, Zone.MELD)].append(tile)
        changed[(seat, Zone.MELD)] = None
        for key in changed:
            self._changed(*key)
        return moved

    def zone_tiles(self, seat: int, zone: Zone) -> list[Tile]:
        """The tiles lying in one zone."""
        return list(self.zones[(seat, zone)])

    def clear_zone(self, seat: int, zone: Zone) -> list[Tile]:
        """Someone takes every tile off a zone; returns them."""
        tiles, self.zones[(seat, zone)] = self.zones[(seat, zone)], []
        self._changed(seat, zone)
        return tiles

    def tiles_in_wall(self) -> Iterator[tuple[Slot, Tile]]:
        """Every tile still in the raised walls, by slot."""
        return iter(sorted(self.wall.items()))

    def _changed(self, seat: int, zone: Zone) -> None:
        for listener in self.listeners:
            listener(seat, zone)


def _apply_tag_faults(
    sets: dict[str, list[Tile]], faults: Faults, seed: int
) -> dict[str, list[Tile]]:
    rng = random.Random(f"{seed}:tag faults")
    for name, tiles in sets.items():
        for face in faults.missing_tiles:
            victim = next((t for t in tiles if t.name == face), None)
            if victim is not None:
                tiles.remove(victim)
        for _ in range(faults.duplicate_uids):
            source, target = rng.sample(range(len(tiles)), 2)
            tiles[target] = Tile(tiles[source].uid, tiles[target].name, name)
    return sets
