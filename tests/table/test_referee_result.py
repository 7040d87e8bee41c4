"""The referee's account of a hand goes into the hub's result: every move, the final tiles,
the settlements adding up to the payments; a result from before the referee still reads, and
the CSV export has columns for the win types and the moves."""

import msgspec
import pytest

from controller.hub.contract.result import HandResult, WallReveal
from controller.hub.table_side.table_report import hand_result
from controller.rules import Seat, tile_str
from controller.table.play import win_record
from controller.table.records import FinishedHand, HandStart, Instant
from controller.venue.export import RESULT_COLUMNS
from tests.table.scripted import Table

ZJ_E = "19m19p19s1234567z5m"


def finished_hand() -> FinishedHand:
    table = Table(
        "zung-jung",
        {0: ZJ_E, 1: "46m111p222p333p99p", 2: "2233s4466s6m2345z", 3: "55m777p888s999s11z"},
    )
    table.discard(0, "5m")
    table.take_discard(1, of=0)
    table.declare(1)
    table.wait(3.1)
    play = table.result
    start = HandStart(
        "s-1", 1, "zung-jung", Seat.E, 0, ("ann", "bo", "cy", "di"), tuple(Seat),
        (3, 4, 2, 2), tuple(table.tiles.kind(u) or 0 for u in table.live), Instant(100.0, 1.7e9),
    )  # fmt: skip
    wins = tuple(win_record(w) for w in play.wins)
    return FinishedHand(start, wins, play.totals, play.incidents, play.ended_at, play)


def test_the_result_carries_moves_final_tiles_and_settlements() -> None:
    hand = finished_hand()
    reveal = WallReveal.seal([tile_str(k) for k in hand.start.wall_order])
    result = hand_result(hand, reveal)
    again = msgspec.json.decode(msgspec.json.encode(result), type=HandResult)
    assert [m.move for m in again.moves] == ["discard", "discard taken to win", "win"]
    assert again.wins[0].win_type == "earthly", "won on the dealer's first discard"
    assert again.wins[0].seat == 1
    assert [s.amounts for s in again.settlements] == [list(hand.payments)]
    assert again.final[1].concealed == "456m11122233399p"
    assert again.final[0].discards == ""


def test_settlements_that_do_not_add_up_to_the_payments_are_refused() -> None:
    hand = finished_hand()
    reveal = WallReveal.seal([tile_str(k) for k in hand.start.wall_order])
    payload = msgspec.to_builtins(hand_result(hand, reveal))
    payload["settlements"][0]["amounts"] = [0, 0, 0, 0]
    with pytest.raises(msgspec.ValidationError, match="add up to"):
        msgspec.json.decode(msgspec.json.encode(payload), type=HandResult)


def test_a_result_from_before_the_referee_still_reads() -> None:
    hand = finished_hand()
    reveal = WallReveal.seal([tile_str(k) for k in hand.start.wall_order])
    payload = msgspec.to_builtins(hand_result(hand, reveal))
    for key in ("moves", "final", "settlements"):
        del payload[key]
    del payload["wins"][0]["win_type"]
    old = msgspec.json.decode(msgspec.json.encode(payload), type=HandResult)
    assert old.moves == [] and old.wins[0].win_type is None
    assert RESULT_COLUMNS[-3:] == ["win_types", "moves", "seating"]
