"""The suit table shipped with the package: it is what the search makes, and a hand read
through it reads as a hand searched (same readings in the same order, same win check)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.rules.blocks import Reading
from controller.rules.shapes import count_tiles
from controller.rules.suit_search import TABLE_FILE, build, readings
from controller.rules.suits import (
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
    assert _suit_table(suit, row).readings == searched


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


@settings(max_examples=400)
@given(st.lists(st.integers(0, 4), min_size=34, max_size=34).filter(lambda c: sum(c) <= 14))
def test_the_win_check_through_the_table_agrees_with_reading_each_suit(counts: list[int]) -> None:
    assert is_regular(counts) == _is_regular_read(bytes(counts))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 33), min_size=12, max_size=20))
def test_counts_outside_the_table_are_still_read(tiles: list[int]) -> None:
    """Five or more of a kind, or more than 14 tiles in a suit: read by search."""
    counts = count_tiles(tiles)
    assert is_regular(counts) == _is_regular_read(bytes(counts))
