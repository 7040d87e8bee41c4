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
    assert said(table) == [], "said once a read again shows it too"
    table.discard(S, "7z")
    table.wait(1.6)  # the zones are read again: the stranger is still there
    [odd] = said(table)
    assert (odd.kind, odd.place) == (IncidentKind.UNKNOWN_TILE, S)
    table.wait(12.0)  # longer than a stray tile waits
    assert len(said(table)) == 1, "said once; South's count is right without it"


def test_moves_made_at_once_after_a_draw_out_of_turn_follow_the_walls_order() -> None:
    # No time passes: West draws in South's place, throws, North draws and throws, all
    # before the referee could wait for anything. The wall's order says who drew what.
    table = Table("zung-jung", HANDS)
    table.discard(E, "5m")
    table.wait(3.1)
    drawn = table.draw(W)
    table.move([drawn], W, Zone.DISCARD)
    drawn = table.draw(N)
    table.move([drawn], N, Zone.DISCARD)
    patient(table)  # a draw into the next seat's hand waits a moment for a press (a take)
    [jumped] = said(table)
    assert (jumped.kind, jumped.place) == (IncidentKind.DRAW_OUT_OF_TURN, W)
    assert [(m.place, m.kind) for m in table.referee.play.moves[1:]] == [
        (W, MoveKind.DRAW),
        (W, MoveKind.DISCARD),
        (N, MoveKind.DRAW),
        (N, MoveKind.DISCARD),
    ]
    assert table.referee.turn == E


def test_a_second_discard_is_the_tile_the_next_seat_may_chow() -> None:
    table = Table("zung-jung", {**HANDS, 0: "19m19p19s1234567z7s"})
    table.discard(E, "1m")
    table.discard(E, "7s")  # a second tile thrown, at once
    table.meld(S, "89s", discard_of=E)
    [short] = said(table)
    assert (short.kind, short.place) == (IncidentKind.SHORT_HAND, E)
    assert table.referee.play.moves[-1].kind is MoveKind.CHOW
    assert table.referee.turn == S


def test_a_set_taken_late_after_the_next_discard_is_still_a_late_claim() -> None:
    table = Table("zung-jung", HANDS)
    table.discard(E, "5m")
    drawn = table.draw(S)
    table.move([drawn], S, Zone.DISCARD)  # South has thrown since
    table.meld(W, "55m", discard_of=E)
    table.wait(0.5)
    [late] = said(table)
    assert (late.kind, late.place) == (IncidentKind.LATE_CLAIM, W)
    assert MoveKind.PUNG not in [m.kind for m in table.referee.play.moves]


def test_a_tile_no_antenna_reads_again_is_reported_gone_from_the_table_once() -> None:
    table = Table("zung-jung", HANDS)
    gone = table.uid(N, "9s")
    table.zones[(N, Zone.HAND)].discard(gone)  # taken off the table
    table._read([(N, Zone.HAND)])
    asked = 0
    for _ in range(12):
        table.wait(1.0)
        asked += sum(1 for o in table.out if type(o).__name__ == "ReadAgain")
        table.out.clear()
    [left] = said(table)
    assert (left.kind, left.place) == (IncidentKind.TILE_LEFT_TABLE, N)
    assert left.tiles == tuple(table.tiles.kinds([gone]))
    assert 3 <= asked <= 6, "read again while it is missing, less often as it stays missing"
    table.wait(5.0)
    assert [i.kind for i in said(table)] == [IncidentKind.TILE_LEFT_TABLE], "said once"
