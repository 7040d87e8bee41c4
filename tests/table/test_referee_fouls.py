"""Irregularities the referee tells from the tiles, each scripted as players would make it and
reported once with the right seat, tiles and cost: a short hand, a long hand, a draw out of
turn, a false win (points and penalty tiles), a seat that lost the right to win declaring."""

import copy

from controller.rules.penalties import PenaltyPoints
from controller.table.irregularities import Rights
from controller.table.ports import Zone
from controller.table.records import IncidentKind, IncidentRecord
from controller.table.referee import MoveKind
from tests.table.scripted import Table
from tests.table.test_referee import ZJ_E

E, S, W, N = 0, 1, 2, 3
HANDS = {0: ZJ_E, 1: "22p33p44p66s77s89s7z", 2: "55m2233s778899p1z", 3: "46m77m88m55s9s5566z"}


def said(table: Table) -> list[IncidentRecord]:
    return list(table.referee.play.incidents)


def patient(table: Table) -> None:
    """Long enough for the referee to have the zones read again and take the table as it is."""
    table.wait(3.1)


def test_a_second_discard_in_one_turn_is_a_short_hand_said_once() -> None:
    table = Table("zung-jung", HANDS)
    table.discard(E, "5m")
    table.discard(E, "1m")  # a second tile thrown
    patient(table)
    [short] = said(table)
    assert (short.kind, short.place) == (IncidentKind.SHORT_HAND, E)
    assert len(short.tiles) == 12
    assert table.referee.play.rights[E] == Rights.ALL & ~Rights.WIN
    tsumogiri = [table.draw(S)]
    table.move(tsumogiri, S, Zone.DISCARD)
    uid = table.draw(W)
    table.move([uid], W, Zone.DISCARD)
    uid = table.draw(N)
    table.move([uid], N, Zone.DISCARD)
    uid = table.draw(E)
    table.move([uid], E, Zone.DISCARD)
    patient(table)
    assert len(said(table)) == 1, "said once for the hand"


def test_a_second_draw_in_one_turn_is_a_long_hand_and_its_claims_are_refused() -> None:
    table = Table("zung-jung", HANDS)
    table.discard(E, "5m")
    table.draw(S)
    table.draw(S)  # a second tile
    patient(table)
    [long] = said(table)
    assert (long.kind, long.place) == (IncidentKind.LONG_HAND, S)
    assert table.referee.play.rights[S] == Rights.NONE
    table.discard(S, "7z")
    assert table.referee.play.moves[-1].kind is MoveKind.DISCARD


def test_drawing_in_place_of_the_seat_on_turn_is_said_and_play_follows_the_table() -> None:
    table = Table("zung-jung", HANDS)
    table.discard(E, "5m")
    table.wait(3.1)  # nobody claims
    uid = table.draw(W)  # West draws, South was on turn
    patient(table)
    [jumped] = said(table)
    assert (jumped.kind, jumped.place) == (IncidentKind.DRAW_OUT_OF_TURN, W)
    assert jumped.tiles == tuple(table.tiles.kinds([uid]))
    assert table.referee.turn == W
    table.move([uid], W, Zone.DISCARD)
    patient(table)
    assert [m.kind for m in table.referee.play.moves[-2:]] == [MoveKind.DRAW, MoveKind.DISCARD]
    assert len(said(table)) == 1, "the count of every seat is right: nothing more to say"


def test_a_false_win_costs_the_rulesets_points_and_its_tiles_become_penalty_tiles() -> None:
    table = Table("zung-jung", HANDS)
    venue = copy.copy(table.ruleset)  # a venue's ruleset file: 10 points for a false win
    venue.penalties = PenaltyPoints(false_win=10)
    table.referee.play.ruleset = venue
    table.discard(E, "5m")
    table.draw(S)
    table.declare(S)
    table.wait(2.0)
    [false] = said(table)
    assert (false.kind, false.place, false.penalty) == (IncidentKind.FALSE_WIN, S, 10)
    assert len(false.tiles) == 14
    assert table.referee.play.penalty_tiles[S].live == table.referee.play.seats[S].concealed
    table.discard(S, "7z")
    assert table.referee.play.moves[-1].kind is MoveKind.DISCARD, "play goes on"


def test_a_short_hand_that_declares_is_refused_as_such() -> None:
    table = Table("zung-jung", HANDS)
    table.discard(E, "5m")
    table.discard(E, "1m")
    patient(table)
    table.draw(S)
    table.discard(S, "7z")
    table.draw(W)
    table.discard(W, "1z")
    table.draw(N)
    table.discard(N, "9s")
    table.draw(E)
    table.declare(E)
    table.wait(2.0)
    kinds = [(i.kind, i.place) for i in said(table)]
    assert kinds == [(IncidentKind.SHORT_HAND, E), (IncidentKind.RIGHT_LOST, E)]


def test_a_tag_of_no_tile_set_is_said_once_and_takes_no_part_in_play() -> None:
    table = Table("zung-jung", HANDS)
    stranger = 0xBAD0_0001
    table.zones[(S, Zone.HAND)].add(stranger)
    table.discard(E, "5m")
    table.draw(S)  # South's HAND is read with the stranger in it
    [odd] = said(table)
    assert (odd.kind, odd.place) == (IncidentKind.UNKNOWN_TILE, S)
    table.discard(S, "7z")
    table.wait(12.0)  # longer than a stray tile waits
    assert len(said(table)) == 1, "said once; South's count is right without it"
