"""The recorder gets what it lacks: a fresh store asks a table for everything it holds, a hole
is asked for exactly, and not forever; a table whose outbox was wiped is flagged to the venue
and its new results are recorded as the new hands they are."""

import sqlite3
import time
from pathlib import Path

import pytest

from controller.cli import main
from controller.clock import ManualClock
from controller.hub.contract.result import WallReveal
from controller.hub.contract.table_events import HandStarted
from devsupport.mosquitto import Broker
from tests.hub.factories import PLAYERS, WALL, SessionBook, hand_result
from tests.hub.helpers import (
    eventually,
    let_pass,
    make_link,
    make_recorder,
    retained_status,
    running,
)

pytestmark = pytest.mark.broker


async def test_a_recorder_with_a_fresh_store_gets_everything_the_table_holds(
    broker: Broker, tmp_path: Path
) -> None:
    link = make_link(broker.url, tmp_path / "outbox.db", SessionBook())
    async with running(link.run()):
        first = make_recorder(broker.url, tmp_path / "lost.db")
        async with running(first.run()):
            ids = {link.record_result(hand_result(h)).id for h in range(1, 6)}
            await eventually(lambda: link.pending_results == 0, "five results acked")
        fresh = make_recorder(broker.url, tmp_path / "fresh.db")  # the old store is gone
        async with running(fresh.run()):
            await eventually(lambda: fresh.store.sync.count() == 5, "the fresh store has all five")
    assert {s.id for s in fresh.store.sync.results()} == ids
    assert fresh.store.sync.notices() == []


async def test_results_lost_from_the_stores_tail_come_back_when_the_recorder_restarts(
    broker: Broker, tmp_path: Path
) -> None:
    link = make_link(broker.url, tmp_path / "outbox.db", SessionBook())
    db = tmp_path / "hub.db"
    async with running(link.run()):
        recorder = make_recorder(broker.url, db)
        async with running(recorder.run()):
            [link.record_result(hand_result(h)) for h in range(1, 6)]
            await eventually(lambda: link.pending_results == 0, "five results acked")
        recorder.store.close()
        with sqlite3.connect(db) as restored_from_backup:
            restored_from_backup.execute("DELETE FROM results WHERE seq >= 4")
        recorder = make_recorder(broker.url, db)
        async with running(recorder.run()):
            await eventually(lambda: recorder.store.sync.count() == 5, "seq 4 and 5 back")
    assert recorder.counters.duplicates == 0, "only what was missing was sent again"


async def test_a_hole_the_table_no_longer_holds_is_asked_for_a_few_times_then_noted(
    broker: Broker, tmp_path: Path
) -> None:
    link = make_link(broker.url, tmp_path / "outbox.db", SessionBook(), keep_acked=2)
    db = tmp_path / "hub.db"
    async with running(link.run()):
        recorder = make_recorder(broker.url, db)
        async with running(recorder.run()):
            for h in range(1, 7):
                link.record_result(hand_result(h))
                await eventually(lambda: link.pending_results == 0, f"result {h} acked")
        recorder.store.close()
        with sqlite3.connect(db) as damaged:
            damaged.execute("DELETE FROM results WHERE seq = 2")  # long pruned on the table
        clock = ManualClock(wall_start=time.time())  # commands expire by the wall clock
        recorder = make_recorder(broker.url, db, clock=clock)
        async with running(recorder.run()):
            for _ in range(200):
                if recorder.store.sync.notices():
                    break
                await let_pass(clock, 1.0, recorder)
            asks = recorder.gaps.asks
            await let_pass(clock, 3600.0, recorder)
            assert recorder.gaps.asks == asks, "no more asking once noted"
    [notice] = recorder.store.sync.notices()
    assert notice.kind == "missing"
    assert notice.text.startswith("results 2-2 of table t1 (outbox ") and notice.text.endswith(
        "never arrived although asked for 5 times: the table no longer holds them or cannot "
        "send them"
    )
    assert recorder.store.sync.count() == 5


def _wipe(outbox: Path) -> None:
    for part in outbox.parent.glob(outbox.name + "*"):
        part.unlink()


async def test_a_wiped_outbox_is_flagged_and_its_results_are_new_hands(
    broker: Broker, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    recorder = make_recorder(broker.url, tmp_path / "hub.db")
    path = tmp_path / "outbox.db"
    async with running(recorder.run()):
        before = make_link(broker.url, path, SessionBook())
        async with running(before.run()):
            for hand in range(1, 6):  # hands 4 and 5 begin, but their results die with the file
                before.publish_event(_started(hand))
            old = [before.record_result(hand_result(h)).id for h in range(1, 4)]
            await eventually(
                lambda: (
                    before.pending_results == 0
                    and recorder.store.sync.commitment("t1", "s1", 5) is not None
                ),
                "three results acked, five hands seen to begin",
            )
        before.outbox.close()
        _wipe(path)  # the SD card was replaced: the outbox starts from nothing
        after = make_link(broker.url, path, SessionBook())
        async with running(after.run()):
            new = [after.record_result(hand_result(h, session="s2")) for h in range(1, 3)]
            await eventually(lambda: after.pending_results == 0, "two new results acked")
            status = await retained_status(broker.url)
    assert status.link.outbox_new, "the table says its outbox began anew"
    assert [r.seq for r in new] == [1, 2]
    assert {s.id for s in recorder.store.sync.results()} == set(old) | {r.id for r in new}
    assert recorder.counters.duplicates == 0
    [notice] = recorder.store.sync.notices()
    assert notice.kind == "outbox_reset" and notice.table == "t1"
    assert notice.text.startswith(
        f"table t1 started a new outbox ({after.outbox.id[:8]}): its result numbers begin "
        f"again; the previous outbox ({before.outbox.id[:8]}) had reached seq 3."
    )
    assert "2 hands began but their results never came: s1 hand 4, s1 hand 5" in notice.text
    assert main(["hub", "notices", "--db", str(tmp_path / "hub.db")]) == 0
    assert f"  t1  outbox_reset: {notice.text}" in capsys.readouterr().out


def _started(hand: int) -> HandStarted:
    commitment = WallReveal.seal(WALL).commitment
    return HandStarted(session="s1", hand=hand, ruleset="zung-jung", round_wind="E", dealer=0,
                       players=list(PLAYERS), wall_commitment=commitment)  # fmt: skip
