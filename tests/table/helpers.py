"""Walls and tile maps for the table's pure tests: synthetic tags, one per physical tile."""

import random

from controller.rules import Ruleset
from controller.table.geometry import Slot, side_slots
from controller.table.tiles import TileMap

UID_BASE = 0xE004_0000_0000_0000


def uid_of(tile_id: int) -> int:
    """The synthetic tag of physical tile `tile_id` (0-143)."""
    return UID_BASE + tile_id + 1


def tile_map(ruleset: Ruleset) -> TileMap:
    """Tags for every physical tile of the ruleset's set."""
    return TileMap("test", {uid_of(t.id): t.kind for t in ruleset.tiles.physical()})


def full_wall(ruleset: Ruleset, seed: int = 0) -> dict[Slot, int]:
    """A correctly built wall: every tile of the set once, in a shuffled order."""
    uids = [uid_of(t.id) for t in ruleset.tiles.physical()]
    random.Random(seed).shuffle(uids)
    slots = [(side, *slot) for side in range(4) for slot in side_slots(ruleset.wall)]
    return dict(zip(slots, uids, strict=True))


def uid_with_kind(tiles: TileMap, wall: dict[Slot, int], kind: int) -> tuple[Slot, int]:
    """The first wall place holding a tile of `kind`."""
    return next((slot, uid) for slot, uid in sorted(wall.items()) if tiles.kind(uid) == kind)
