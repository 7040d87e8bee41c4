"""The wall check names every problem in the words a technician acts on."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.rules import RULESET_NAMES, get_ruleset, parse_tile
from controller.table.tiles import TileMap, tag, tile_words
from controller.table.wallcheck import check_wall
from tests.table.helpers import full_wall, tile_map, uid_with_kind

ZJ = get_ruleset("zung-jung")


@pytest.mark.parametrize("name", RULESET_NAMES)
def test_a_full_wall_passes(name: str) -> None:
    ruleset = get_ruleset(name)
    verdict = check_wall(full_wall(ruleset), ruleset.wall, ruleset.tiles, tile_map(ruleset))
    assert verdict.ok and verdict.summary() == ""


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(RULESET_NAMES), st.integers(0, 10**6))
def test_every_shuffle_of_the_set_passes(name: str, seed: int) -> None:
    ruleset = get_ruleset(name)
    assert check_wall(full_wall(ruleset, seed), ruleset.wall, ruleset.tiles, tile_map(ruleset)).ok


def test_a_missing_tile_is_named_with_the_short_side() -> None:
    tiles, wall = tile_map(ZJ), full_wall(ZJ)
    slot, _ = uid_with_kind(tiles, wall, parse_tile("5p"))
    last = max(s for s in wall if s[0] == 3)
    wall[slot] = wall.pop(last)
    assert check_wall(wall, ZJ.wall, ZJ.tiles, tiles).problems == (
        "tile set is short one 5-dot",
        "side 3 (N) has 33 tiles where 34 belong: check the stacking head",
    )


def test_a_tag_read_twice_is_named_without_guessing_the_tiles() -> None:
    tiles, wall = tile_map(ZJ), full_wall(ZJ)
    (_, uid), (second, _) = sorted(wall.items())[:2]
    wall[second] = uid
    assert check_wall(wall, ZJ.wall, ZJ.tiles, tiles).problems == (
        f"tag {tag(uid)} read twice: two tiles carry the same tag",
    )


def test_an_unknown_and_an_unreadable_tag() -> None:
    tiles, wall = tile_map(ZJ), full_wall(ZJ)
    wall[(1, 4, 1)] = 0
    wall[(2, 0, 0)] = 0xE004_FFFF_FFFF_FFFF
    assert check_wall(wall, ZJ.wall, ZJ.tiles, tiles).problems == (
        "the wall reader could not read one tag(s), first at side 1 (S) stack 5 top: "
        "check the wall reader, then that tile",
        "tag E0:04:FF:FF:FF:FF:FF:FF at side 2 (W) stack 1 bottom is not in tile set 'test': "
        "a tile from another set?",
    )


def test_a_side_one_stack_short_blames_the_push_motor() -> None:
    tiles, wall = tile_map(ZJ), full_wall(ZJ)
    for layer in (0, 1):
        wall[(3, 17, layer)] = wall.pop((3, 16, layer))
    wall[(0, 17, 0)] = wall.pop((3, 15, 0))
    wall[(0, 17, 1)] = wall.pop((3, 15, 1))
    problems = check_wall(wall, ZJ.wall, ZJ.tiles, tiles).problems
    assert "side 3 (N) has 16 stacks where 17 belong: check the push motor" in problems
    assert "side 0 (E) has 18 stacks where 17 belong: check the push motor" in problems


def test_a_tile_of_another_set_is_named() -> None:
    tiles, wall = tile_map(ZJ), full_wall(ZJ)
    slot, uid = uid_with_kind(tiles, wall, parse_tile("7z"))
    stranger = TileMap("test", {**{u: tiles.kind(u) or 0 for u in wall.values()}, uid: 34})
    problems = check_wall(wall, ZJ.wall, ZJ.tiles, stranger).problems
    assert problems == (
        "tile set is short one Red dragon",
        "the wall holds one plum flower, which this ruleset plays without: "
        "a tile from another set?",
    )
    assert slot


def test_a_long_list_of_problems_is_summed_up() -> None:
    tiles, wall = tile_map(ZJ), full_wall(ZJ)
    for index, slot in enumerate(sorted(wall)[:5]):
        wall[slot] = 0xE004_0000_FFFF_0000 + index
    verdict = check_wall(wall, ZJ.wall, ZJ.tiles, tiles)
    assert len(verdict.problems) == 5
    assert verdict.summary().endswith("(and 2 more)")


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("5p", "5-dot"),
        ("1m", "1-character"),
        ("9s", "9-bamboo"),
        ("1z", "East wind"),
        ("7z", "Red dragon"),
        ("2f", "orchid flower"),
        ("8f", "winter season"),
    ],
)
def test_tiles_in_words(text: str, words: str) -> None:
    assert tile_words(parse_tile(text)) == words
