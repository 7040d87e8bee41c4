"""The message table: every message round-trips, bad payloads are typed errors, the generated
C header and protocol reference are current."""

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge import generate
from firmware_bridge.errors import MessageError
from firmware_bridge.fields import (
    FieldSpec,
    Message,
    all_specs,
    decode_payload,
    encode_payload,
    spec_for,
)
from firmware_bridge.frame import MAX_PAYLOAD
from firmware_bridge.messages import (
    TABLE_HASH,
    Ping,
    QueryWall,
    Status,
    WallSide,
    WallTile,
    Zone,
    ZoneInventory,
    describe_table,
    table_hash,
)

ROOT = Path(__file__).resolve().parents[2]
_SIZES = {"B": 1, "H": 2, "I": 4, "Q": 8}


def _scalar(spec: FieldSpec) -> st.SearchStrategy[Any]:
    if spec.kind is bool:
        return st.booleans()
    if spec.kind is not int:
        return st.sampled_from(list(spec.kind))  # type: ignore[call-overload]
    return st.integers(0, 2 ** (8 * _SIZES[spec.code]) - 1)


def _message(spec: Any) -> st.SearchStrategy[Message]:
    parts = [_scalar(field) for field in spec.fields]
    if spec.repeat is not None:
        limit = (MAX_PAYLOAD - spec.fixed.size) // spec.repeat.item.size
        if spec.repeat.record is None:
            item = _scalar(spec.repeat.fields[0])
        else:
            record = spec.repeat.record
            item = st.tuples(*map(_scalar, spec.repeat.fields)).map(lambda v: record(*v))
        parts.append(st.lists(item, max_size=min(limit, 12)).map(tuple))
    return st.tuples(*parts).map(lambda values: spec.cls(*values))


any_message = st.one_of([_message(spec) for spec in all_specs()])


@settings(max_examples=300)
@given(any_message)
def test_every_message_round_trips(message: Message) -> None:
    assert decode_payload(message.TYPE, encode_payload(message)) == message


def test_zone_inventory_carries_sorted_uids_compactly() -> None:
    message = ZoneInventory(2, Zone.DISCARD, (0xE004000000000001, 0xE004000000000002))
    assert len(encode_payload(message)) == 2 + 16


def test_fixed_layouts_are_compact() -> None:
    assert len(encode_payload(WallTile(3, 17, 1, 0xE004FFFFFFFFFFFF))) == 11
    assert len(encode_payload(Ping(1))) == 4


@pytest.mark.parametrize(
    ("kind", "payload", "words"),
    [
        (0xFF, b"", "unknown message type 0xff"),
        (Ping.TYPE, b"\1\2\3", "expected 4"),
        (ZoneInventory.TYPE, b"\0\x09", "9 is not a valid Zone"),
        (ZoneInventory.TYPE, b"\0\0" + b"\1" * 7, "whole number of items"),
        (Status.TYPE, bytes(11) + b"\2" + bytes(9), "status: 2 is not a boolean"),
        (Status.TYPE, bytes(21) + b"\x63\0\0", "99 is not a valid FaultCode"),
    ],
)
def test_bad_payloads_are_typed_errors_saying_what_is_wrong(
    kind: int, payload: bytes, words: str
) -> None:
    with pytest.raises(MessageError, match=words):
        decode_payload(kind, payload)


def test_a_value_too_large_for_its_field_is_refused_on_encode() -> None:
    with pytest.raises(MessageError, match="ping"):
        encode_payload(Ping(2**32))


def test_table_hash_follows_the_table_description() -> None:
    assert table_hash() == TABLE_HASH
    assert "message 0x80 wall_tile mcu side:B stack:B layer:B uid:Q" in describe_table()


def test_generated_c_header_is_current() -> None:
    """Run `python -m firmware_bridge.generate` after changing the message table."""
    assert (ROOT / generate.HEADER_PATH).read_text() == generate.c_header()


def test_generated_protocol_reference_is_current() -> None:
    current = (ROOT / generate.DOC_PATH).read_text()
    assert generate.render_doc(current) == current
    assert f"0x{TABLE_HASH:08x}" in current


def test_a_message_described_over_several_lines_is_described_whole() -> None:
    # A firmware writer reads these descriptions in protocol.md and in the C header: a
    # description cut at the end of its first source line left them mid-sentence.
    query = spec_for(QueryWall).doc
    assert query.endswith("small frames survive a noisy line).")
    assert "of one side of the walls under the table" in query
    assert spec_for(WallSide).doc.endswith("and the layout of the build (0, 0 before any).")
    for spec in all_specs():
        assert spec.doc.endswith((".", ")")), f"{spec.name}: {spec.doc!r}"
        assert "  " not in spec.doc and "\n" not in spec.doc
