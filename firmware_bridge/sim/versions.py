"""Tables on another firmware: the frames a table speaking another protocol version writes and
which of the host's frames it can read, so that the host's version check is tested against a
table that behaves like one (SimulatedTable(protocol_version=...)); and what a table of this
version answers a host of protocol 1."""

from binascii import crc_hqx

from firmware_bridge.cobs import cobs_encode
from firmware_bridge.frame import (
    CRC_INIT,
    DELIMITER,
    HANDSHAKE_SEED,
    IDENTIFY_REPLY_TYPE,
    IDENTIFY_TYPE,
    PROTOCOL_VERSION,
    Frame,
    decode_frame,
)
from firmware_bridge.messages import LinkAck

_HANDSHAKE = (IDENTIFY_TYPE, IDENTIFY_REPLY_TYPE)


def readable(frame: Frame, version: int) -> bool:
    """Whether a table of protocol `version` reads this frame of the host's: version 1 reads
    none (its header is another), a later version the handshake only."""
    return version == PROTOCOL_VERSION or (version > 1 and frame.type in _HANDSHAKE)


def written_as(data: bytes, version: int) -> bytes:
    """The frame `data` (as this version encodes it, 0x00 included) as a table of protocol
    `version` writes it."""
    if version == PROTOCOL_VERSION:
        return data
    frame = decode_frame(data[:-1])
    if version == 1:
        return _protocol_1_layout(frame, 1)
    body = bytes((frame.flags, frame.seq, frame.ack, frame.type)) + frame.payload
    handshake = frame.type in _HANDSHAKE
    seed = HANDSHAKE_SEED if handshake else crc_hqx(bytes((version,)), CRC_INIT)
    return cobs_encode(body + crc_hqx(body, seed).to_bytes(2, "big")) + DELIMITER


def protocol_1_answer(ack: int) -> bytes:
    """The answer to an intact frame of protocol 1 (an old host): an empty `link_ack` in
    protocol 1's layout whose version byte is this protocol's, so that the old host names the
    mismatch instead of hearing nothing."""
    return _protocol_1_layout(Frame(LinkAck.TYPE, b"", 0, ack, 0), PROTOCOL_VERSION)


def _protocol_1_layout(frame: Frame, version_byte: int) -> bytes:
    """Protocol 1: version, flags, seq, ack, type, length u16, payload, CRC-16 little-endian."""
    head = bytes((version_byte, frame.flags, frame.seq, frame.ack, frame.type))
    body = head + len(frame.payload).to_bytes(2, "little") + frame.payload
    return cobs_encode(body + crc_hqx(body, CRC_INIT).to_bytes(2, "little")) + DELIMITER
