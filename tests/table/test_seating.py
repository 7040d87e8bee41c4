"""The WMC seating draw and the same-turn claim rules of seed 003."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.rules import get_ruleset
from controller.rules.claims import Claim
from controller.rules.seats import Seat
from controller.table.records import Instant
from controller.table.same_turn import AfterDiscard, open_claims
from controller.table.seating import (
    SeatingError,
    draw_order,
    read_draw,
    seat_players,
    session_start,
)
from controller.table.tiles import TileMap

WMC = get_ruleset("zung-jung")
AT = Instant(5.0, 1_700_000_005.0)
# One tag per wind tile and a few others, as a tile-set file maps them.
TILES = TileMap.from_names("draw", {1: "1z", 2: "2z", 3: "3z", 4: "4z", 5: "1z", 6: "5z", 7: "3m"})


def test_the_dice_pick_who_takes_the_first_wind_and_from_which_end() -> None:
    # Chair 2 rolls 7 (opposite: chair 0), chair 0 rolls 2 (next: chair 1), even end.
    order = draw_order(first_roller=2, first=(3, 4), second=(1, 1))
    assert (order.second_roller, order.first_taker, order.from_odd_end) == (0, 1, False)
    assert order.takers == (1, 2, 3, 0)
    assert draw_order(0, (2, 3), (4, 5)).from_odd_end  # 5: himself; 9: odd end, himself
    assert draw_order(0, (2, 3), (4, 5)).first_taker == 0


def test_the_table_reads_the_draw_and_seats_east_on_chair_zero() -> None:
    hands = {0: {3}, 1: {1}, 2: {4}, 3: {2}}  # chair 1 drew East
    drawn = read_draw(hands, TILES)
    assert drawn == (Seat.W, Seat.E, Seat.N, Seat.S)
    players = ("ann", "bo", "cy", "di")
    start = session_start("s-1", "zung-jung", players, drawn, draw_order(2, (3, 4), (1, 1)), AT)
    assert start.players == ("bo", "di", "ann", "cy")
    assert start.drawn == ("W", "E", "N", "S") and start.dealer == 0
    assert start.dice == (3, 4, 1, 1) and start.players_at_draw == players


@given(st.permutations(list(Seat)))
def test_every_player_gets_the_chair_of_the_wind_drawn(drawn: list[Seat]) -> None:
    players = ("ann", "bo", "cy", "di")
    seated = seat_players(players, tuple(drawn))
    assert sorted(seated) == sorted(players)
    for chair, wind in enumerate(drawn):
        assert seated[wind] == players[chair]


@pytest.mark.parametrize(
    ("hands", "message"),
    [
        ({0: {1}, 1: {2}, 2: {3}, 3: set()}, "chair N holds no tile"),
        ({0: {1}, 1: {2}, 2: {3}, 3: {4, 7}}, "chair N holds 2 tiles"),
        ({0: {1}, 1: {2}, 2: {3}, 3: {6}}, "chair N holds a White dragon, not a wind tile"),
        ({0: {1}, 1: {2}, 2: {5}, 3: {4}}, "chairs E and W both drew the East wind"),
        (
            {0: {1}, 1: {2}, 2: {3}, 3: {99}},
            "chair N holds a tile whose tag is not in the tile-set",
        ),
    ],
)
def test_a_draw_the_table_cannot_read_says_what_to_lay_out(
    hands: dict[int, set[int]], message: str
) -> None:
    with pytest.raises(SeatingError, match=message):
        read_draw(hands, TILES)


def test_lifting_the_wall_tile_gives_up_claims_except_a_win() -> None:
    rules, discarder = WMC.claims, Seat.E
    everything = open_claims(AfterDiscard.NOTHING, Seat.S, discarder, rules)
    assert everything == {Claim.WIN, Claim.KONG, Claim.PUNG, Claim.CHOW}
    lifted = AfterDiscard.WALL_TILE_LIFTED
    assert open_claims(lifted, Seat.S, discarder, rules) == {Claim.WIN}
    assert open_claims(lifted, Seat.W, discarder, rules) == {Claim.WIN, Claim.KONG, Claim.PUNG}
    in_hand = lifted | AfterDiscard.TILE_IN_HAND
    assert open_claims(in_hand, Seat.W, discarder, rules) == frozenset()


def test_a_chow_under_way_leaves_only_a_win_until_it_is_complete() -> None:
    rules, discarder = WMC.claims, Seat.E
    shown = AfterDiscard.CHOW_SHOWN
    assert open_claims(shown, Seat.N, discarder, rules) == {Claim.WIN}
    done = shown | AfterDiscard.CHOW_DISCARD
    assert open_claims(done, Seat.N, discarder, rules) == frozenset()
    assert open_claims(AfterDiscard.NOTHING, Seat.N, discarder, rules, last_discard=True) == {
        Claim.WIN
    }
