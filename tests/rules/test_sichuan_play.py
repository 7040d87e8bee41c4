"""Sichuan play around the scoring: the 108-tile wall, claims, the last four tiles, blood
battle, the dealer by dice, and the worked cases."""

import itertools
from pathlib import Path

import pytest

from controller.rules import (
    Claim,
    DealState,
    HandOutcome,
    KongKind,
    Meld,
    RulesError,
    Seat,
    WallPosition,
    get_ruleset,
    parse_tile,
    parse_tiles,
)
from controller.rules.sichuan import Sichuan
from tests.rules.cases import load_cases

E, S, W, N = Seat


def sichuan(venue: Path | None = None) -> Sichuan:
    """The Sichuan ruleset (shipped, or with a venue's file laid over it), typed as such."""
    ruleset = get_ruleset("sichuan", venue)
    assert isinstance(ruleset, Sichuan)
    return ruleset


SC = sichuan()


def test_the_sichuan_worked_cases_are_all_there() -> None:
    ids = sorted(case.id for case in load_cases() if case.ruleset == "sichuan")
    assert ids == ["sc-02", "sc-04", "sc-08", "sc-14", "sc-16", "sc-17"]


def test_108_tiles_suits_only() -> None:
    assert SC.tiles.total == 108
    assert SC.tiles.kinds == frozenset(range(27))
    assert SC.tiles.flowers == ()


def test_each_side_is_13_stacks_and_one_single_tile() -> None:
    plan = SC.wall_plan((3, 4))
    assert len(plan.sequence) == len(set(plan.sequence)) == 108
    for side in Seat:
        heights = [
            sum(1 for p in plan.sequence if p.side is side and p.stack == stack)
            for stack in range(14)
        ]
        assert heights == [2] * 13 + [1]  # the single tile at the left end


def test_one_roll_chooses_the_wall_and_the_break() -> None:
    plan = SC.wall_plan((3, 4))  # 7: the opposite player (W); 7 stacks from the right end
    assert plan.breaker is W
    assert plan.break_count == 7
    assert plan.sequence[0] == WallPosition(W, 7, 1)
    assert plan.sequence[-1] == WallPosition(W, 6, 0)
    with pytest.raises(RulesError, match="expected 2 dice"):
        SC.wall_plan((3, 4, 1, 1))


@pytest.mark.parametrize("dice", list(itertools.product(range(1, 7), repeat=2)))
def test_no_dead_wall_every_tile_is_dealt_or_drawn(dice: tuple[int, int]) -> None:
    plan = SC.wall_plan(dice)
    dealt = [p for step in plan.deal for p in step.positions]
    assert [len(tiles) for tiles in plan.dealt.values()] == [14, 13, 13, 13]
    wall = plan.wall()
    drawn: list[WallPosition] = []
    while wall.remaining:
        drawn.append(wall.draw_replacement() if len(drawn) % 9 == 4 else wall.draw())
    assert len(drawn) == 108 - 53
    assert sorted(drawn + dealt) == sorted(plan.sequence)


def test_no_chow_pung_and_kong_allowed() -> None:
    assert not SC.claims.allowed(Claim.CHOW, S, E)
    assert SC.claims.resolve(E, {S: Claim.CHOW}) == ()
    assert SC.claims.resolve(E, {S: Claim.CHOW, N: Claim.PUNG}) == ((N, Claim.PUNG),)
    assert SC.claims.resolve(E, {W: Claim.KONG}) == ((W, Claim.KONG),)


def test_everyone_who_calls_a_win_on_a_discard_wins() -> None:
    claims = {S: Claim.WIN, W: Claim.PUNG, N: Claim.WIN}
    assert SC.claims.resolve(E, claims) == ((S, Claim.WIN), (N, Claim.WIN))


def test_only_an_added_kong_may_be_robbed() -> None:
    assert SC.claims.can_rob(KongKind.ADDED)
    assert not SC.claims.can_rob(KongKind.CONCEALED)
    assert not SC.claims.can_rob(KongKind.EXPOSED)


def test_the_last_discard_may_only_be_won_on() -> None:
    assert SC.claims.resolve(E, {S: Claim.PUNG}, last_discard=True) == ()
    assert SC.claims.resolve(E, {S: Claim.WIN}, last_discard=True) == ((S, Claim.WIN),)


def test_a_ready_player_must_win_on_one_of_the_last_four_tiles() -> None:
    hand = parse_tiles("123m456m789m234m5m")  # waits 2m and 5m
    five = parse_tile("5m")
    assert SC.must_win(hand, (), five, wall_before_draw=4)
    assert SC.must_win(hand, (), five, wall_before_draw=1)
    assert not SC.must_win(hand, (), five, wall_before_draw=5)  # may still pass
    assert not SC.must_win(hand, (), parse_tile("6m"), wall_before_draw=2)  # not a wait
    with pytest.raises(RulesError, match="at least one tile"):
        SC.must_win(hand, (), five, wall_before_draw=0)


def test_the_last_four_rule_only_binds_wins_that_are_valid() -> None:
    three_suits = parse_tiles("123m456p789s234m5m")  # 2m or 5m would make a three-suit hand
    assert not SC.must_win(three_suits, (), parse_tile("5m"), wall_before_draw=3)
    melded = parse_tiles("456m789m234m5m")
    assert SC.must_win(melded, (Meld.parse("pung:111m"),), parse_tile("5m"), 2)


def test_blood_battle_ends_when_three_have_won_or_the_wall_is_empty() -> None:
    assert not SC.hand_over(winners=1, wall_left=20)
    assert not SC.hand_over(winners=2, wall_left=1)
    assert SC.hand_over(winners=3, wall_left=20)
    assert SC.hand_over(winners=0, wall_left=0)


def test_one_winner_ends_the_hand_as_a_house_rule(tmp_path: Path) -> None:
    venue = tmp_path / "house.toml"
    venue.write_text("[battle]\nwinners_to_end = 1\n")
    assert sichuan(venue).hand_over(winners=1, wall_left=20)


def test_the_dealer_is_chosen_by_dice_every_hand() -> None:
    state = SC.next_deal(DealState(), HandOutcome((S,)), dice=(1, 2))  # 3: the opposite player
    assert state.dealer == 2
    state = SC.next_deal(state, HandOutcome(), dice=(2, 3))  # 5: the dealer again
    assert state.dealer == 2 and state.draw_streak == 1
    with pytest.raises(RulesError, match="pass the dice"):
        SC.next_deal(state, HandOutcome())


def test_waits_of_a_sichuan_hand_leave_out_three_suit_wins() -> None:
    assert SC.waits(parse_tiles("123m456m789m234m5m")) == parse_tiles("25m")
    assert SC.waits(parse_tiles("1133m5577m2288p9p")) == parse_tiles("9p")
    assert SC.waits(parse_tiles("123m456p789s234m5m")) == []
