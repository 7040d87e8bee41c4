"""WMC wall geometry: the dice, the break, the deal, the draws and the 14 tiles never drawn."""

import itertools

import pytest

from controller.rules import RulesError, Seat, WallPosition, get_ruleset
from controller.rules.seats import dice_seat

ZJ = get_ruleset("zung-jung")


def test_dice_count_seats_counter_clockwise_from_the_roller() -> None:
    assert [dice_seat(Seat.E, total) for total in (5, 9, 2, 6, 10, 3, 7, 11, 4, 8, 12)] == [
        Seat.E, Seat.E, Seat.S, Seat.S, Seat.S, Seat.W, Seat.W, Seat.W, Seat.N, Seat.N, Seat.N,
    ]  # fmt: skip
    assert dice_seat(Seat.W, 2) is Seat.N


def test_two_rolls_pick_the_breaker_and_the_break_count() -> None:
    plan = ZJ.wall_plan((3, 4, 2, 2))  # 7: opposite (W) breaks; 7 + 4 = 11 stacks
    assert plan.breaker is Seat.W
    assert plan.break_count == 11
    # the live wall starts just left of the 11 tail stacks, top tile first
    assert plan.sequence[0] == WallPosition(Seat.W, 11, 1)
    assert plan.sequence[1] == WallPosition(Seat.W, 11, 0)
    # the tail end (last tiles of the wall) is the breaker's rightmost-but-counted stack
    assert plan.sequence[-1] == WallPosition(Seat.W, 10, 0)


def test_a_break_past_the_wall_continues_into_the_previous_players_wall() -> None:
    plan = ZJ.wall_plan((6, 6, 6, 6))  # 12: previous (N) breaks; 24 stacks
    assert plan.breaker is Seat.N
    assert plan.sequence[0] == WallPosition(Seat.W, 7, 1)  # N's previous player is W


def test_the_deal_is_four_four_four_then_the_dealers_jump() -> None:
    plan = ZJ.wall_plan((1, 1, 1, 1))
    steps = [(step.seat, len(step.positions)) for step in plan.deal]
    assert steps == [(Seat.E, 4), (Seat.S, 4), (Seat.W, 4), (Seat.N, 4)] * 3 + [
        (Seat.E, 2), (Seat.S, 1), (Seat.W, 1), (Seat.N, 1),
    ]  # fmt: skip
    jump = plan.deal[12].positions
    assert jump == (plan.sequence[48], plan.sequence[52])  # the 1st and 5th of the last block
    assert [len(tiles) for tiles in plan.dealt.values()] == [14, 13, 13, 13]
    assert plan.first_live == 53


@pytest.mark.parametrize("dice", list(itertools.product((1, 3, 6), repeat=4)))
def test_every_wall_position_is_dealt_or_drawn_exactly_once(dice: tuple[int, ...]) -> None:
    plan = ZJ.wall_plan(dice)
    assert len(plan.sequence) == len(set(plan.sequence)) == 136
    dealt = [p for step in plan.deal for p in step.positions]
    assert len(dealt) == len(set(dealt)) == 53
    wall = plan.wall()
    drawn = []
    while wall.remaining:
        drawn.append(wall.draw())
    assert len(drawn) == 136 - 53 - 14  # the last 14 tiles are never drawn
    assert not set(drawn) & set(dealt)


def test_a_kong_replacement_comes_from_the_tail_and_keeps_14_undrawn() -> None:
    plan = ZJ.wall_plan((2, 3, 4, 5))
    wall = plan.wall()
    tail = plan.sequence[-1]
    replacement = wall.draw_replacement()
    assert (replacement.side, replacement.stack, replacement.layer) == (tail.side, tail.stack, 1)
    # 13 dead tiles left in the 7 tail stacks: the 8th stack's bottom joins them and its
    # top tile becomes the sea-bottom (last drawable) tile
    eighth = plan.sequence[-15]
    assert wall.last_drawable == WallPosition(eighth.side, eighth.stack, 1)
    assert wall.remaining == 136 - 53 - 14 - 1


def test_an_exhausted_wall_refuses_to_draw() -> None:
    wall = ZJ.wall_plan((1, 2, 3, 4)).wall()
    while wall.remaining:
        wall.draw()
    assert wall.last_drawable is None
    with pytest.raises(RulesError, match="exhausted"):
        wall.draw()


@pytest.mark.parametrize("dice", [(1, 2), (0, 1, 2, 3), (1, 2, 3, 7)])
def test_bad_dice_are_an_input_error(dice: tuple[int, ...]) -> None:
    with pytest.raises(RulesError):
        ZJ.wall_plan(dice)


def test_zung_jung_plays_136_tiles_without_flowers() -> None:
    assert ZJ.tiles.total == 136
    assert len(ZJ.tiles.physical()) == 136
    assert ZJ.wall.stacks_per_side == 17
