"""Hostile network input: nothing a table or a client on the broker sends can crash the
recorder or a table, retained or live, at start or later. Every payload is bounded before it
is parsed, and a refused one is counted and logged once per source."""

import asyncio
import contextlib
import json
import logging
from pathlib import Path

import aiomqtt
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.clock import SystemClock
from controller.hub.contract.envelopes import (
    MAX_DEPTH,
    MAX_PAYLOAD_BYTES,
    MalformedMessage,
    ResultMessage,
    StatusMessage,
    decode,
    encode,
    new_header,
    parse_json,
    peek_id,
    peek_place,
)
from controller.hub.contract.signing import TableKey
from controller.hub.contract.table_events import LinkCounters, TableStatus
from controller.hub.contract.topics import Topics
from controller.hub.mqtt.transport import Inbound
from devsupport.mosquitto import Broker
from tests.hub.factories import KEY_TEXT, SessionBook, hand_result
from tests.hub.helpers import eventually, make_link, make_recorder, running

TOPICS = Topics()
DEEP = b'{"schema":"status","x":' + b"[" * 1000 + b"]" * 1000 + b"}"
"""The reported killer: 4 KB nested 1000 deep (msgspec raised RecursionError on it)."""
KEY = TableKey(KEY_TEXT)
MESSAGE_KINDS = (StatusMessage, ResultMessage)


def _nested(depth: int, inner: bytes = b"1") -> bytes:
    return b"[" * depth + inner + b"]" * depth


def _valid_result() -> bytes:
    head = new_header("t1", 1, 1, SystemClock(), "0" * 32)
    return encode(KEY.sign(ResultMessage(result=hand_result(1), **head)))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=30,
)


@st.composite
def hostile(draw: st.DrawFn) -> bytes:
    """Bytes a hostile client might publish: noise, deep nests, odd JSON, damaged messages."""
    kind = draw(st.integers(0, 4))
    if kind == 0:
        return draw(st.binary(max_size=300))
    if kind == 1:
        opener = draw(st.sampled_from([b"[", b'{"a":', b'{"schema":"result","x":']))
        edges = st.sampled_from([MAX_DEPTH, MAX_DEPTH + 1, 1000, 5000])
        depth = draw(edges | st.integers(MAX_DEPTH - 2, 3000))
        closer = b"]" if opener == b"[" else b"}"
        return opener * depth + b"1" + closer * depth
    if kind == 2:
        value = draw(json_values)
        schema = draw(st.sampled_from(["status", "result", "ack", "command", "hub_state", "x"]))
        obj = {"schema": schema, "v": 1, "table": "t1", "payload": value}
        return json.dumps(obj).encode()
    valid = bytearray(_valid_result())
    for _ in range(draw(st.integers(1, 6))):
        at = draw(st.integers(0, len(valid) - 1))
        valid[at] = draw(st.integers(0, 255))
    return bytes(valid)


def test_the_reported_payload_is_refused_by_every_parse_of_network_bytes() -> None:
    for parse in (lambda p: decode(p, StatusMessage), parse_json, KEY.verify):
        with pytest.raises(MalformedMessage, match=f"deeper than {MAX_DEPTH}"):
            parse(DEEP)
    assert peek_id(DEEP) is None and peek_place(DEEP) is None


def test_size_is_bounded_before_parsing() -> None:
    big = b'{"schema":"status","pad":"' + b"x" * MAX_PAYLOAD_BYTES + b'"}'
    with pytest.raises(MalformedMessage, match="bytes is over"):
        parse_json(big)


def test_brackets_inside_strings_do_not_count_as_depth() -> None:
    text = '"' + "[" * 100 + '\\"{{{{"'
    assert parse_json(f'{{"a":{text},"b":[[1]]}}'.encode()) == {
        "a": text[1:-1].replace('\\"', '"'),
        "b": [[1]],
    }
    assert parse_json(_nested(MAX_DEPTH)) is not None


@settings(max_examples=300, deadline=None)
@given(payload=hostile())
def test_every_parse_of_network_bytes_only_ever_refuses(payload: bytes) -> None:
    for kind in MESSAGE_KINDS:
        with contextlib.suppress(MalformedMessage):
            decode(payload, kind)
    for parse in (parse_json, KEY.verify):
        with contextlib.suppress(MalformedMessage):
            parse(payload)
    peek_id(payload), peek_place(payload)


def test_every_recorder_topic_handler_only_ever_refuses(tmp_path: Path) -> None:
    recorder = make_recorder("mqtt://127.0.0.1:1", tmp_path / "hub.db")
    leaves = ("results", "status", "events", "replies", "other")

    @settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(payload=hostile(), leaf=st.sampled_from(leaves), retained=st.booleans())
    def check(payload: bytes, leaf: str, retained: bool) -> None:
        recorder.handle_messages([Inbound(f"mahjong/tables/t1/{leaf}", payload, retained)])
        assert all(KEY.verify(stored.payload) for stored in recorder.store.sync.results())

    check()
    recorder.store.close()


def test_every_table_topic_handler_only_ever_refuses(tmp_path: Path) -> None:
    book = SessionBook()
    link = make_link("mqtt://127.0.0.1:1", tmp_path / "outbox.db", book)
    topics = (TOPICS.hub_state, TOPICS.acks("t1"), TOPICS.commands("t1"), "mahjong/other")

    @settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(payload=hostile(), topic=st.sampled_from(topics))
    def check(payload: bytes, topic: str) -> None:
        asyncio.run(link.on_message(Inbound(topic, payload, retain=True)))
        assert not link.hub_online and book.log == []

    check()


def test_a_flood_from_one_source_is_counted_and_logged_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    recorder = make_recorder("mqtt://127.0.0.1:1", tmp_path / "hub.db", tables=("t1", "t2"))
    flood = [Inbound("mahjong/tables/t1/status", DEEP)] * 50
    with caplog.at_level(logging.WARNING, logger="controller.venue.recorder"):
        batch = recorder.handle_messages([*flood, Inbound("mahjong/tables/t2/events", DEEP)])
    warned = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert batch.counts.malformed == 51  # counted once the batch is stored
    assert recorder.refusals.by_source == {"table t1": 50, "table t2": 1}
    assert len(warned) == 2, "one warning per source, not one per message"
    recorder.store.close()


def _status(table: str = "t1") -> bytes:
    head = new_header(table, 1, 1, SystemClock())
    return encode(StatusMessage(online=True, status=TableStatus(), link=LinkCounters(), **head))


@pytest.mark.broker
async def test_retained_poison_on_every_topic_at_start_kills_neither_end(
    broker: Broker, tmp_path: Path
) -> None:
    poisoned = [
        TOPICS.hub_state,
        TOPICS.commands("t1"),
        TOPICS.acks("t1"),
        TOPICS.status("t9"),
        TOPICS.results("t9"),
        TOPICS.events("t9"),
        TOPICS.replies("t9"),
    ]
    async with aiomqtt.Client(broker.host, broker.port) as attacker:
        for topic in poisoned:
            await attacker.publish(topic, DEEP, qos=1, retain=True)
    link = make_link(broker.url, tmp_path / "outbox.db", SessionBook())
    recorder = make_recorder(broker.url, tmp_path / "hub.db", tables=("t1", "t9"))
    async with running(recorder.run()) as hub_task, running(link.run()) as table_task:
        receipt = link.record_result(hand_result(1))
        await eventually(lambda: link.pending_results == 0, "the result acked despite the poison")
        async with aiomqtt.Client(broker.host, broker.port) as attacker:
            await attacker.publish(TOPICS.results("t1"), DEEP, qos=1)  # and live, too
            await attacker.publish(TOPICS.commands("t1"), DEEP, qos=1)
        second = link.record_result(hand_result(2))
        await eventually(lambda: link.pending_results == 0, "a later result acked too")
        assert not hub_task.done() and not table_task.done()
    assert {s.id for s in recorder.store.sync.results()} == {receipt.id, second.id}
    refused = recorder.counters
    assert (refused.malformed, refused.refused) == (3, 2)  # t9's status, events, replies; results
    assert link.stats.malformed >= 1  # the ack (the commands got "malformed" replies instead)
