"""One scripted hand per row of docs/rulings.md, its expectation copied from the row (not from
what the referee does), and a check that the page and `Ruling` list the same rows, each with
its test here. A row's test is named after its id (`test_r_claim_3_...`)."""

import re
from itertools import pairwise
from pathlib import Path

import pytest

from controller.cli import main
from controller.rules.tiles import is_flower
from controller.table.irregularities import Rights
from controller.table.ports import Zone
from controller.table.records import IncidentKind, IncidentRecord
from controller.table.referee import EndNow, MoveKind, ReadAgain, RefereeResult
from controller.table.referee.result import result_json
from controller.table.rulings import Ruling
from tests.table.scripted import Table
from tests.table.test_referee import (
    SHANGHAI_HANDS,
    ZJ_E,
    filler,
    replays_the_same,
    robbed_kong,
    tsumogiri,
)

E, S, W, N = 0, 1, 2, 3
HANDS = {0: ZJ_E, 1: "22p33p44p66s77s89s7z", 2: "55m2233s778899p1z", 3: "46m77m88m55s9s5566z"}
"""East deals; West holds a pair of 5m, North 4m and 6m; nobody is close to a win."""
WINS_ON_5M = {0: ZJ_E, 1: "8p5566s77s88s3456z", 2: "55m2233s778899p1z", 3: "46m111p222p333p55s"}
"""North wins on East's 5m (a chow of 456m); West may pung it."""
PAGE = Path(__file__).parents[2] / "docs" / "rulings.md"


def said(table: Table) -> list[IncidentRecord]:
    return list(table.referee.play.incidents)


def kinds(table: Table) -> list[tuple[int | None, IncidentKind, Ruling | None]]:
    return [(i.place, i.kind, i.ruling) for i in said(table)]


def moves(table: Table) -> list[tuple[int, MoveKind]]:
    return [(m.place, m.kind) for m in table.referee.play.moves]


def patient(table: Table) -> None:
    """Long enough for the zones to be read again and a move out of turn to be looked for."""
    table.wait(3.1)


def put_back(table: Table, uid: int, place: int, zone: Zone) -> None:
    """A player puts a tile back where it belongs (not a discard: no river order)."""
    for content in table.zones.values():
        content.discard(uid)
    table.zones[(place, zone)].add(uid)
    table.read(*[(p, z) for p in range(4) for z in Zone])


# ---- the page and the ids ---------------------------------------------------------------


def test_the_page_and_the_code_list_the_same_rows_each_with_its_test() -> None:
    rows = re.findall(r"^\| (R-[A-Z]+-\d+) \|", PAGE.read_text(encoding="utf-8"), re.MULTILINE)
    assert len(rows) == len(set(rows)), "each row once"
    assert set(rows) == {ruling.value for ruling in Ruling}
    tests = {name for name in globals() if name.startswith("test_r_")}
    for row in rows:
        prefix = "test_" + row.lower().replace("-", "_") + "_"
        assert any(name.startswith(prefix) for name in tests), f"no test for {row}"


# ---- claim races ------------------------------------------------------------------------


def test_r_claim_1_of_two_wins_on_one_discard_the_first_in_turn_wins_alone() -> None:
    hands = {**WINS_ON_5M, 1: "46m666s777s888s99m"}  # South also waits on 5m
    table = Table("zung-jung", hands)
    table.discard(E, "5m")
    table.declare(N)
    table.declare(S)
    table.wait(3.1)
    result = replays_the_same(table)
    assert [(w.place, w.discarder) for w in result.wins] == [(S, E)]
    assert [(i.place, i.kind, i.ruling) for i in result.incidents] == [
        (N, IncidentKind.HEAD_BUMP, Ruling.HEAD_BUMP)
    ]
    assert result.incidents[0].penalty == 0


def test_r_claim_2_a_win_declared_before_a_set_is_laid_out_voids_the_set() -> None:
    table = Table("zung-jung", WINS_ON_5M)
    table.discard(E, "5m")
    table.declare(N)
    table.meld(W, "55m", discard_of=E)
    result = replays_the_same(table)
    assert [(w.place, w.discarder) for w in result.wins] == [(N, E)]
    assert MoveKind.PUNG not in [m.kind for m in result.moves]
    assert [(i.place, i.kind, i.ruling) for i in result.incidents] == [
        (W, IncidentKind.CLAIM_VOID, Ruling.WIN_BEFORE_SET)
    ]
    play = table.referee.play
    assert play.seats[W].melds == [] and len(play.seats[W].concealed) == 13
    assert play.penalty_tiles[W].all == frozenset() and play.rights[W] == Rights.ALL


def test_r_claim_3_a_win_declared_after_a_set_is_laid_out_before_its_discard_wins() -> None:
    table = Table("zung-jung", WINS_ON_5M)
    discard = table.discard(E, "5m")
    table.meld(W, "55m", discard_of=E)
    table.wait(0.5)
    table.declare(N)  # West has not discarded yet
    table.wait(3.1)
    result = replays_the_same(table)
    assert [(w.place, w.discarder, w.win_tile) for w in result.wins] == [
        (N, E, table.tiles.kind(discard))
    ]
    assert IncidentKind.FALSE_WIN not in [i.kind for i in result.incidents]
    assert [(i.place, i.kind, i.ruling) for i in result.incidents] == [
        (W, IncidentKind.CLAIM_VOID, Ruling.WIN_OVER_LAID_SET)
    ]
    play = table.referee.play
    assert play.seats[W].melds == [] and len(play.seats[W].concealed) == 13
    assert play.penalty_tiles[N].all == frozenset() and play.penalty_tiles[W].all == frozenset()
    assert result.seats[W].melds == ()


def test_r_claim_4_a_press_after_the_claimer_discarded_is_on_the_newest_discard() -> None:
    table = Table("zung-jung", WINS_ON_5M)
    table.discard(E, "5m")
    table.meld(W, "55m", discard_of=E)
    table.discard(W, "1z")
    table.declare(N)  # North waits on 5m, not on West's 1z
    table.wait(3.1)
    play = table.referee.play
    assert play.wins == []
    assert [str(m.meld(table.tiles)) for m in play.seats[W].melds] == ["pung:555m"]
    assert [(i.place, i.kind) for i in said(table)] == [(N, IncidentKind.FALSE_WIN)]


def test_r_claim_5_a_pung_laid_out_seconds_after_the_discard_before_the_next_draw_is_a_claim() -> (
    None
):
    table = Table("zung-jung", HANDS)
    table.discard(E, "5m")
    table.wait(6.0)  # longer than the claim window's time
    table.meld(W, "55m", discard_of=E)
    assert moves(table)[-1] == (W, MoveKind.PUNG)
    table.discard(W, "1z")
    table.draw(N)
    assert said(table) == []
    assert table.referee.play.rights[W] == Rights.ALL


def test_r_claim_6_a_win_declared_after_the_next_draw_is_refused_as_late() -> None:
    table = Table("zung-jung", WINS_ON_5M)
    table.discard(E, "5m")
    table.wait(3.1)
    table.draw(S)
    table.declare(N)
    table.wait(3.1)
    play = table.referee.play
    assert play.wins == []
    assert kinds(table) == [(N, IncidentKind.LATE_CLAIM, Ruling.LATE_WIN)]
    assert play.penalty_tiles[N].all == frozenset() and play.rights[N] == Rights.ALL


def test_r_claim_7_a_quick_draw_ends_the_claims_and_is_no_fault() -> None:
    table = Table("zung-jung", HANDS)
    table.discard(E, "5m")
    table.wait(0.3)
    table.draw(S)  # 0.3 s after the discard
    table.meld(W, "55m", discard_of=E)
    assert MoveKind.PUNG not in [kind for _, kind in moves(table)]
    assert [(i.place, i.kind) for i in said(table)] == [(W, IncidentKind.LATE_CLAIM)]


def test_r_claim_8_a_win_on_an_added_kongs_tile_robs_the_kong() -> None:
    table = robbed_kong()  # S adds a kong's fourth tile; N takes it and declares
    play = table.referee.play
    [win] = play.wins
    assert (win.place, win.discarder, win.win_type.value) == (N, S, "robbing-kong")
    assert [p.reason for p in play.payments] == ["robbing-kong win"], "the kong is not paid"


# ---- wrong claims -----------------------------------------------------------------------


def test_r_wrong_1_a_chow_from_the_wrong_seat_is_refused_its_tiles_live_penalty_tiles() -> None:
    table = Table("zung-jung", HANDS)
    five = table.discard(E, "5m")
    own = [table.uid(N, "4m"), table.uid(N, "6m")]
    table.meld(N, "46m", discard_of=E)  # North is not East's next seat
    play = table.referee.play
    assert MoveKind.CHOW not in [kind for _, kind in moves(table)]
    assert kinds(table) == [(N, IncidentKind.WRONG_CLAIM, Ruling.WRONG_SEAT_CHOW)]
    assert play.penalty_tiles[N].live == frozenset(own)
    assert play.rights[N] == Rights.ALL
    put_back(table, five, E, Zone.DISCARD)  # the discard goes back: it may still be claimed
    table.meld(W, "55m", discard_of=E)
    assert moves(table)[-1] == (W, MoveKind.PUNG)
    table.discard(W, "1z")
    table.wait(12.0)  # longer than a stray tile waits: the penalty tiles lie face up
    assert len(said(table)) == 1


def test_r_wrong_2_a_set_that_does_not_fit_is_refused_its_tiles_live_penalty_tiles() -> None:
    table = Table("zung-jung", HANDS)
    table.discard(E, "5m")
    own = [table.uid(S, "2p"), table.uid(S, "3p")]
    table.meld(S, "2p3p", discard_of=E)  # 2p 3p and 5m make no set
    patient(table)
    play = table.referee.play
    assert [kind for _, kind in moves(table)] == [MoveKind.DISCARD]
    assert kinds(table) == [(S, IncidentKind.WRONG_CLAIM, Ruling.SET_DOES_NOT_FIT)]
    assert play.penalty_tiles[S].live == frozenset(own)
    assert play.rights[S] == Rights.ALL


def test_r_wrong_3_a_set_laid_out_after_the_next_draw_is_refused_without_losing_rights() -> None:
    table = Table("zung-jung", HANDS)
    five = table.discard(E, "5m")
    table.draw(S)
    own = [u for u in sorted(table.zones[(W, Zone.HAND)]) if table.tiles.kind(u) == 4]
    table.meld(W, "55m", discard_of=E)
    play = table.referee.play
    assert MoveKind.PUNG not in [kind for _, kind in moves(table)]
    assert kinds(table) == [(W, IncidentKind.LATE_CLAIM, Ruling.LATE_SET)]
    assert play.penalty_tiles[W].live == frozenset(own)
    assert play.rights[W] == Rights.ALL
    put_back(table, five, E, Zone.DISCARD)
    table.discard(S, "7z")
    table.draw(W)
    table.wait(12.0)
    assert len(said(table)) == 1, "West's count is right: nothing more to say"


def test_r_wrong_4_a_set_by_a_seat_that_lost_the_right_to_claim_is_refused() -> None:
    table = Table("zung-jung", HANDS, draws="2z3z4z6z8s")
    table.discard(E, "7z")
    tsumogiri(table, S)
    table.draw(W)
    table.draw(W)  # a second tile: a long hand
    patient(table)
    table.discard(W, "1z")
    tsumogiri(table, N)
    table.draw(E)
    table.discard(E, "5m")
    own = [u for u in sorted(table.zones[(W, Zone.HAND)]) if table.tiles.kind(u) == 4]
    table.meld(W, "55m", discard_of=E)
    play = table.referee.play
    assert MoveKind.PUNG not in [kind for _, kind in moves(table)]
    assert kinds(table) == [
        (W, IncidentKind.LONG_HAND, Ruling.SECOND_DRAW),
        (W, IncidentKind.RIGHT_LOST, Ruling.NO_RIGHT_TO_CLAIM),
    ]
    assert play.penalty_tiles[W].live == frozenset(own)


def test_r_wrong_5_a_pung_on_the_last_discard_is_refused() -> None:
    hands = {0: ZJ_E, 1: "46m111p222p333p99p", 2: "78m111s222s333s99s", 3: "3377m88m55s9s5566z"}
    table = Table("zung-jung", hands, draws=filler("zung-jung", hands, 68, "5m6m7m9m") + "7m")
    table.discard(E, "1z")
    for turn in range(69):
        tsumogiri(table, (1 + turn) % 4)
    table.meld(N, "77m", discard_of=S)
    assert [(i.place, i.kind, i.ruling) for i in said(table)] == [
        (N, IncidentKind.WRONG_CLAIM, Ruling.LAST_DISCARD_SET)
    ]
    assert len(table.referee.play.penalty_tiles[N].live) == 2
    table.wait(3.1)
    result = replays_the_same(table)
    assert result.reason == "the wall is empty" and result.wins == ()


# ---- short and long hands ---------------------------------------------------------------


def test_r_count_1_a_discard_without_a_draw_is_a_short_hand() -> None:
    table = Table("zung-jung", HANDS)
    table.discard(E, "5m")
    table.wait(3.1)
    table.discard(S, "7z")  # South forgot to draw
    patient(table)
    assert kinds(table) == [(S, IncidentKind.SHORT_HAND, Ruling.DISCARD_UNDRAWN)]
    assert table.referee.play.rights[S] == Rights.ALL & ~Rights.WIN


def test_r_count_2_a_second_draw_is_a_long_hand() -> None:
    table = Table("zung-jung", HANDS)
    table.discard(E, "5m")
    table.draw(S)
    table.draw(S)
    patient(table)
    assert kinds(table) == [(S, IncidentKind.LONG_HAND, Ruling.SECOND_DRAW)]
    assert table.referee.play.rights[S] == Rights.NONE


def test_r_count_3_drawing_out_of_turn_is_a_long_hand_of_the_drawer() -> None:
    table = Table("zung-jung", HANDS)
    table.discard(E, "7z")
    table.wait(3.1)
    drawn = table.draw(W)  # South was on turn
    patient(table)
    play = table.referee.play
    assert play.rights[W] == Rights.NONE, "no win, claim or kong this hand"
    assert table.referee.turn == W
    table.move([drawn], W, Zone.DISCARD)
    tsumogiri(table, N)
    table.draw(E)
    table.discard(E, "5m")
    table.meld(W, "55m", discard_of=E)  # a later pung is refused
    assert MoveKind.PUNG not in [kind for _, kind in moves(table)]
    assert [(i.place, i.kind) for i in said(table)] == [
        (W, IncidentKind.DRAW_OUT_OF_TURN),
        (W, IncidentKind.RIGHT_LOST),
    ]
    assert said(table)[0].ruling is Ruling.DRAW_OUT_OF_TURN


def test_r_count_4_a_second_discard_is_a_short_hand_and_the_newest_may_be_claimed() -> None:
    table = Table("zung-jung", {**HANDS, 0: "19m19p19s1234567z7s"})
    table.discard(E, "1m")
    table.discard(E, "7s")
    table.meld(S, "89s", discard_of=E)
    assert kinds(table) == [(E, IncidentKind.SHORT_HAND, Ruling.SECOND_DISCARD)]
    assert moves(table)[-1] == (S, MoveKind.CHOW)


def test_r_count_5_a_short_hand_that_declares_is_refused() -> None:
    table = Table("zung-jung", HANDS)
    table.discard(E, "5m")
    table.discard(E, "1m")
    patient(table)
    for place in (S, W, N):
        tsumogiri(table, place)
    table.draw(E)
    table.declare(E)
    table.wait(2.0)
    assert kinds(table)[1:] == [(E, IncidentKind.RIGHT_LOST, Ruling.RIGHT_LOST)]


# ---- turn order -------------------------------------------------------------------------


def test_r_turn_1_after_a_discard_without_a_draw_the_next_seat_draws_in_turn() -> None:
    table = Table("zung-jung", HANDS)
    table.discard(E, "5m")
    table.wait(3.1)
    table.discard(S, "7z")  # without a draw
    table.wait(1.0)
    drawn = table.draw(W)  # West's proper turn
    patient(table)
    table.move([drawn], W, Zone.DISCARD)
    patient(table)
    assert [(i.place, i.kind) for i in said(table)] == [(S, IncidentKind.SHORT_HAND)]
    assert moves(table)[-2:] == [(W, MoveKind.DRAW), (W, MoveKind.DISCARD)]
    assert table.referee.turn == N


# ---- false wins -------------------------------------------------------------------------


def test_r_win_1_a_false_win_goes_on_with_the_hand_as_live_penalty_tiles() -> None:
    table = Table("zung-jung", HANDS)
    table.discard(E, "5m")
    table.draw(S)
    table.declare(S)
    table.wait(2.0)
    play = table.referee.play
    assert kinds(table) == [(S, IncidentKind.FALSE_WIN, Ruling.FALSE_WIN)]
    assert play.penalty_tiles[S].live == play.seats[S].concealed
    assert play.rights[S] == Rights.ALL
    table.discard(S, "7z")
    assert moves(table)[-1] == (S, MoveKind.DISCARD), "play goes on"


def test_r_win_2_a_press_out_of_turn_with_no_discard_open_is_a_false_win() -> None:
    table = Table("zung-jung", HANDS)
    table.declare(N)  # East is on turn and has not discarded
    table.wait(3.5)
    assert kinds(table) == [(N, IncidentKind.FALSE_WIN, Ruling.DECLARED_OUT_OF_TURN)]


# ---- penalty tiles ----------------------------------------------------------------------


def false_winner(table: Table) -> None:
    """East throws 7z, South draws and throws, West draws and declares a win it has not."""
    table.discard(E, "7z")
    tsumogiri(table, S)
    table.draw(W)
    table.declare(W)
    table.wait(2.0)


def test_r_pen_1_a_set_with_a_penalty_tile_is_a_wrong_claim() -> None:
    table = Table("zung-jung", HANDS, draws="2z3z4z6z")
    false_winner(table)
    table.discard(W, "1z")
    tsumogiri(table, N)
    table.draw(E)
    table.discard(E, "5m")
    table.meld(W, "55m", discard_of=E)
    assert MoveKind.PUNG not in [kind for _, kind in moves(table)]
    assert kinds(table)[1:] == [(W, IncidentKind.PENALTY_TILE_USED, Ruling.PENALTY_TILE_IN_SET)]
    assert table.referee.play.rights[W] == Rights.ALL


def test_r_pen_2_a_penalty_tile_added_to_a_pung_is_no_kong() -> None:
    table = Table("zung-jung", HANDS, draws="2z3z4z5m")
    table.discard(E, "5m")
    table.meld(W, "55m", discard_of=E)
    table.discard(W, "1z")
    for place in (N, E, S):
        tsumogiri(table, place)
    fourth = table.draw(W)  # the fourth 5m
    table.declare(W)  # a false win: the hand's tiles are penalty tiles
    table.wait(2.0)
    table.move([fourth], W, Zone.MELD)
    patient(table)
    play = table.referee.play
    assert MoveKind.ADDED_KONG not in [kind for _, kind in moves(table)]
    assert kinds(table)[1:] == [(W, IncidentKind.PENALTY_TILE_USED, Ruling.PENALTY_TILE_IN_KONG)]
    assert fourth in play.penalty_tiles[W].all
    assert table.referee.turn == W and play.need.value == "discard", "no replacement"


def test_r_pen_3_a_live_penalty_tile_thrown_is_none_and_the_others_die() -> None:
    table = Table("zung-jung", HANDS, draws="2z3z4z6z")
    false_winner(table)
    thrown = table.discard(W, "1z")
    penalty = table.referee.play.penalty_tiles[W]
    assert thrown not in penalty.all
    assert penalty.live == frozenset() and len(penalty.dead) == 13


def test_r_pen_4_penalty_tiles_in_a_concealed_kong_are_penalty_tiles_no_more() -> None:
    table = Table("zung-jung", {**HANDS, 2: "222s3s778899p1z55m"}, draws="2z2s")
    false_winner(table)  # West draws the fourth 2s and declares
    four = [u for u in sorted(table.zones[(W, Zone.HAND)]) if table.tiles.kind(u) == 19]
    table.move(four, W, Zone.MELD)
    play = table.referee.play
    assert moves(table)[-1] == (W, MoveKind.CONCEALED_KONG)
    assert not play.penalty_tiles[W].all & set(four)
    assert len(play.penalty_tiles[W].all) == 10


# ---- sensor glitches --------------------------------------------------------------------


def test_r_sensor_1_a_missed_read_is_no_move_and_a_tile_gone_for_good_left_the_table() -> None:
    table = Table("zung-jung", HANDS)
    flicker = table.uid(S, "7z")
    table.zones[(S, Zone.HAND)].discard(flicker)
    table.read((S, Zone.HAND))
    table.zones[(S, Zone.HAND)].add(flicker)
    table.read((S, Zone.HAND))
    gone = table.uid(N, "9s")
    table.zones[(N, Zone.HAND)].discard(gone)
    table.read((N, Zone.HAND))
    for _ in range(12):
        table.wait(1.0)
    assert moves(table) == []
    assert kinds(table) == [(N, IncidentKind.TILE_LEFT_TABLE, Ruling.MISSED_READ)]


def test_r_sensor_2_a_tag_read_in_two_zones_at_once_is_read_again_never_a_move() -> None:
    table = Table("zung-jung", HANDS)
    five = table.discard(E, "5m")
    table.out.clear()
    table.zones[(S, Zone.HAND)].add(five)  # cross-talk: also read by South's HAND antenna
    table.read((S, Zone.HAND))
    table.wait(2.0)
    assert moves(table) == [(E, MoveKind.DISCARD)]
    assert any(isinstance(o, ReadAgain) for o in table.out)
    table.zones[(S, Zone.HAND)].discard(five)
    table.read((S, Zone.HAND))
    table.wait(3.1)
    tsumogiri(table, S)
    table.wait(12.0)
    assert said(table) == []
    assert [kind for _, kind in moves(table)] == [MoveKind.DISCARD, MoveKind.DRAW, MoveKind.DISCARD]


def test_r_sensor_3_a_tag_of_no_tile_set_is_said_once_and_takes_no_part() -> None:
    table = Table("zung-jung", HANDS)
    table.zones[(S, Zone.HAND)].add(0xBAD0_0001)
    table.discard(E, "5m")
    table.draw(S)
    table.discard(S, "7z")
    table.wait(12.0)
    assert kinds(table) == [(S, IncidentKind.UNKNOWN_TILE, Ruling.UNKNOWN_TAG)]


def test_r_sensor_3_a_tag_of_no_tile_set_in_one_damaged_read_is_read_again_never_said() -> None:
    # A zone page damaged in two bytes can pass the line's 16-bit checksum: its tags are no
    # tags of the set. The read again shows the zone as it is.
    table = Table("zung-jung", HANDS)
    table.discard(E, "5m")
    table.misread((S, Zone.HAND), 0xE004_52AB_05D3_18E1, 0xE004_F6C6_7BFD_36F4)
    table.draw(S)
    table.discard(S, "7z")
    table.wait(12.0)
    assert said(table) == []
    assert [kind for _, kind in moves(table)] == [MoveKind.DISCARD, MoveKind.DRAW, MoveKind.DISCARD]


def test_r_sensor_4_a_discard_and_the_next_draw_in_one_read_are_both_moves() -> None:
    # East has drawn again (its second turn) when its discard and South's draw are read
    # together: a discard, then the next seat's draw.
    table = Table("zung-jung", HANDS)
    table.discard(E, "5m")
    for place in (S, W, N):
        tsumogiri(table, place)
    drawn = table.draw(E)
    table.zones[(E, Zone.HAND)].discard(drawn)
    table.zones[(E, Zone.DISCARD)].add(drawn)
    nxt = next(u for u in table.live if u not in table.taken)
    table.taken.add(nxt)
    table.zones[(S, Zone.HAND)].add(nxt)
    table.read((E, Zone.HAND), (E, Zone.DISCARD), (S, Zone.HAND))
    patient(table)
    assert moves(table)[-2:] == [(E, MoveKind.DISCARD), (S, MoveKind.DRAW)]
    table.wait(12.0)
    assert said(table) == []


def test_r_sensor_5_tiles_moved_outside_play_are_stray_tiles_said_once() -> None:
    table = Table("zung-jung", HANDS)
    table.move([table.uid(N, "9s")], W, Zone.MELD)  # North's tile in West's MELD zone
    table.wait(12.0)
    assert kinds(table) == [(None, IncidentKind.STRAY_TILES, Ruling.STRAY_TILES)]


def test_r_sensor_5_a_replacement_taken_as_a_stray_is_the_draw_of_a_kong_read_later() -> None:
    # East lays out a concealed kong of East winds and takes its replacement from the wall's
    # end; the MELD antenna reads the kong only after the strays time, so the replacement was
    # taken as a stray by then. It is the kong's replacement: no long hand, no second
    # replacement waited for, and play goes on with East's discard.
    hands = {0: "1111z234567m789p5s", 1: "123456789s6667z", 2: "2345678p234567s"}
    table = Table("zung-jung", {**hands, 3: "2345678m22z33z44z"}, replacements="9m9m")
    replacement = table.replace(E)
    table.wait(15.0)
    assert kinds(table) == [(None, IncidentKind.STRAY_TILES, Ruling.STRAY_TILES)]
    table.meld(E, "1111z")
    assert moves(table) == [(E, MoveKind.CONCEALED_KONG), (E, MoveKind.REPLACEMENT)]
    assert table.referee.play.moves[-1].tiles == (table.tiles.kind(replacement),)
    table.discard(E, "5s")
    assert moves(table)[-1] == (E, MoveKind.DISCARD)
    assert table.referee.turn == S
    assert [kind for _, kind, _ in kinds(table)] == [IncidentKind.STRAY_TILES]


ORPHANS_WAIT = {0: "19m19p19s1234567z2z", 1: "8p5566s77s88s3456z", 2: "2233s778899p1z55m"}
"""East holds thirteen orphans (waiting on all 13) after throwing its 2z; North's hand is the
test's own."""


def _at_norths_turn(north: str, draws: str, replacements: str = "") -> Table:
    """East throws its 2z, South and West throw what they draw: North is on turn."""
    table = Table("zung-jung", {**ORPHANS_WAIT, 3: north}, draws=draws, replacements=replacements)
    table.discard(E, "2z")
    for place in (S, W):
        tsumogiri(table, place)
    table.wait(3.1)
    return table


def _taken_by_east_unseen(table: Table, tail: bool) -> RefereeResult:
    """North's next tile (the wall's next, or its end's) lies in East's hand at the next read,
    North's throw of it unread; East presses declare after that read."""
    wall = table.tail if tail else table.live
    uid = next(u for u in wall if u not in table.taken)
    table.taken.add(uid)
    table.zones[(E, Zone.HAND)].add(uid)
    table.read((E, Zone.HAND))
    table.declare(E)
    table.wait(3.1)
    table.wait(3.1)
    return replays_the_same(table)


def test_r_sensor_4_a_draw_its_discard_and_the_take_to_win_in_one_read_are_three_moves() -> None:
    # North draws a 1m and throws it at once, East takes it to win and presses declare, all
    # before one read: North's draw and discard and East's take, not a draw out of turn.
    table = _at_norths_turn("46m111p222p333p55s", draws="2s3s1m")
    result = _taken_by_east_unseen(table, tail=False)
    assert [(m.place, m.kind) for m in result.moves][-4:] == [
        (N, MoveKind.DRAW),
        (N, MoveKind.DISCARD),
        (E, MoveKind.TAKE_FOR_WIN),
        (E, MoveKind.WIN),
    ]
    assert result.incidents == ()


def test_r_sensor_4_a_replacement_its_discard_and_the_take_to_win_read_before_the_press() -> None:
    # North lays out a concealed kong, takes its replacement (a 1m) from the wall's end and
    # throws it at once; East takes it to win. The read shows the 1m in East's hand before
    # East's press comes: the press explains it. North's replacement, its discard and East's
    # take, not a late declaration and a replacement waited for that nobody will draw.
    table = _at_norths_turn("46m111p222p333p55s", draws="2s3s2p", replacements="1m")
    table.draw(N)
    table.meld(N, "2222p")
    result = _taken_by_east_unseen(table, tail=True)
    assert [(m.place, m.kind) for m in result.moves][-5:] == [
        (N, MoveKind.CONCEALED_KONG),
        (N, MoveKind.REPLACEMENT),
        (N, MoveKind.DISCARD),
        (E, MoveKind.TAKE_FOR_WIN),
        (E, MoveKind.WIN),
    ]
    assert result.incidents == ()


def test_r_sensor_4_at_the_walls_end_a_replacement_read_before_its_flower_is_no_second_draw() -> (
    None
):
    # Every seat throws what it draws; a seat that draws a flower takes its replacement before
    # the flower is read in its MELD zone. At the wall's last tiles the replacement is also the
    # next tile to draw: still the flower's replacement, not a second draw (a long hand).
    table = Table("shanghai", SHANGHAI_HANDS)
    table.discard(E, "1z")
    play = table.referee.play

    def a_flower(uid: int) -> bool:
        return is_flower(table.tiles.kind(uid) or 0)

    flowers = 0
    while not table.referee.over:
        table.wait(3.1)  # no claim
        place = table.referee.turn
        assert place is not None
        uid = table.draw(place)
        while a_flower(uid) and play.wall.remaining > 0:
            flowers += 1
            flower, uid = uid, table.replace(place)
            table.move([flower], place, Zone.MELD)
        if not a_flower(uid):
            table.move([uid], place, Zone.DISCARD)
        else:
            table.move([uid], place, Zone.MELD)  # the last tile, a flower: the wall is out
            table.wait(3.1)
    assert flowers >= 6  # the flowers lie at the wall's end here
    assert table.incidents() == []
    result = replays_the_same(table)
    kinds_after_flowers = [
        m.kind for before, m in pairwise(result.moves) if before.kind is MoveKind.FLOWER
    ]
    assert set(kinds_after_flowers) <= {MoveKind.REPLACEMENT, MoveKind.FLOWER}, kinds_after_flowers


# ---- where the rows show ----------------------------------------------------------------


def test_the_result_the_black_box_and_replay_name_the_row_each_ruling_applied(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = Table("zung-jung", HANDS)
    five = table.discard(E, "5m")
    table.meld(N, "46m", discard_of=E)  # a wrong-seat chow
    put_back(table, five, E, Zone.DISCARD)
    table.draw(S)
    table.declare(W)  # after the next draw
    table.wait(3.5)
    table.feed(EndNow("the venue ends the hand"))
    result = replays_the_same(table)  # the black box gives the same rows again
    incidents = result_json(result)["incidents"]
    assert isinstance(incidents, list)
    rows = [(i["seat"], i["ruling"]) for i in incidents]
    assert rows == [(N, "R-WRONG-1"), (W, "R-CLAIM-6")]
    box = tmp_path / "hand.jsonl"
    box.write_bytes(
        b"".join(line if line.endswith(b"\n") else line + b"\n" for line in table.box.lines)
    )
    capsys.readouterr()
    assert main(["replay", str(box)]) == 0
    out = capsys.readouterr().out
    assert "incident [R-WRONG-1]: chow on the" in out and "incident [R-CLAIM-6]" in out


def test_r_claim_3_in_a_blood_battle_the_voided_sets_tiles_go_back_and_play_goes_on() -> None:
    # Sichuan: the hand goes on after the win. West's own tiles go back to its hand and the
    # discard to the winner: none of it is a move out of turn, a stray or a short hand.
    hands = {
        0: "5p111m333m444m666m9m",
        1: "222m555m777m888m9m",
        2: "55p22s33s44s77s88s9s",
        3: "46p111s666s999s33p",
    }
    table = Table("sichuan", hands)
    five = table.discard(E, "5p")
    own = [u for u in sorted(table.zones[(W, Zone.HAND)]) if table.tiles.kind(u) == 13]
    table.meld(W, "55p", discard_of=E)
    table.declare(N)
    table.wait(3.1)
    play = table.referee.play
    assert [(w.place, w.discarder) for w in play.wins] == [(N, E)]
    table.move([five], N, Zone.HAND)
    table.move(own, W, Zone.HAND)
    for place in (E, S, W):
        tsumogiri(table, place)
    table.wait(12.0)
    assert kinds(table) == [(W, IncidentKind.CLAIM_VOID, Ruling.WIN_OVER_LAID_SET)]
    assert play.seats[W].melds == [] and len(play.seats[W].concealed) == 13
