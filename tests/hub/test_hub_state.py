"""The hub's state and answers are signed: a forged `hub/state` or refusal changes nothing at
a table, and the recorder puts its own state back over a foreign one."""

from pathlib import Path

import aiomqtt
import pytest

from controller.clock import SystemClock
from controller.hub.contract.envelopes import (
    HUB_TABLE,
    AckMessage,
    HubStateMessage,
    Refusal,
    decode,
    encode,
    new_header,
)
from controller.hub.contract.signing import TableKey
from controller.hub.contract.topics import Topics
from devsupport.mosquitto import Broker
from tests.hub.factories import KEY_TEXT, OTHER_KEY_TEXT, SessionBook, hand_result
from tests.hub.helpers import eventually, looked_again, make_link, make_recorder, running

pytestmark = pytest.mark.broker
TOPICS = Topics()


def _forged_state(online: bool, key: str | None = None) -> bytes:
    head = new_header(HUB_TABLE, 99, 99, SystemClock())
    state = HubStateMessage(online=online, hub="evil", **head)
    if key is not None:
        state = HubStateMessage(online=online, hub="evil", sigs={"t1": "0" * 64}, **head)
    return encode(state)


async def _retained_state(broker: Broker) -> HubStateMessage:
    async with aiomqtt.Client(broker.host, broker.port) as reader:
        await reader.subscribe(TOPICS.hub_state, qos=1)
        async for message in reader.messages:
            return decode(bytes(message.payload), HubStateMessage)
    raise AssertionError("no hub state")


async def test_a_forged_offline_state_stops_nothing_and_the_recorder_restores_its_own(
    broker: Broker, tmp_path: Path
) -> None:
    link = make_link(broker.url, tmp_path / "outbox.db", SessionBook())
    recorder = make_recorder(broker.url, tmp_path / "hub.db")
    async with running(recorder.run()), running(link.run()):
        link.record_result(hand_result(1))
        await eventually(lambda: link.pending_results == 0, "first result acked")
        async with aiomqtt.Client(broker.host, broker.port) as attacker:
            for forged in (_forged_state(False), _forged_state(False, OTHER_KEY_TEXT), b""):
                await attacker.publish(TOPICS.hub_state, forged, qos=1, retain=True)
        await eventually(lambda: recorder.counters.foreign_states >= 1, "the recorder notices")
        await eventually(lambda: link.stats.unsigned_ignored >= 3, "the table ignores all three")
        assert link.hub_online
        link.record_result(hand_result(2))
        await eventually(lambda: link.pending_results == 0, "the next result acked too")
        await looked_again(recorder)
        restored = await _retained_state(broker)
    assert (
        restored.online
        and restored.hub == "hub"
        and TableKey(KEY_TEXT).verify_among(encode(restored), "t1")
    )


async def test_an_unsigned_refusal_does_not_set_a_result_aside(
    broker: Broker, tmp_path: Path
) -> None:
    link = make_link(broker.url, tmp_path / "outbox.db", SessionBook())
    async with running(link.run()):
        await eventually(lambda: link.connected, "connected")
        receipt = link.record_result(hand_result(1))
        head = new_header("t1", 1, 1, SystemClock())
        forged = AckMessage(refused=[Refusal(id=receipt.id, reason="go away")], **head)
        async with aiomqtt.Client(broker.host, broker.port) as attacker:
            await attacker.publish(TOPICS.acks("t1"), encode(forged), qos=1)
        await eventually(lambda: link.stats.unsigned_ignored >= 1, "the forged refusal ignored")
        assert link.refused_results == [] and link.pending_results == 1
        recorder = make_recorder(broker.url, tmp_path / "hub.db")
        async with running(recorder.run()):
            await eventually(lambda: link.pending_results == 0, "then recorded by the real hub")
    assert next(recorder.store.sync.results()).id == receipt.id
