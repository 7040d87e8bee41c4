"""The pure codec: CRC, COBS, frames and the incremental decoder that survives garbage."""

import re
from binascii import crc_hqx
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from devsupport.fuzz_corpus import frames, small_frames
from firmware_bridge import cobs
from firmware_bridge.cobs import cobs_decode, cobs_encode
from firmware_bridge.crc import crc16
from firmware_bridge.errors import BridgeError, CrcError, ForeignFrame, FrameError, MessageError
from firmware_bridge.fields import decode_payload
from firmware_bridge.frame import (
    CRC_INIT,
    HEADER_SIZE,
    IDENTIFY_REPLY_TYPE,
    MAX_ENCODED,
    MAX_PAYLOAD,
    OVERHEAD,
    Flag,
    Frame,
    FrameDecoder,
    decode_frame,
    encode_frame,
)


def test_crc_is_ccitt_false() -> None:
    assert crc16(b"123456789") == 0x29B1


@given(st.binary(max_size=1200))
def test_cobs_round_trip_and_no_zero_byte(data: bytes) -> None:
    encoded = cobs_encode(data)
    assert b"\0" not in encoded
    assert cobs_decode(encoded) == data
    assert len(encoded) <= len(data) + len(data) // 254 + 1


@given(st.binary(max_size=1200))
def test_the_cobs_codec_without_the_c_extension_writes_and_reads_the_same(data: bytes) -> None:
    """A Pi where the `cobs` extension was not built uses the block-wise Python codec."""
    assert cobs._FAST is not None  # the tests run with the extension, as CI installs it
    assert cobs._encode(data) == cobs_encode(data)
    assert cobs._decode(cobs_encode(data)) == data


def _decode_a_block_at_a_time(data: bytes) -> bytes | None:
    """COBS decoding as the spec reads (None: malformed, 0x00 inside included), to check the
    fast decoders against."""
    if 0 in data:
        return None
    out, index = bytearray(), 0
    while index < len(data):
        code = data[index]
        if code == 0 or index + code > len(data):
            return None
        out += data[index + 1 : index + code]
        index += code
        if code != 255 and index < len(data):
            out.append(0)
    return bytes(out)


@given(st.binary(max_size=600) | st.lists(st.sampled_from([0, 1, 2, 3, 254, 255])).map(bytes))
def test_cobs_decoding_any_bytes_agrees_with_the_spec_or_refuses_as_it_does(data: bytes) -> None:
    expected = _decode_a_block_at_a_time(data)
    for decode in (cobs_decode, cobs._decode):
        if expected is None:
            with pytest.raises(FrameError):
                decode(data)
        else:
            assert decode(data) == expected


@given(frames)
def test_frame_round_trip(frame: Frame) -> None:
    encoded = encode_frame(frame)
    assert encoded.endswith(b"\0") and encoded.count(b"\0") == 1
    assert len(encoded) <= MAX_ENCODED + 1
    assert FrameDecoder().feed(encoded) == [frame]


@given(small_frames)
def test_a_frame_costs_eight_bytes_on_the_line_besides_its_payload(frame: Frame) -> None:
    assert OVERHEAD == 8
    assert len(encode_frame(frame)) == len(frame.payload) + OVERHEAD


def _data_bytes(encoded: bytes) -> list[int]:
    """The positions of an encoded frame that carry a byte of the frame (not a COBS code)."""
    codes, index = set(), 0
    while index < len(encoded) - 1:
        codes.add(index)
        index += encoded[index]
    return [i for i in range(len(encoded) - 1) if i not in codes]


@given(small_frames, small_frames, st.data())
def test_a_frame_with_a_damaged_byte_is_refused_as_a_crc_error_and_the_next_arrives(
    frame: Frame, after: Frame, data: st.DataObject
) -> None:
    """The CRC finds every damaged byte (every burst of up to 16 bits): a damaged frame is
    refused, never read as another frame, and costs only itself."""
    encoded = bytearray(encode_frame(frame))
    where = data.draw(st.sampled_from(_data_bytes(bytes(encoded))))
    encoded[where] = data.draw(st.integers(1, 255).filter(lambda b: b != encoded[where]))
    out = FrameDecoder().feed(bytes(encoded) + encode_frame(after))
    assert len(out) == 2 and isinstance(out[0], CrcError)
    assert out[1] == after


def _legacy(frame: Frame, version: int = 1) -> bytes:
    """A frame as protocol version 1 wrote it: version, flags, seq, ack, type, length, payload,
    CRC-16 (from 0xFFFF, little-endian)."""
    head = bytes((version, frame.flags, frame.seq, frame.ack, frame.type))
    body = head + len(frame.payload).to_bytes(2, "little") + frame.payload
    return cobs_encode(body + crc16(body).to_bytes(2, "little")) + b"\0"


@given(small_frames)
def test_a_frame_of_protocol_version_1_is_refused_as_one(frame: Frame) -> None:
    """A table still on the old firmware is named as such, never read with the new layout."""
    (refusal,) = FrameDecoder().feed(_legacy(frame))
    assert isinstance(refusal, ForeignFrame) and refusal.version == 1


@given(small_frames, st.integers(3, 255))
def test_a_frame_of_a_later_version_fails_the_check_but_its_handshake_reply_reads(
    frame: Frame, version: int
) -> None:
    """The version is in every frame's CRC, not on the line: a frame of another version is
    refused; the handshake's reply is checked without it, so any table can tell its version."""
    body = bytes((frame.flags, frame.seq, frame.ack, frame.type)) + frame.payload
    seed = crc_hqx(bytes((version,)), CRC_INIT)
    line = cobs_encode(body + crc_hqx(body, seed).to_bytes(2, "big"))
    if frame.type != IDENTIFY_REPLY_TYPE and frame.type != 0x01:
        with pytest.raises(CrcError):
            decode_frame(line)
    reply = Frame(IDENTIFY_REPLY_TYPE, bytes((2, 0, 0, version)), 0, 1, Flag.RESPONSE)
    assert decode_frame(encode_frame(reply)[:-1]).payload[3] == version


def test_a_payload_over_the_limit_is_refused() -> None:
    with pytest.raises(FrameError):
        encode_frame(Frame(1, bytes(MAX_PAYLOAD + 1)))


def _is_garbage(chunk: bytes) -> bool:
    return not any(isinstance(item, Frame) for item in FrameDecoder().feed(chunk + b"\0"))


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.tuples(st.binary(max_size=30), small_frames), max_size=8),
    st.lists(st.integers(1, 40), max_size=30),
)
def test_decoder_yields_exactly_the_valid_frames_whatever_the_split_and_garbage(
    items: list[tuple[bytes, Frame]], cuts: list[int]
) -> None:
    """Garbage before each frame (ended by the line's 0x00) never costs a valid frame."""
    assume(all(_is_garbage(garbage) for garbage, _ in items))
    stream = b"".join(garbage + b"\0" + encode_frame(frame) for garbage, frame in items)
    decoder = FrameDecoder()
    out: list[Frame | FrameError] = []
    position = 0
    for cut in [*cuts, len(stream)]:
        out += decoder.feed(stream[position : position + cut])
        position += cut
    out += decoder.feed(stream[position:])
    assert [item for item in out if isinstance(item, Frame)] == [frame for _, frame in items]


def test_a_runaway_stream_without_frame_end_is_reported_once_then_forgotten() -> None:
    decoder = FrameDecoder()
    assert decoder.feed(b"\x55" * (MAX_ENCODED + 10)) == []
    out = decoder.feed(b"\x55" * 100 + b"\0" + encode_frame(Frame(3, b"ok")))
    assert isinstance(out[0], FrameError)
    assert out[1:] == [Frame(3, b"ok")]


@settings(max_examples=300)
@given(st.lists(st.binary(max_size=64), max_size=10))
def test_fuzz_decoder_never_raises(chunks: list[bytes]) -> None:
    decoder = FrameDecoder()
    for chunk in chunks:
        for item in decoder.feed(chunk):
            assert isinstance(item, Frame | FrameError)


@settings(max_examples=400)
@given(st.integers(0, 255), st.binary(max_size=80))
def test_fuzz_message_parser_raises_only_our_typed_error(kind: int, payload: bytes) -> None:
    try:
        decode_payload(kind, payload)
    except MessageError as error:
        assert isinstance(error, BridgeError) and str(error)


def test_the_example_frames_of_the_protocol_page_are_what_the_codec_writes() -> None:
    page = (Path(__file__).parents[2] / "hardware" / "protocol.md").read_text()
    rows = re.findall(r"^\| [^|]+ \| `([0-9a-f ]+)` \| `([0-9a-f ]+)` \|$", page, re.MULTILINE)
    assert len(rows) >= 10
    for head_and_payload, on_the_line in rows:
        body = bytes.fromhex(head_and_payload)
        flags, seq, ack, kind = body[:HEADER_SIZE]
        frame = Frame(kind, body[HEADER_SIZE:], seq, ack, flags)
        assert encode_frame(frame) == bytes.fromhex(on_the_line), head_and_payload
