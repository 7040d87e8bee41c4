"""Time penalties charged by the clocks reach the hand's result and the venue's export: the
penalty points per seat, and what they were for."""

import csv
import io

from controller.clock import ManualClock
from controller.hub.contract.envelopes import ResultMessage, decode, encode
from controller.hub.contract.result import WallReveal
from controller.hub.table_side.table_report import hand_result
from controller.rules import Seat, get_ruleset, tile_str
from controller.table.clocks import TableClocks
from controller.table.records import FinishedHand, HandStart, IncidentKind, IncidentRecord, Instant
from controller.venue.export import standings, write_results
from controller.venue.store import StoredResult

WMC = get_ruleset("zung-jung")
PLAYERS = ("ann", "bo", "cy", "di")


def _slow_hand() -> tuple[FinishedHand, list[IncidentRecord]]:
    """North takes 100 s over one turn (after the grace): 6 turn steps, 30 points."""
    clock = ManualClock(start=50.0)

    def now() -> Instant:
        return Instant(clock.monotonic(), clock.wall())

    start = HandStart(
        "s-1", 1, "zung-jung", Seat.E, 0, PLAYERS, tuple(Seat), (3, 4, 2, 5), (0, 1, 2), now()
    )
    clocks = TableClocks(WMC.timing, dealt_at=clock.monotonic())
    clock.advance(20)
    clocks.turn_starts(3, clock.monotonic())
    clock.advance(100)
    records = clocks.incidents(clocks.turn_ends(3, clock.monotonic()), now())
    hand = FinishedHand(start, (), (0, 0, 0, 0), tuple(records), now())
    return hand, records


def test_clock_penalties_add_up_in_the_result_and_the_export() -> None:
    hand, records = _slow_hand()
    assert {r.kind for r in records} == {IncidentKind.TURN_TIME} and len(records) == 6
    assert hand.penalties == (0, 0, 0, -30)
    reveal = WallReveal.seal([tile_str(k) for k in hand.start.wall_order])
    result = hand_result(hand, reveal)
    assert result.penalties == [0, 0, 0, -30] and result.totals() == [0, 0, 0, -30]
    message = ResultMessage(
        result=result, table="t1", boot=1, seq=1, id="0" * 32, ts=result.ended_at
    )
    stored = StoredResult(message.id, "t1", 1, "ok", encode(message))
    rows = [(stored, decode(stored.payload, ResultMessage))]
    out = io.StringIO()
    write_results(rows, out)
    row = next(csv.DictReader(io.StringIO(out.getvalue())))
    assert (row["N_player"], row["N_penalty"], row["E_penalty"]) == ("di", "-30", "0")
    assert row["penalty_detail"] == "di:turn_time -30"
    table = {s.player: (s.penalties, s.total) for s in standings(rows)}
    assert table["di"] == (-30, -30) and table["ann"] == (0, 0)
