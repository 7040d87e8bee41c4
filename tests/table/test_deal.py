"""The deal the dice decide: who must hold which tiles, flowers set aside and replaced, and
a wrong deal named by seat and tile."""

from hypothesis import given, settings
from hypothesis import strategies as st

from controller.rules import RULESET_NAMES, Seat, WallPosition, get_ruleset
from controller.rules.tiles import is_flower
from controller.table.deal import check_deal, describe_mismatch, expected_deal
from controller.table.geometry import physical_slot, rules_position
from tests.table.helpers import full_wall, tile_map

dice = st.integers(1, 6)


@settings(max_examples=30, deadline=None)
@given(
    st.sampled_from(RULESET_NAMES),
    st.lists(dice, min_size=4, max_size=4),
    st.integers(0, 3),
    st.integers(0, 10**6),
)
def test_each_seat_holds_its_deal_and_no_tile_twice(
    name: str, rolled: list[int], dealer: int, seed: int
) -> None:
    ruleset = get_ruleset(name)
    tiles, wall = tile_map(ruleset), full_wall(ruleset, seed)
    plan = ruleset.wall_plan(tuple(rolled[: 2 * ruleset.wall.dice_rolls]))
    deal = expected_deal(plan, wall, tiles, dealer)
    for place in range(4):
        hand = deal.hands[place]
        assert len(hand) == (14 if place == dealer else 13)
        assert not any(is_flower(tiles.kind(uid) or 0) for uid in hand)
        assert all(is_flower(tiles.kind(uid) or 0) for uid in deal.flowers[place])
    held = [uid for place in range(4) for uid in deal.hands[place] | deal.flowers[place]]
    assert len(held) == len(set(held)) == len(deal.takes)
    assert {wall[take.slot] for take in deal.takes} == set(held)


def test_the_dealers_chair_turns_the_wall_sides() -> None:
    position = WallPosition(Seat.S, 3, 1)
    assert physical_slot(position, dealer_place=2) == (3, 3, 1)
    assert rules_position((3, 3, 1), dealer_place=2) == position


def test_a_swapped_tile_is_named_for_both_seats() -> None:
    ruleset = get_ruleset("zung-jung")
    tiles, wall = tile_map(ruleset), full_wall(ruleset)
    deal = expected_deal(ruleset.wall_plan((3, 4, 2, 2)), wall, tiles, dealer_place=0)
    hands = {place: set(deal.hands[place]) for place in range(4)}
    south, west = min(hands[1]), min(hands[2])
    hands[1] = hands[1] - {south} | {west}
    hands[2] = hands[2] - {west} | {south}
    frozen = {place: frozenset(uids) for place, uids in hands.items()}
    mismatches = check_deal(deal, frozen, {})
    assert [m.place for m in mismatches] == [1, 2]
    words = [describe_mismatch(m, deal, tiles) for m in mismatches]
    assert words == [
        f"seat S holds {tiles.notation([west])} dealt to seat W; lacks {tiles.notation([south])}",
        f"seat W holds {tiles.notation([south])} dealt to seat S; lacks {tiles.notation([west])}",
    ]


def test_a_good_deal_has_no_mismatch() -> None:
    ruleset = get_ruleset("shanghai")
    tiles, wall = tile_map(ruleset), full_wall(ruleset, seed=5)
    deal = expected_deal(ruleset.wall_plan((6, 5)), wall, tiles, dealer_place=3)
    assert check_deal(deal, deal.hands, deal.flowers) == []
    assert describe_mismatch(
        check_deal(deal, {**deal.hands, 0: frozenset()}, deal.flowers)[0], deal, tiles
    ).startswith("seat E lacks ")
