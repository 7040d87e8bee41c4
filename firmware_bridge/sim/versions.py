"""Tables on another firmware: the frames a table speaking another protocol version writes and
which of the host's frames it can read, so that the host's version check is tested against a
table that behaves like one (SimulatedTable(protocol_version=...))."""

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
        head = bytes((1, frame.flags, frame.seq, frame.ack, frame.type))
        body = head + len(frame.payload).to_bytes(2, "little") + frame.payload
        return cobs_encode(body + crc_hqx(body, CRC_INIT).to_bytes(2, "little")) + DELIMITER
    body = bytes((frame.flags, frame.seq, frame.ack, frame.type)) + frame.payload
    handshake = frame.type in _HANDSHAKE
    seed = HANDSHAKE_SEED if handshake else crc_hqx(bytes((version,)), CRC_INIT)
    return cobs_encode(body + crc_hqx(body, seed).to_bytes(2, "big")) + DELIMITER
