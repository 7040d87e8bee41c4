"""The simulated table's physical tile sets: tile names, RFID UIDs and the tile-set file."""

import random
from dataclasses import dataclass
from pathlib import Path

from firmware_bridge.messages import TileSetKind
from firmware_bridge.tileset import TileSetFile, write_tileset

SET_NAMES = ("A", "B")
SUITED = [f"{rank}{suit}" for suit in "mps" for rank in range(1, 10)]
HONOURS = [f"{rank}z" for rank in range(1, 8)]
FLOWERS = [f"{rank}f" for rank in range(1, 9)]
UID_PREFIX = 0xE004 << 48
"""ISO 15693 UIDs start with 0xE0 and the chip maker's code (0x04)."""


@dataclass(frozen=True, slots=True)
class Tile:
    """One physical tile: the UID its tag answers with, its face, and its set."""

    uid: int
    name: str
    set_name: str


def tile_names(kind: TileSetKind) -> list[str]:
    """The faces of a tile set: each kind four times, flowers once."""
    names = SUITED if kind is TileSetKind.SUITS_ONLY_108 else SUITED + HONOURS
    faces = [name for name in names for _ in range(4)]
    return faces + FLOWERS if kind is TileSetKind.WITH_FLOWERS_144 else faces


def in_kind(name: str, kind: TileSetKind) -> bool:
    """True if a tile with face `name` belongs in walls built from a set of `kind`."""
    if name.endswith("f"):
        return kind is TileSetKind.WITH_FLOWERS_144
    return not (name.endswith("z") and kind is TileSetKind.SUITS_ONLY_108)


def physical_sets(seed: int) -> dict[str, list[Tile]]:
    """The table's two full 144-tile sets, each tag with a distinct UID drawn from `seed`."""
    rng = random.Random(f"mahjong-table sim tiles {seed}")
    used: set[int] = set()
    sets: dict[str, list[Tile]] = {}
    for set_name in SET_NAMES:
        tiles = []
        for name in tile_names(TileSetKind.WITH_FLOWERS_144):
            uid = _fresh_uid(rng, used)
            tiles.append(Tile(uid, name, set_name))
        sets[set_name] = tiles
    return sets


def _fresh_uid(rng: random.Random, used: set[int]) -> int:
    while True:
        uid = UID_PREFIX | rng.getrandbits(48)
        if uid not in used:
            used.add(uid)
            return uid


def tileset_file(seed: int) -> TileSetFile:
    """The tile-set file of the simulated table with this seed (as its tags were programmed)."""
    sets = physical_sets(seed)
    mapping = {name: {tile.uid: tile.name for tile in tiles} for name, tiles in sets.items()}
    return TileSetFile(f"sim-{seed}", mapping)


def write_sim_tileset(directory: Path, seed: int) -> Path:
    """Write `sim-<seed>.toml` into `directory` (e.g. hardware/tilesets); returns its path."""
    comment = (
        f"Tile set of the simulated table, seed {seed}: two physical sets of 144 tiles.\n"
        "RFID tag UID (16 hex digits) -> tile in mpsz notation. See README.md beside this file."
    )
    return write_tileset(directory / f"sim-{seed}.toml", tileset_file(seed), comment)
