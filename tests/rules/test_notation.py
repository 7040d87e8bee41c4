"""The mpsz notation: what a referee types and reads, and the errors that say where."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.rules import NotationError, format_tiles, parse_tile, parse_tiles, tile_str
from controller.rules.tiles import EAST, FLOWER_BASE, RED, WHITE


def test_the_architecture_example() -> None:
    tiles = parse_tiles("123m456p789s111z55z")
    assert tiles == [0, 1, 2, 12, 13, 14, 24, 25, 26, EAST, EAST, EAST, WHITE, WHITE]
    assert format_tiles(tiles) == "123m456p789s11155z"


def test_honours_and_flowers() -> None:
    assert parse_tiles("1234567z") == list(range(EAST, RED + 1))
    assert parse_tiles("18f") == [FLOWER_BASE, FLOWER_BASE + 7]
    assert tile_str(RED) == "7z"
    assert parse_tile("5p") == 13


def test_spaces_are_cosmetic() -> None:
    assert parse_tiles("123m 456p") == parse_tiles("123m456p")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("123m45x6p", "unknown suit 'x' at position 7"),
        ("123m456", "'456' at position 5 has no suit letter"),
        ("8z", "there is no tile 8z (at position 1)"),
        ("0m", "there is no tile 0m"),
        ("9f", "there is no tile 9f"),
        ("m12", "suit letter 'm' at position 1 has no digits"),
    ],
)
def test_errors_say_what_and_where(text: str, message: str) -> None:
    with pytest.raises(NotationError) as caught:
        parse_tiles(text)
    assert message in str(caught.value)
    assert isinstance(caught.value, ValueError)


def test_parse_tile_wants_exactly_one() -> None:
    with pytest.raises(NotationError, match="2 tiles"):
        parse_tile("55p")


tiles = st.lists(st.integers(min_value=0, max_value=FLOWER_BASE + 7), max_size=20)


@settings(max_examples=200)
@given(tiles)
def test_round_trip_in_order(kinds: list[int]) -> None:
    assert parse_tiles(format_tiles(kinds, sort=False)) == kinds


@settings(max_examples=200)
@given(tiles)
def test_round_trip_sorted(kinds: list[int]) -> None:
    text = format_tiles(kinds)
    assert parse_tiles(text) == sorted(kinds)
    assert format_tiles(parse_tiles(text)) == text
