"""Win shapes: decompositions, irregular hands, waits, all checked against brute force."""

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from controller.rules import Form, Shape, arrangements, is_win, parse_tiles, waits
from controller.rules.shapes import count_tiles, is_seven_pairs, is_thirteen_orphans
from tests.rules.strategies import sets_and_pair

KINDS = range(34)


@settings(max_examples=150)
@given(sets_and_pair)
def test_any_sets_and_pair_is_a_win_and_each_reading_rebuilds_it(tiles: list[int]) -> None:
    counts = count_tiles(tiles)
    assert is_win(counts)
    readings = arrangements(counts, (), tiles[-1], True, frozenset({Form.REGULAR}))
    assert readings
    for reading in readings:
        rebuilt = sorted(tile for block in reading.blocks for tile in block.tiles())
        assert rebuilt == sorted(tiles)
        assert sum(block.shape is Shape.PAIR for block in reading.blocks) == 1
        assert reading.blocks[reading.win_block].holds(tiles[-1])


def brute_force_regular(counts: list[int], pair_used: bool = False) -> bool:
    """Try every set at the lowest tile: slow and obviously right."""
    low = next((i for i, n in enumerate(counts) if n), -1)
    if low < 0:
        return pair_used
    options: list[tuple[int, ...]] = []
    if counts[low] >= 3:
        options.append((low, low, low))
    if low < 27 and low % 9 <= 6 and counts[low + 1] and counts[low + 2]:
        options.append((low, low + 1, low + 2))
    if not pair_used and counts[low] >= 2:
        options.append((low, low))
    for used in options:
        for i in used:
            counts[i] -= 1
        ok = brute_force_regular(counts, pair_used or len(used) == 2)
        for i in used:
            counts[i] += 1
        if ok:
            return True
    return False


def brute_force_win(counts: list[int]) -> bool:
    return brute_force_regular(counts) or is_seven_pairs(counts) or is_thirteen_orphans(counts)


hands13 = st.lists(st.integers(0, 33), min_size=13, max_size=13).filter(
    lambda tiles: max(Counter(tiles).values()) <= 4
)
one_suit13 = st.lists(st.integers(0, 8), min_size=13, max_size=13).filter(
    lambda tiles: max(Counter(tiles).values()) <= 4
)


@settings(max_examples=100)
@given(st.one_of(hands13, one_suit13))
def test_waits_agree_with_trying_all_34_tiles(tiles: list[int]) -> None:
    counts = count_tiles(tiles)
    expected = []
    for kind in KINDS:
        if counts[kind] == 4:
            continue
        counts[kind] += 1
        if brute_force_win(counts):
            expected.append(kind)
        counts[kind] -= 1
    assert waits(tiles) == expected


def test_nine_gates_waits_on_all_nine() -> None:
    assert waits(parse_tiles("1112345678999m")) == list(range(9))


def test_thirteen_orphans_thirteen_sided_wait() -> None:
    assert len(waits(parse_tiles("19m19p19s1234567z"))) == 13


def test_a_tile_held_four_times_is_not_a_wait() -> None:
    assert waits(parse_tiles("1111m234p567p789s")) == []
    assert waits(parse_tiles("1m234p567p789s")) == [0]
    assert waits(parse_tiles("1m234p567p789s"), held=[0, 0, 0]) == []


def test_seven_pairs_and_thirteen_orphans_shapes() -> None:
    assert is_seven_pairs(count_tiles(parse_tiles("1122m3344p5566s77z")))
    assert is_seven_pairs(count_tiles(parse_tiles("1111m3344p5566s77z")))
    assert not is_seven_pairs(count_tiles(parse_tiles("1111m3344p5566s77z")), allow_four=False)
    assert is_thirteen_orphans(count_tiles(parse_tiles("19m19p19s12345677z")))
    assert not is_thirteen_orphans(count_tiles(parse_tiles("19m19p29s12345677z")))


def test_every_reading_of_an_ambiguous_hand_is_listed() -> None:
    counts = count_tiles(parse_tiles("111222333m789p11z"))
    readings = arrangements(counts, (), 27, True, frozenset({Form.REGULAR}))
    shapes = {tuple(sorted(b.shape for b in r.blocks if b.tile < 9)) for r in readings}
    assert shapes == {(Shape.SEQUENCE,) * 3, (Shape.TRIPLET,) * 3}


def test_worst_case_hand_has_a_bounded_number_of_readings() -> None:
    counts = count_tiles(parse_tiles("11122233344455m"))
    readings = arrangements(counts, (), 4, True)
    assert 1 < len(readings) <= 20
