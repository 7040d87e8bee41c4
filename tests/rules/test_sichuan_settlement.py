"""Sichuan payments: wins one-to-one, several winners on one discard, kongs paid at once,
杠上炮 passing kong income, and the draw settlement (flower pigs, not ready, kongs returned)."""

from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from controller.rules import (
    KongKind,
    Meld,
    RulesError,
    Seat,
    SeatAtDraw,
    Win,
    WinType,
    get_ruleset,
    parse_tiles,
)
from controller.rules.sichuan import Sichuan
from tests.rules.helpers import win

E, S, W, N = Seat


def sichuan() -> Sichuan:
    """The shipped Sichuan ruleset, typed as such."""
    ruleset = get_ruleset("sichuan")
    assert isinstance(ruleset, Sichuan)
    return ruleset


SC = sichuan()


def seat(
    hand: str, *melds: str, won: bool = False, income: dict[Seat, int] | None = None
) -> SeatAtDraw:
    """A player's state at the draw, from notation."""
    paid = income or {}
    return SeatAtDraw(
        tuple(parse_tiles(hand)),
        tuple(Meld.parse(text) for text in melds),
        won=won,
        kong_income=sum(paid.values()),
        kong_paid_by=paid,
    )


# --- wins


def test_a_discard_win_is_paid_by_the_discarder_alone() -> None:
    score = SC.score(win("111m444m777m222p55p", seat=S, discarder=N))
    assert score.payments == {E: 0, S: 2, W: 0, N: -2}


def test_a_self_drawn_win_is_paid_by_every_player_still_in() -> None:
    hand = "123m456m789m234m55m"  # 清一色: 4 points
    assert SC.score(win(hand, how=WinType.SELF_DRAW, seat=W)).payments == {
        E: -4,
        S: -4,
        W: 12,
        N: -4,
    }
    out = Win.of(hand, win_type=WinType.SELF_DRAW, seat=W)
    later = Win(out.concealed, win_type=WinType.SELF_DRAW, seat=W, finished=frozenset({E}))
    assert SC.score(later).payments == {E: 0, S: -4, W: 8, N: -4}


def test_kong_replacement_and_earthly_wins_are_self_drawn() -> None:
    replacement = SC.score(win("123m456m234p55p", "kong:9999m", how=WinType.KONG_REPLACEMENT))
    assert replacement.payments == {E: 12, S: -4, W: -4, N: -4}
    earthly = SC.score(win("123m456m789m234p55p", how=WinType.EARTHLY, seat=N))
    assert earthly.payments == {E: -32, S: -32, W: -32, N: 96}


def test_robbing_a_kong_is_paid_by_the_konger() -> None:
    robbed = win("123m456m789m234p55p", tile="2p", how=WinType.ROBBING_KONG, seat=S, discarder=W)
    score = SC.score(robbed)
    assert score.payments == {E: 0, S: 1, W: -1, N: 0}


def test_a_self_drawn_extra_base_is_a_house_rule(tmp_path: Path) -> None:
    venue = tmp_path / "house.toml"
    venue.write_text("[settlement]\nbase = 2\nself_drawn_extra = 1\n")
    house = get_ruleset("sichuan", venue)
    drawn = house.score(win("123m456m789m234p55p", how=WinType.SELF_DRAW))
    assert drawn.payments == {E: 12, S: -4, W: -4, N: -4}  # (1 point + 1) x base 2
    assert house.score(win("123m456m789m234p55p")).payments[N] == -2


def test_a_player_who_has_won_takes_no_further_part() -> None:
    hand = Win.of("123m456m789m234p55p").concealed
    with pytest.raises(RulesError):
        Win(hand, seat=S, discarder=E, finished=frozenset({S}))
    with pytest.raises(RulesError):
        SC.score(Win(hand, seat=S, finished=frozenset({E})))  # default discarder: E
    with pytest.raises(RulesError, match="the hand is over"):
        SC.score(Win(hand, win_type=WinType.SELF_DRAW, seat=S, finished=frozenset({E, W, N})))


# --- several winners on one discard


def test_several_winners_on_one_discard_are_each_paid_one_to_one() -> None:
    all_pungs = win("111m444m777m22p555p", tile="5p", seat=S, discarder=N)
    plain = win("123m456m789m22p345p", tile="5p", seat=W, discarder=N)
    scores, payments = SC.settle_discard([all_pungs, plain])
    assert [score.total for score in scores] == [2, 1]
    assert payments == {E: 0, S: 2, W: 1, N: -3}
    assert SC.claims.multiple_winners


def test_a_shared_discard_needs_one_discarder_and_distinct_winners() -> None:
    one = win("123m456m789m22p345p", tile="5p", seat=W, discarder=N)
    with pytest.raises(RulesError, match="same player"):
        SC.settle_discard([one, win("111m444m777m22p555p", tile="5p", seat=S, discarder=E)])
    with pytest.raises(RulesError, match="each seat wins once"):
        SC.settle_discard([one, one])
    with pytest.raises(RulesError, match="same player"):
        SC.settle_discard([win("123m456m789m22p345p", how=WinType.SELF_DRAW, seat=W)])


# --- kongs


def test_an_exposed_kong_on_a_discard_is_paid_by_the_discarder() -> None:
    assert SC.settle_kong(KongKind.EXPOSED, S, W, list(Seat)) == {E: 0, S: 1, W: -1, N: 0}


def test_an_added_kong_is_paid_once_by_each_player_still_in() -> None:
    assert SC.settle_kong(KongKind.ADDED, S, None, list(Seat)) == {E: -1, S: 3, W: -1, N: -1}
    assert SC.settle_kong(KongKind.ADDED, S, None, [S, N]) == {E: 0, S: 1, W: 0, N: -1}


def test_a_concealed_kong_is_paid_twice_by_each_player_still_in() -> None:
    assert SC.settle_kong(KongKind.CONCEALED, N, None, [E, W, N]) == {E: -2, S: 0, W: -2, N: 4}


def test_a_kong_with_the_wrong_discarder_is_bad_input() -> None:
    with pytest.raises(RulesError, match="name the discarder"):
        SC.settle_kong(KongKind.EXPOSED, S, None, list(Seat))
    with pytest.raises(RulesError, match="own tiles"):
        SC.settle_kong(KongKind.CONCEALED, S, W, list(Seat))


def test_after_kong_discard_passes_the_kong_income_to_each_winner() -> None:
    income = SC.settle_kong(KongKind.CONCEALED, E, None, list(Seat))[E]
    assert income == 6
    assert SC.pass_kong_income(E, [S, N], income) == {E: -12, S: 6, W: 0, N: 6}
    score = SC.score(win("123m456m789m234p55p", how=WinType.AFTER_KONG_DISCARD, seat=S))
    assert score.patterns == (("平胡", 1), ("杠上炮", 1))
    assert score.payments == {E: -2, S: 2, W: 0, N: 0}
    with pytest.raises(RulesError):
        SC.pass_kong_income(E, [E], 2)


# --- the wall runs out


NOT_READY = "1357m2468m13579p"
PIG = "123m456p789s1234m"
NOT_TILES = tuple(parse_tiles(NOT_READY))


def test_the_highest_possible_fan_of_a_ready_hand() -> None:
    assert SC.highest_fan(parse_tiles("123m456m789m234m5m")) == 3  # 2m or 5m: 清一色
    assert SC.highest_fan(parse_tiles("111m444m777m22p55p")) == 2  # 2p or 5p: 对对胡
    assert SC.highest_fan(parse_tiles(NOT_READY)) == 0
    assert SC.highest_fan(parse_tiles(PIG)) == 0
    assert SC.is_flower_pig(parse_tiles(PIG))
    assert not SC.is_flower_pig(parse_tiles("123m456m789p55p"), (Meld.parse("pung:111p"),))
    assert SC.is_flower_pig(parse_tiles("123m456m789p55p"), (Meld.parse("pung:111s"),))


def test_draw_settlement_pig_not_ready_and_kong_income_returned() -> None:
    seats = {
        E: seat("123m456m789m234m55m", won=True),  # won earlier
        S: seat("123m456m789m234m5m", income={N: 1}),  # ready, 清一色: keeps its kong income
        W: seat("1357m2468m13p", "kong:5555p", income={E: 1, S: 1, N: 1}),  # not ready
        N: seat(PIG),
    }
    payments = SC.settle_draw(seats)
    # N pays 16 to E, S and W; W pays S 4 (2^(3-1)) and returns 1 to each of E, S, N
    assert payments == {E: 16 + 1, S: 16 + 4 + 1, W: 16 - 4 - 3, N: -48 + 1}
    assert sum(payments.values()) == 0


def test_a_flower_pig_returns_its_kong_income_too() -> None:
    seats = {
        E: seat("123m456m789m234m5m"),
        S: seat("111m444m777m22p55p"),
        W: seat("123m456p789s1m", "kong:9999m", income={E: 2, S: 2, N: 2}),
        N: seat("123m456m789m234m5m"),
    }
    payments = SC.settle_draw(seats)
    assert payments == {E: 16 + 2, S: 16 + 2, W: -48 - 6, N: 16 + 2}


def test_a_not_ready_player_pays_each_ready_player_its_own_highest_fan() -> None:
    seats = {
        E: seat("123m456m789m234m5m"),  # 3 fan: 4
        S: seat("111m444m777m22p55p"),  # 2 fan: 2
        W: seat(NOT_READY),
        N: seat("2468m13579p1357p"),  # not ready either
    }
    assert SC.settle_draw(seats) == {E: 8, S: 4, W: -6, N: -6}


def test_everyone_ready_at_the_draw_pays_nothing() -> None:
    ready = seat("123m456m789m234m5m")
    assert set(SC.settle_draw(dict.fromkeys(Seat, ready)).values()) == {0}


def test_pigs_may_spare_players_who_won(tmp_path: Path) -> None:
    venue = tmp_path / "house.toml"
    venue.write_text("[draw]\npig_pays_players_who_won = false\n")
    house = get_ruleset("sichuan", venue)
    seats = {E: seat("", won=True), S: seat(PIG), W: seat(PIG), N: seat("123m456m789m234m5m")}
    assert house.settle_draw(seats) == {E: 0, S: -16, W: -16, N: 32}
    assert SC.settle_draw(seats) == {E: 32, S: -32, W: -32, N: 32}


@pytest.mark.parametrize(
    ("seats", "message"),
    [
        ({E: seat(PIG)}, "all four seats"),
        ({E: seat(PIG), S: seat(PIG), W: seat(PIG), N: seat("123m")}, "seat N: with 0 meld"),
        (
            {E: seat(PIG), S: seat(PIG), W: seat(PIG), N: SeatAtDraw(NOT_TILES, kong_income=3)},
            "seat N: kong income 3",
        ),
        (
            {
                E: seat(PIG),
                S: seat(PIG),
                W: seat(PIG),
                N: seat("456m789m22p5p", "chow:123m"),
            },
            "seat N: a chow",
        ),
    ],
)
def test_a_bad_draw_state_is_named(seats: dict[Seat, SeatAtDraw], message: str) -> None:
    with pytest.raises(RulesError, match=message):
        SC.settle_draw(seats)


# --- invariants

_SUITS = st.lists(st.integers(0, 2), min_size=2, max_size=2, unique=True)


@st.composite
def two_suit_hands(draw: st.DrawFn) -> list[int]:
    """Fourteen tiles of at most two suits: four sets (sequences or pungs) and a pair."""
    suits = draw(_SUITS)
    tiles: list[int] = []
    for _ in range(4):
        base = 9 * draw(st.sampled_from(suits))
        if draw(st.booleans()):
            low = base + draw(st.integers(0, 6))
            tiles += [low, low + 1, low + 2]
        else:
            tiles += [base + draw(st.integers(0, 8))] * 3
    tiles += [9 * draw(st.sampled_from(suits)) + draw(st.integers(0, 8))] * 2
    return tiles


_HOW = [WinType.DISCARD, WinType.SELF_DRAW, WinType.AFTER_KONG_DISCARD, WinType.ROBBING_KONG]


@settings(max_examples=60, deadline=None)
@given(
    two_suit_hands(),
    st.sampled_from(_HOW),
    st.sampled_from(list(Seat)),
    st.integers(1, 3),
    st.sets(st.integers(1, 3), max_size=2),
)
def test_win_payments_sum_to_zero_and_only_players_still_in_pay(
    tiles: list[int], how: WinType, winner: Seat, step: int, out_steps: set[int]
) -> None:
    assume(max(tiles.count(tile) for tile in tiles) <= 4)
    if how is WinType.ROBBING_KONG and tiles.count(tiles[-1]) > 1:
        how = WinType.DISCARD  # the robbed kong holds the other three of that tile
    discarder = None if how is WinType.SELF_DRAW else Seat((winner + step) % 4)
    finished = frozenset(Seat((winner + s) % 4) for s in out_steps) - {discarder}
    score = SC.score(
        Win(tuple(tiles), win_type=how, seat=winner, discarder=discarder, finished=finished)
    )
    assert score.valid, score.reason
    assert sum(score.payments.values()) == 0
    assert score.payments[winner] > 0
    assert all(score.payments[seat] == 0 for seat in finished)


@settings(max_examples=40, deadline=None)
@given(
    st.permutations([kind for kind in range(27) for _ in range(4)]),
    st.lists(st.booleans(), min_size=4, max_size=4),
    st.lists(st.integers(0, 4), min_size=4, max_size=4),
)
def test_draw_settlement_sums_to_zero(wall: list[int], won: list[bool], incomes: list[int]) -> None:
    states = {}
    for place in range(4):
        paid = {Seat((place + 1) % 4): incomes[place]} if incomes[place] else {}
        states[Seat(place)] = SeatAtDraw(
            tuple(wall[13 * place : 13 * place + 13]),
            won=won[place],
            kong_income=incomes[place],
            kong_paid_by=paid,
        )
    assert sum(SC.settle_draw(states).values()) == 0


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(list(KongKind)),
    st.sampled_from(list(Seat)),
    st.sets(st.sampled_from(list(Seat))),
)
def test_kong_payments_sum_to_zero(kind: KongKind, konger: Seat, players_in: set[Seat]) -> None:
    discarder = konger.next if kind is KongKind.EXPOSED else None
    payments = SC.settle_kong(kind, konger, discarder, sorted(players_in | {konger}))
    assert sum(payments.values()) == 0
    assert payments[konger] >= 0
