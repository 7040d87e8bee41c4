"""The venue recorder: refuses forged results and says so, asks for what it is missing, audits
the wall, and keeps a retained hub/state whose will says offline."""

import asyncio
import sqlite3
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import aiomqtt
import pytest

from controller.clock import SystemClock
from controller.hub.contract.envelopes import (
    AckMessage,
    HubStateMessage,
    ResultMessage,
    decode,
    encode,
    new_header,
)
from controller.hub.contract.hub_commands import ReportStatus
from controller.hub.contract.result import WallReveal
from controller.hub.contract.signing import TableKey
from controller.hub.contract.table_events import HandStarted
from controller.hub.contract.topics import Topics
from controller.venue.recorder import make_command
from devsupport.mosquitto import Broker
from tests.hub.factories import (
    FAST,
    KEY_TEXT,
    OTHER_KEY_TEXT,
    PLAYERS,
    WALL,
    SessionBook,
    hand_result,
)
from tests.hub.helpers import eventually, make_link, make_recorder, running

pytestmark = pytest.mark.broker
TOPICS = Topics()


async def test_a_forged_result_is_refused_and_the_table_is_told(
    broker: Broker, tmp_path: Path
) -> None:
    recorder = make_recorder(broker.url, tmp_path / "hub.db")
    head = new_header("t1", 1, 1, SystemClock())
    forged = TableKey(OTHER_KEY_TEXT).sign(ResultMessage(result=hand_result(), **head))
    async with running(recorder.run()):
        await eventually(recorder.connected.is_set, "recorder online")
        async with aiomqtt.Client(broker.host, broker.port) as table:
            await table.subscribe(TOPICS.acks("t1"), qos=1)
            await table.publish(TOPICS.results("t1"), encode(forged), qos=1)
            async with asyncio.timeout(10):
                async for message in table.messages:
                    ack = decode(bytes(message.payload), AckMessage)
                    break
    assert ack.results == [] and [(r.id, r.reason) for r in ack.refused] == [
        (forged.id, "bad signature")
    ]
    assert recorder.store.sync.count() == 0
    assert recorder.store.sync.refusals() == [("t1", forged.id, "bad signature")]


async def test_a_result_on_another_tables_topic_is_refused(broker: Broker, tmp_path: Path) -> None:
    recorder = make_recorder(broker.url, tmp_path / "hub.db", tables=("t1", "t2"))
    head = new_header("t1", 1, 1, SystemClock())
    signed = TableKey(KEY_TEXT).sign(ResultMessage(result=hand_result(), **head))
    async with running(recorder.run()):
        await eventually(recorder.connected.is_set, "recorder online")
        async with aiomqtt.Client(broker.host, broker.port) as table:
            await table.publish(TOPICS.results("t2"), encode(signed), qos=1)
        await eventually(lambda: recorder.counters.refused == 1, "refusal")
    assert "came on table t2's topic" in recorder.store.sync.refusals()[0][2]


async def test_a_missing_result_is_asked_for_again(broker: Broker, tmp_path: Path) -> None:
    link = make_link(broker.url, tmp_path / "outbox.db", SessionBook())
    db = tmp_path / "hub.db"
    # A gap is asked for again after its grace; on a loaded machine seq 3 may be asked (and
    # come) twice, but never anything the recorder already holds.
    patient = replace(FAST, gap_grace_s=2.0)
    async with running(link.run()):
        recorder = make_recorder(broker.url, db)
        async with running(recorder.run()):
            receipts = [link.record_result(hand_result(h)) for h in range(1, 6)]
            await eventually(lambda: link.pending_results == 0, "first five acked")
        recorder.store.close()
        with sqlite3.connect(db) as restored_from_backup:
            restored_from_backup.execute("DELETE FROM results WHERE seq = 3")
        recorder = make_recorder(broker.url, db, timing=patient)
        async with running(recorder.run()):
            receipts.append(link.record_result(hand_result(6)))
            await eventually(lambda: recorder.store.sync.count() == 6, "seq 3 recovered")
            await eventually(lambda: link.pending_results == 0, "all resent results acked")
    assert recorder.counters.resend_requests >= 1
    assert {s.id for s in recorder.store.sync.results()} == {r.id for r in receipts}
    # Asking for more than seq 3 would bring back 1, 2, 4 and 5: four duplicates per ask.
    extra_asks = recorder.counters.resend_requests - 1
    assert recorder.counters.duplicates <= extra_asks, "only seq 3 was asked for"


async def test_the_wall_audit_flags_a_swapped_wall(broker: Broker, tmp_path: Path) -> None:
    link = make_link(broker.url, tmp_path / "outbox.db", SessionBook())
    recorder = make_recorder(broker.url, tmp_path / "hub.db")
    honest, committed = WallReveal.seal(WALL), WallReveal.seal(WALL)
    swapped = WallReveal.seal([WALL[4], *WALL[1:4], WALL[0], *WALL[5:]], salt=committed.salt)
    async with running(recorder.run()), running(link.run()):
        await eventually(recorder.connected.is_set, "recorder online")  # events are not kept
        for hand, wall in ((1, honest), (2, committed)):
            link.publish_event(
                HandStarted(session="s1", hand=hand, ruleset="zung-jung", round_wind="E",
                            dealer=0, players=list(PLAYERS), wall_commitment=wall.commitment)
            )  # fmt: skip
        await eventually(
            lambda: recorder.store.sync.commitment("t1", "s1", 2) is not None, "commitments"
        )
        ids = [
            link.record_result(hand_result(1, wall=honest)).id,
            link.record_result(hand_result(2, wall=swapped)).id,
            link.record_result(hand_result(3)).id,
        ]
        await eventually(lambda: link.pending_results == 0, "results acked")
    audit = {s.id: s.audit for s in recorder.store.sync.results()}
    assert [audit[i] for i in ids] == ["ok", "mismatch", "unverified"]


async def test_a_late_commitment_updates_the_audit(broker: Broker, tmp_path: Path) -> None:
    recorder = make_recorder(broker.url, tmp_path / "hub.db")
    wall = WallReveal.seal(WALL)
    link = make_link(broker.url, tmp_path / "outbox.db", SessionBook())
    async with running(recorder.run()), running(link.run()):
        result_id = link.record_result(hand_result(1, wall=wall)).id
        await eventually(lambda: link.pending_results == 0, "result acked")
        link.publish_event(
            HandStarted(session="s1", hand=1, ruleset="zung-jung", round_wind="E", dealer=0,
                        players=list(PLAYERS), wall_commitment=wall.commitment)
        )  # fmt: skip
        await eventually(lambda: next(recorder.store.sync.results()).audit == "ok", "re-audited")
    assert next(recorder.store.sync.results()).id == result_id


async def test_hub_state_is_retained_and_says_offline_when_the_recorder_stops(
    broker: Broker, tmp_path: Path
) -> None:
    recorder = make_recorder(broker.url, tmp_path / "hub.db")
    async with running(recorder.run()):
        await eventually(recorder.connected.is_set, "recorder online")
        assert (await _hub_state(broker)).online
    assert not (await _hub_state(broker)).online


async def _hub_state(broker: Broker) -> HubStateMessage:
    async with aiomqtt.Client(broker.host, broker.port) as reader:
        await reader.subscribe(TOPICS.hub_state, qos=1)
        async with asyncio.timeout(5):
            async for message in reader.messages:
                return decode(bytes(message.payload), HubStateMessage)
    raise AssertionError("no hub state")


def test_commands_from_the_hub_expire() -> None:
    message = make_command(TableKey(KEY_TEXT), "t1", ReportStatus(), 1, 5, SystemClock(), 30)
    assert message.expires - message.ts == timedelta(seconds=30)
