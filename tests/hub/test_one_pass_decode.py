"""The decode of network bytes parses each payload once, bounded as it parses, and checks the
JSON value into the typed message. It must take and refuse exactly what the plain two-step
decode takes and refuses (size, then depth by walking the brackets outside strings, then a
typed parse of the bytes into the union of all messages), and give the same messages: on
random bytes, on hostile payloads and on valid messages of every kind changed anywhere
(signed again or not, so the recorder's signature check lets some through to the typing).
One difference is meant: bytes that are not JSON in a field no message has (text that is not
UTF-8, a number out of range) are refused, where the typed parse skipped over them."""

import re
from datetime import timedelta
from typing import Any, get_args

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.clock import SystemClock
from controller.hub.contract.envelopes import (
    HUB_TABLE,
    MAX_DEPTH,
    MAX_PAYLOAD_BYTES,
    MESSAGE_TYPES,
    VERSION,
    AckMessage,
    CommandMessage,
    Envelope,
    EventMessage,
    HubStateMessage,
    MalformedMessage,
    Message,
    Refusal,
    ReplyMessage,
    ResultMessage,
    StatusMessage,
    UnsupportedVersion,
    decode,
    encode,
    new_header,
)
from controller.hub.contract.field_types import TileName
from controller.hub.contract.hub_commands import ResendResults
from controller.hub.contract.result import Incident
from controller.hub.contract.signing import TableKey, sign_for_tables
from controller.hub.contract.table_events import HandStarted, LinkCounters, TableStatus
from tests.hub.factories import KEY_TEXT, START, hand_result
from tests.hub.test_hostile_input import hostile, json_values

KEY = TableKey(KEY_TEXT)
CLOCK = SystemClock()
_STRINGS = re.compile(rb'"(?:[^"\\]|\\.)*"')
_BRACKETS = re.compile(rb"[\[\]{}]")
_UNION = msgspec.json.Decoder(Message)


def two_step_bounds(payload: bytes) -> None:
    """Size, then depth: a walk over the brackets outside strings."""
    if len(payload) > MAX_PAYLOAD_BYTES:
        raise MalformedMessage("too big")
    depth = 0
    for bracket in _BRACKETS.findall(_STRINGS.sub(b'""', payload)):
        depth += 1 if bracket in b"[{" else -1
        if depth > MAX_DEPTH:
            raise MalformedMessage("too deep")


def two_step_decode(payload: bytes, kind: type[Envelope]) -> Envelope:
    """The plain decode the one-pass decode must agree with."""
    two_step_bounds(payload)
    try:
        message = _UNION.decode(payload)
    except (msgspec.DecodeError, RecursionError) as exc:
        raise MalformedMessage(str(exc)) from exc
    if not isinstance(message, kind):
        raise MalformedMessage("another kind")
    if message.v > VERSION:
        raise UnsupportedVersion("newer")
    return message


def two_step_verified(payload: bytes) -> Envelope | None:
    """The plain signature check of a result: bounded, parsed, checked, then decoded."""
    two_step_bounds(payload)
    try:
        raw = msgspec.json.decode(payload)
    except (msgspec.DecodeError, RecursionError) as exc:
        raise MalformedMessage(str(exc)) from exc
    if not KEY._signed(raw):
        return None
    return two_step_decode(payload, ResultMessage)


def is_json(payload: bytes) -> bool:
    """True when the bytes are JSON throughout (the typed parse skips the fields no message
    has without reading them as closely: text that is not UTF-8, a number out of range)."""
    try:
        msgspec.json.decode(payload)
    except (msgspec.DecodeError, RecursionError):
        return False
    return True


def outcome(parse: Any, *args: Any) -> tuple[str, object]:
    try:
        return "taken", parse(*args)
    except UnsupportedVersion:
        return "newer", None
    except MalformedMessage:
        return "refused", None


def _samples() -> list[bytes]:
    def head(table: str = "t1") -> dict[str, Any]:
        return new_header(table, 2, 7, CLOCK, outbox="ab" * 16)

    penalty = Incident(at=START, seat=1, kind="turn_time", penalty=5)  # type: ignore[arg-type]
    status = TableStatus(state="playing", session="s1", players=["ann", "bo", "cy", "dee"])
    state = HubStateMessage(online=True, hub="hub", will="c" * 32, **head(HUB_TABLE))
    messages: list[Envelope] = [
        KEY.sign(ResultMessage(result=hand_result(3), **head())),
        KEY.sign(ResultMessage(result=hand_result(4, incidents=(penalty,)), **head())),
        StatusMessage(online=True, status=status, link=LinkCounters(), **head()),
        EventMessage(
            event=HandStarted(
                session="s1",
                hand=1,
                ruleset="zung-jung",
                round_wind="E",
                dealer=0,
                players=["ann", "bo", "cy", "dee"],
                wall_commitment="d" * 64,
            ),
            **head(),
        ),
        KEY.sign(
            CommandMessage(
                expires=START + timedelta(minutes=5), action=ResendResults(since_seq=2), **head()
            )
        ),
        ReplyMessage(command="e" * 32, ok=False, code="refused", data=b"\x00box", **head()),
        KEY.sign(
            AckMessage(results=["f" * 32], refused=[Refusal(id="1" * 32, reason="x")], **head())
        ),
        sign_for_tables(state, {"t1": KEY}),
    ]
    return [encode(message) for message in messages]


SAMPLES = _samples()


def _nodes(value: object, at: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    inner: list[tuple[object, ...]] = []
    if isinstance(value, dict):
        inner = [p for k, v in value.items() for p in _nodes(v, (*at, k))]
    elif isinstance(value, list):
        inner = [p for i, v in enumerate(value) for p in _nodes(v, (*at, i))]
    return [at, *inner]


near_values: st.SearchStrategy[Any] = (
    json_values
    | st.sampled_from(["1m", "9s", "7z", "8f", "0m", "8z", "9f", "1m\n", "1M", "", "E", "x" * 600])
    | st.integers(-(2**70), 2**70)
    | st.sampled_from([0, 1, 2, 3, 4, -1, 2**63, 1.0, 0.5, True, None, [], {}])
    | st.sampled_from(["2024-05-01T14:00:00Z", "2024-05-01T14:00:00", "2024-13-01T00:00:00Z"])
)


@st.composite
def changed(draw: st.DrawFn) -> bytes:
    """A valid message of some kind with one to three changes anywhere, then maybe signed again
    with the table's key."""
    raw = msgspec.json.decode(draw(st.sampled_from(SAMPLES)))
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(_nodes(raw)))
        if not path:
            continue
        holder = raw
        for step in path[:-1]:
            holder = holder[step]
        action = draw(st.sampled_from(["replace", "delete", "add"]))
        if action == "replace":
            holder[path[-1]] = draw(near_values)
        elif action == "delete":
            del holder[path[-1]]
        elif isinstance(holder, dict):
            holder[draw(st.text(max_size=8))] = draw(near_values)
        else:
            holder.insert(draw(st.integers(0, len(holder))), draw(near_values))
    if isinstance(raw, dict) and draw(st.booleans()):
        raw["sig"] = KEY._digest(raw)
    return msgspec.json.encode(raw)


payloads = hostile() | changed() | st.sampled_from(SAMPLES) | st.binary(max_size=200)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(payload=payloads)
def test_the_one_pass_decode_takes_and_gives_what_the_two_step_decode_does(payload: bytes) -> None:
    refused = ("refused", None)
    for kind in MESSAGE_TYPES:
        expected = outcome(two_step_decode, payload, kind) if is_json(payload) else refused
        assert outcome(decode, payload, kind) == expected
    assert outcome(KEY.verified, payload, ResultMessage) == outcome(two_step_verified, payload)


def test_every_sample_is_taken() -> None:
    taken = [outcome(decode, p, type(_UNION.decode(p)))[0] for p in SAMPLES]
    assert taken == ["taken"] * len(SAMPLES)


def test_a_tile_is_exactly_a_name_of_the_mpsz_notation() -> None:
    names = set(get_args(TileName))
    pattern = re.compile(r"([1-9][mps]|[1-7]z|[1-8]f)")
    two_chars = {a + b for a in map(chr, range(32, 127)) for b in map(chr, range(32, 127))}
    assert names == {text for text in two_chars if pattern.fullmatch(text)}
    assert len(names) == 42


@pytest.mark.parametrize("tile", ["1m\n", "0m", "8z", "9f", " 1m", "1m "])
def test_a_wall_with_a_tile_that_is_not_one_is_refused(tile: str) -> None:
    raw = msgspec.json.decode(SAMPLES[0])
    raw["result"]["wall"]["order"][5] = tile
    raw["sig"] = KEY._digest(raw)
    with pytest.raises(MalformedMessage, match=r"not a valid result message: .*wall\.order"):
        KEY.verified(msgspec.json.encode(raw), ResultMessage)


@pytest.mark.parametrize("tiles", ["123m\n", "123m456p\n", "0m", "12"])
def test_a_hand_with_tiles_that_are_not_tiles_is_refused(tiles: str) -> None:
    raw = msgspec.json.decode(SAMPLES[0])
    raw["result"]["wins"][0]["concealed"] = tiles
    raw["sig"] = KEY._digest(raw)
    with pytest.raises(MalformedMessage, match=r"not a valid result message: .*concealed"):
        KEY.verified(msgspec.json.encode(raw), ResultMessage)
