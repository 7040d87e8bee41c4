"""The table's hub link against a real broker and the real recorder: results arrive once, are
acked and leave the outbox; nothing is sent until a hub is recording; status is retained."""

import asyncio
from pathlib import Path

import aiomqtt
import pytest

from controller.clock import SystemClock
from controller.hub.contract.envelopes import ReplyMessage, StatusMessage, decode
from controller.hub.contract.hub_commands import StartSession
from controller.hub.contract.table_events import TableStatus
from controller.hub.contract.topics import Topics
from devsupport.mosquitto import Broker
from tests.hub.commanding import command, resign
from tests.hub.factories import PLAYERS, SessionBook, hand_result
from tests.hub.helpers import eventually, looked_again, make_link, make_recorder, running
from tests.hub.test_dispatcher import MALFORMED

pytestmark = pytest.mark.broker
TOPICS = Topics()


async def test_results_reach_the_hub_once_and_leave_the_outbox(
    broker: Broker, tmp_path: Path
) -> None:
    link = make_link(broker.url, tmp_path / "outbox.db", SessionBook())
    recorder = make_recorder(broker.url, tmp_path / "hub.db")
    async with running(recorder.run()), running(link.run()):
        receipts = [link.record_result(hand_result(hand)) for hand in range(1, 21)]
        await eventually(lambda: link.pending_results == 0, "every result acked")
    assert [r.seq for r in receipts] == list(range(1, 21))
    stored = {s.id: s for s in recorder.store.sync.results()}
    assert set(stored) == {r.id for r in receipts}
    assert recorder.counters.refused == 0


async def test_nothing_is_sent_until_a_hub_is_recording(broker: Broker, tmp_path: Path) -> None:
    link = make_link(broker.url, tmp_path / "outbox.db", SessionBook())
    seen: list[str] = []
    async with aiomqtt.Client(broker.host, broker.port) as spy:
        await spy.subscribe("mahjong/tables/t1/#", qos=1)
        async with running(link.run()):
            link.record_result(hand_result(1))
            await eventually(lambda: link.connected and not link.outbox.feed_head(1), "status")
            await looked_again(link)  # the link had its chance to send the result
            await spy.publish("mahjong/tables/t1/marker", b"", qos=1)
            async with asyncio.timeout(10):
                async for message in spy.messages:
                    seen.append(str(message.topic))
                    if seen[-1].endswith("/marker"):
                        break
            assert seen[0].endswith("/status")
            assert not any(t.endswith("/results") for t in seen)
            assert link.pending_results == 1
            recorder = make_recorder(broker.url, tmp_path / "hub.db")
            async with running(recorder.run()):
                await eventually(
                    lambda: link.pending_results == 0, "result acked once the hub is up"
                )


async def test_status_is_retained_and_says_offline_when_the_table_stops(
    broker: Broker, tmp_path: Path
) -> None:
    link = make_link(broker.url, tmp_path / "outbox.db", SessionBook())
    async with running(link.run()):
        link.update_status(
            TableStatus(state="playing", session="s1", hand=3, players=list(PLAYERS))
        )
        await eventually(lambda: link.connected and not link.outbox.feed_head(1), "status sent")
        assert (await _retained_status(broker)).status.state == "playing"
    stopped = await _retained_status(broker)
    assert (stopped.online, stopped.status.state) == (False, "offline")


async def _retained_status(broker: Broker) -> StatusMessage:
    async with aiomqtt.Client(broker.host, broker.port) as reader:
        await reader.subscribe(TOPICS.status("t1"), qos=1)
        async with asyncio.timeout(5):
            async for message in reader.messages:
                return decode(bytes(message.payload), StatusMessage)
    raise AssertionError("no retained status")


async def test_hub_commands_are_answered_over_mqtt(broker: Broker, tmp_path: Path) -> None:
    book = SessionBook()
    link = make_link(broker.url, tmp_path / "outbox.db", book)
    recorder = make_recorder(broker.url, tmp_path / "hub.db")
    async with running(recorder.run()), running(link.run()):
        await eventually(lambda: link.hub_online, "hub online seen by the table")
        order = StartSession(session="s9", ruleset="sichuan", players=list(PLAYERS))
        async with aiomqtt.Client(broker.host, broker.port) as hub_cli:
            await hub_cli.subscribe(TOPICS.replies("t1"), qos=1)
            await hub_cli.publish(TOPICS.commands("t1"), b"{not json", qos=1)
            await hub_cli.publish(TOPICS.commands("t1"), command(order, SystemClock()), qos=1)
            replies = []
            async with asyncio.timeout(10):
                async for message in hub_cli.messages:
                    replies.append(decode(bytes(message.payload), ReplyMessage))
                    if len(replies) == 2:
                        break
    assert [r.code for r in replies] == ["malformed", "ok"]
    assert book.session == "s9"


async def test_malformed_commands_over_mqtt_get_error_replies_and_the_table_keeps_serving(
    broker: Broker, tmp_path: Path
) -> None:
    book = SessionBook()
    link = make_link(broker.url, tmp_path / "outbox.db", book)
    junk = [resign(fields) for fields in MALFORMED[::4]]
    async with running(link.run()), aiomqtt.Client(broker.host, broker.port) as hub_cli:
        await eventually(lambda: link.connected, "table connected")
        await hub_cli.subscribe(TOPICS.replies("t1"), qos=1)
        for payload in junk:
            await hub_cli.publish(TOPICS.commands("t1"), payload, qos=1)
        order = StartSession(session="s9", ruleset="sichuan", players=list(PLAYERS))
        await hub_cli.publish(TOPICS.commands("t1"), command(order, SystemClock()), qos=1)
        replies = []
        async with asyncio.timeout(10):
            async for message in hub_cli.messages:
                replies.append(decode(bytes(message.payload), ReplyMessage))
                if len(replies) == len(junk) + 1:
                    break
    assert all(not r.ok for r in replies[:-1]) and replies[-1].ok
    assert book.log == ["start s9"]
