"""Tile-set files: which tile (mpsz name) each RFID tag UID is glued to, per physical set.

Format (TOML, documented in hardware/tilesets/README.md)::

    format = 1
    name = "sim-7"
    [sets.A]
    E0040123456789AB = "5p"
"""

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from firmware_bridge.errors import BridgeError

TILE_NAME = re.compile(r"^([1-9][mps]|[1-7]z|[1-8]f)$")
UID_KEY = re.compile(r"^[0-9A-F]{16}$")
FORMAT = 1


class TileSetFileError(BridgeError, ValueError):
    """A tile-set file that cannot be read or does not follow the format."""


@dataclass(frozen=True)
class TileSetFile:
    """The content of a tile-set file: its name and, per physical set, UID -> tile name."""

    name: str
    sets: Mapping[str, Mapping[int, str]]

    def tile_of(self) -> dict[int, str]:
        """UID -> tile over every set (UIDs are unique across sets)."""
        return {uid: tile for tiles in self.sets.values() for uid, tile in tiles.items()}


def format_uid(uid: int) -> str:
    """The 16-hex-digit form of a tag UID used in files and logs."""
    return f"{uid:016X}"


def render_tileset(tileset: TileSetFile, comment: str = "") -> str:
    """The TOML text of a tile-set file."""
    lines = [f"# {line}" for line in comment.splitlines()]
    lines += [f"format = {FORMAT}", f'name = "{tileset.name}"']
    for set_name, tiles in tileset.sets.items():
        lines.append(f"\n[sets.{set_name}]")
        lines += [f'{format_uid(uid)} = "{tile}"' for uid, tile in tiles.items()]
    return "\n".join(lines) + "\n"


def write_tileset(path: Path, tileset: TileSetFile, comment: str = "") -> Path:
    """Write a tile-set file (parent directories included); returns the path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_tileset(tileset, comment))
    return path


def read_tileset(path: Path) -> TileSetFile:
    """Read and check a tile-set file; TileSetFileError names what is wrong."""
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise TileSetFileError(f"{path}: {error}") from None
    if data.get("format") != FORMAT or not isinstance(data.get("name"), str):
        raise TileSetFileError(f"{path}: needs format = {FORMAT} and a name")
    sets = data.get("sets")
    if not isinstance(sets, dict) or not sets:
        raise TileSetFileError(f"{path}: no [sets.NAME] table")
    parsed = {name: _parse_set(path, name, tiles) for name, tiles in sets.items()}
    return TileSetFile(data["name"], parsed)


def _parse_set(path: Path, name: str, tiles: object) -> dict[int, str]:
    if not isinstance(tiles, dict):
        raise TileSetFileError(f"{path}: sets.{name} must be a table of UID = tile")
    parsed: dict[int, str] = {}
    for key, tile in tiles.items():
        if not UID_KEY.match(key):
            raise TileSetFileError(f"{path}: sets.{name}: {key!r} is not a 16-hex-digit UID")
        if not isinstance(tile, str) or not TILE_NAME.match(tile):
            raise TileSetFileError(f"{path}: sets.{name}.{key}: {tile!r} is not a tile name")
        parsed[int(key, 16)] = tile
    return parsed
