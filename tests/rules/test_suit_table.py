"""The suit table shipped with the package: it is what the search makes, and a hand read
through it reads as a hand searched (same readings in the same order, same win check)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.rules.blocks import Block, Reading, Shape, code_places, read_codes
from controller.rules.shapes import count_tiles
from controller.rules.suit_search import TABLE_FILE, build, readings
from controller.rules.suits import (
    CODES,
    HOLDS_456,
    HOLDS_ANY,
    HOLDS_FOUR,
    HOLDS_MIDDLE,
    HOLDS_NINE,
    HOLDS_ODD,
    HOLDS_TERMINAL,
    _is_regular_read,
    _suit_table,
    is_regular,
    suit_profile,
    suit_readings,
    suit_table,
)

suit_counts = st.lists(st.integers(0, 4), min_size=9, max_size=9).filter(lambda c: sum(c) <= 14)


@pytest.mark.slow
def test_the_shipped_table_is_what_the_search_makes() -> None:
    assert TABLE_FILE.read_bytes() == build(), (
        "controller/rules/suit_readings.bin is stale: python -m controller.rules.suit_search"
    )


@settings(max_examples=400)
@given(suit_counts, st.integers(0, 2))
def test_a_suit_read_from_the_table_reads_as_searched(counts: list[int], suit: int) -> None:
    row = bytes(counts)
    searched = tuple(Reading.of(blocks) for blocks in readings(row, 9 * suit))
    assert suit_readings(_suit_table(suit, row)) == searched


def _profile_in_words(counts: list[int]) -> int:
    """Which kinds of tile a number suit holds, spelled out kind by kind."""
    bits = 0
    for number, held in enumerate(counts, start=1):
        if held:
            bits |= HOLDS_ANY
            bits |= HOLDS_TERMINAL if number in (1, 9) else HOLDS_MIDDLE
            bits |= HOLDS_456 if number in (4, 5, 6) else 0
            bits |= HOLDS_ODD if held % 2 else 0
            bits |= HOLDS_FOUR if held == 4 else 0
    return bits | (HOLDS_NINE if sum(counts) >= 9 else 0)


@settings(max_examples=400)
@given(st.lists(st.integers(0, 4), min_size=9, max_size=9))
def test_a_suits_profile_says_which_kinds_of_tile_it_holds(counts: list[int]) -> None:
    assert suit_profile(bytes(counts)) == _profile_in_words(counts)


HANDS = st.lists(st.integers(0, 33), max_size=14).map(count_tiles).filter(lambda c: max(c) <= 4)
"""Hands of up to 14 tiles, at most four of a kind, as counts (drawn as tiles: 34 counts drawn
one by one and kept when they sum to 14 or less would be thrown away nearly every time)."""


@settings(max_examples=400)
@given(HANDS)
def test_the_win_check_through_the_table_agrees_with_reading_each_suit(counts: list[int]) -> None:
    assert is_regular(counts) == _is_regular_read(bytes(counts))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 33), min_size=12, max_size=20))
def test_counts_outside_the_table_are_still_read(tiles: list[int]) -> None:
    """Five or more of a kind, or more than 14 tiles in a suit: read by search."""
    counts = count_tiles(tiles)
    assert is_regular(counts) == _is_regular_read(bytes(counts))


def _places_in_words(blocks: tuple[Block, ...], kind: int) -> list[int]:
    """The index of the first block of each shape that holds `kind`, block by block."""
    shapes_seen: set[Shape] = set()
    found = []
    for index, item in enumerate(blocks):
        if item.holds(kind) and item.shape not in shapes_seen:
            shapes_seen.add(item.shape)
            found.append(index)
    return found


@settings(max_examples=300)
@given(suit_counts, st.integers(0, 3))
def test_the_places_of_a_tile_in_a_suit_are_the_first_blocks_of_each_shape_holding_it(
    counts: list[int], suit: int
) -> None:
    row = bytes(counts[:7] if suit == 3 else counts)
    for codes in suit_table(suit, row)[CODES]:
        for kind in range(9 * suit, 9 * suit + len(row)):
            assert code_places(codes, kind) == _places_in_words(read_codes(codes).blocks, kind)
