"""Tiles as the sensors see them: kinds, copies, sensor numbers."""

import pytest

from controller.rules import PhysicalTile, RulesError
from controller.rules.tiles import (
    FLOWER_BASE,
    PHYSICAL_TILES,
    is_orphan,
    is_simple,
    name,
    number,
    suit,
)


def test_every_sensor_number_maps_to_one_physical_tile_and_back() -> None:
    seen = set()
    for tile_id in range(PHYSICAL_TILES):
        tile = PhysicalTile.from_id(tile_id)
        assert tile.id == tile_id
        seen.add(tile)
    assert len(seen) == 144


def test_flowers_exist_once() -> None:
    assert PhysicalTile.from_id(136) == PhysicalTile(FLOWER_BASE, 0)
    assert PhysicalTile(FLOWER_BASE + 7, 0).id == 143


def test_a_bad_sensor_number_is_an_error() -> None:
    with pytest.raises(RulesError, match="0-143"):
        PhysicalTile.from_id(144)


def test_tile_classes() -> None:
    assert [suit(0), suit(9), suit(18), suit(27), suit(FLOWER_BASE)] == [0, 1, 2, 3, 4]
    assert number(26) == 9 and number(33) == 7
    assert is_orphan(8) and is_orphan(30) and not is_orphan(4)
    assert is_simple(4) and not is_simple(9) and not is_simple(27)
    assert name(13) == "5 dots" and name(33) == "Red" and name(FLOWER_BASE) == "plum"
