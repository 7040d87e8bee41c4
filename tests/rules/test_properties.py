"""Invariants of scoring: any reading order gives the same score; payments always sum to zero."""

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from controller.rules import RULESET_NAMES, Seat, Win, WinType, get_ruleset
from tests.rules.strategies import sets_and_pair

WIN_TYPES = [WinType.DISCARD, WinType.SELF_DRAW, WinType.LAST_TILE, WinType.LAST_DISCARD]


@settings(max_examples=80, deadline=None)
@given(sets_and_pair, st.randoms(use_true_random=False), st.sampled_from(list(Seat)))
def test_scoring_does_not_depend_on_tile_order(tiles: list[int], rng: object, seat: Seat) -> None:
    ruleset = get_ruleset("zung-jung")
    win_tile = tiles[-1]
    shuffled = list(tiles)
    rng.shuffle(shuffled)  # type: ignore[attr-defined]
    first = ruleset.score(Win(tuple(tiles), win_tile=win_tile, seat=seat))
    second = ruleset.score(Win(tuple(shuffled), win_tile=win_tile, seat=seat))
    assert first.valid and second.valid
    assert (first.patterns, first.total, first.payments) == (
        second.patterns,
        second.total,
        second.payments,
    )


@settings(max_examples=80, deadline=None)
@given(
    sets_and_pair,
    st.sampled_from(WIN_TYPES),
    st.sampled_from(list(Seat)),
    st.sampled_from(list(Seat)),
    st.sampled_from(RULESET_NAMES),
)
def test_payments_sum_to_zero(
    tiles: list[int], how: WinType, seat: Seat, discarder: Seat, name: str
) -> None:
    ruleset = get_ruleset(name)
    assume(all(tile in ruleset.tiles.kinds for tile in tiles))  # e.g. no honours in Sichuan
    who = None if discarder is seat or ruleset.is_self_drawn(how) else discarder
    score = ruleset.score(Win(tuple(tiles), win_type=how, seat=seat, discarder=who))
    assert sum(score.payments.values()) == 0
    if score.valid:
        assert score.payments[seat] > 0
        assert score.total > 0


@settings(max_examples=60, deadline=None)
@given(sets_and_pair)
def test_a_win_is_among_the_waits_of_the_hand_without_it(tiles: list[int]) -> None:
    ruleset = get_ruleset("zung-jung")
    assert tiles[-1] in ruleset.waits(tiles[:-1])
