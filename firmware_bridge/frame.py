"""Frames on the wire: COBS(header | payload | CRC-16) followed by 0x00, and an incremental decoder.

Protocol version 2: a 4-byte header (flags, seq, ack, type), no length field (COBS delimits the
frame) and no version byte on the line: the version is folded into the CRC, so a frame of
another version fails the check instead of being read with the wrong layout. The handshake
frames (`identify`, `identify_reply`) are checked without the version, so that a table of any
version can say which one it speaks. A frame of protocol version 1 is recognised by its old
layout and refused as `ForeignFrame`, so that the host can name the mismatch.

Pure code: bytes in, frames (or typed errors as values) out. Nothing here reads a port or a clock.
"""

import functools
import struct
from binascii import crc_hqx
from enum import IntFlag
from typing import NamedTuple

from firmware_bridge.cobs import cobs_decode, cobs_encode
from firmware_bridge.errors import CrcError, ForeignFrame, FrameError

PROTOCOL_VERSION = 2
HEADER_SIZE = 4
"""flags, seq, ack, message type: one byte each."""
CRC_SIZE = 2
MAX_PAYLOAD = 512
MAX_FRAME = HEADER_SIZE + MAX_PAYLOAD + CRC_SIZE
MAX_ENCODED = MAX_FRAME + MAX_FRAME // 254 + 1
DELIMITER = b"\0"
IDENTIFY_TYPE = 0x01
IDENTIFY_REPLY_TYPE = 0x40
"""The handshake's two message types: their frames' CRC leaves the version out."""
CRC_INIT = 0xFFFF
CRC_SEED = crc_hqx(bytes((PROTOCOL_VERSION,)), CRC_INIT)
"""The CRC register after the (unsent) version byte: where every frame's CRC starts."""
HANDSHAKE_SEED = crc_hqx(b"\0", CRC_INIT)
"""Where the handshake frames' CRC starts: version 0, the same for every version."""
OVERHEAD = HEADER_SIZE + CRC_SIZE + 2
"""Bytes on the line besides the payload, for a payload up to 247 bytes (one COBS code byte)."""
_LEGACY_HEADER = 7
"""Protocol 1: version, flags, seq, ack, type, length u16; CRC-16 little-endian."""


class Flag(IntFlag):
    """Header flag bits."""

    EVENT = 0x01
    """MCU -> host: an event; `seq` is the low byte of the event counter."""
    RESPONSE = 0x02
    """MCU -> host: the answer to the host frame whose sequence number is in `seq`."""
    SYNC = 0x04
    """Host -> MCU on `identify`: start a session; the next command carries `seq + 1`."""
    UNSEQUENCED = 0x08
    """Outside the command sequence (heartbeat and its reply)."""
    NAK = 0x10
    """MCU -> host: a frame was lost; resend every command from `ack` on."""
    NEED_SYNC = 0x20
    """MCU -> host: the MCU has no session (it restarted): identify again."""


class Frame(NamedTuple):
    """One decoded frame: header fields and the raw payload (a named tuple: a busy line
    makes and reads thousands a second)."""

    type: int
    payload: bytes = b""
    seq: int = 0
    ack: int = 0
    flags: int = 0

    def describe(self) -> str:
        """A one-line summary for frame logs."""
        flags = "|".join(flag.name or "" for flag in Flag if self.flags & flag) or "-"
        return (
            f"type=0x{self.type:02x} seq={self.seq} ack={self.ack} "
            f"flags={flags} payload={self.payload.hex()}"
        )


_HANDSHAKE = frozenset({IDENTIFY_TYPE, IDENTIFY_REPLY_TYPE})
_HEADER = struct.Struct("4B")
"""flags, seq, ack, type."""
_CRC = struct.Struct(">H")
_new_frame = functools.partial(tuple.__new__, Frame)
"""`Frame(*fields)` for a decoded frame, without the named tuple's `__new__` in Python (a
frame arrives with every reply)."""


def encode(kind: int, payload: bytes = b"", seq: int = 0, ack: int = 0, flags: int = 0) -> bytes:
    """The bytes to put on the wire for a frame of these fields, 0x00 terminator included
    (the host encodes each command once, without making a `Frame` of it)."""
    if len(payload) > MAX_PAYLOAD:
        raise FrameError(f"payload of {len(payload)} bytes exceeds {MAX_PAYLOAD}")
    body = _HEADER.pack(flags, seq, ack, kind) + payload
    crc = crc_hqx(body, HANDSHAKE_SEED if kind in _HANDSHAKE else CRC_SEED)
    return cobs_encode(body + _CRC.pack(crc)) + DELIMITER


def encode_frame(frame: Frame) -> bytes:
    """The bytes to put on the wire for `frame`, 0x00 terminator included."""
    return encode(*frame)


def decode_frame(encoded: bytes) -> Frame:
    """Decode one frame (COBS bytes without the terminator); FrameError, CrcError or
    ForeignFrame (a frame of protocol version 1) if it is no frame of this version."""
    if len(encoded) > MAX_ENCODED:
        raise FrameError(f"frame of {len(encoded)} bytes is longer than {MAX_ENCODED}", encoded)
    body = cobs_decode(encoded)
    if len(body) < HEADER_SIZE + CRC_SIZE:
        raise FrameError(f"frame of {len(body)} bytes is shorter than a header", encoded)
    kind = body[3]
    # The CRC is sent most significant byte first: over the whole body it leaves 0.
    if crc_hqx(body, HANDSHAKE_SEED if kind in _HANDSHAKE else CRC_SEED):
        if legacy_version(body):
            raise ForeignFrame(1, encoded)
        raise CrcError("checksum mismatch", encoded)
    return _new_frame((kind, body[HEADER_SIZE:-CRC_SIZE], body[1], body[2], body[0]))


def legacy_version(body: bytes) -> bool:
    """Whether a decoded body is an intact frame of protocol version 1."""
    size = len(body)
    return (
        size >= _LEGACY_HEADER + CRC_SIZE
        and body[0] == 1
        and body[5] | body[6] << 8 == size - _LEGACY_HEADER - CRC_SIZE
        and crc_hqx(body[:-CRC_SIZE], CRC_INIT) == body[-2] | body[-1] << 8
    )


class FrameDecoder:
    """Turns a byte stream cut anywhere into frames; garbage costs only the frames it touches."""

    def __init__(self) -> None:
        self._pending = bytearray()
        self._overrun = False

    def feed(self, data: bytes) -> list[Frame | FrameError]:
        """Add received bytes; return the frames they complete, and errors as values."""
        if data.find(DELIMITER) == len(data) - 1 and not self._pending and not self._overrun:
            # One whole frame in one read, nothing before it: the usual case on a quiet line.
            if len(data) == 1:
                return []
            try:
                return [decode_frame(data[:-1])]
            except FrameError as error:
                return [error]
        parts = data.split(DELIMITER)
        if len(parts) == 1:
            self._append(data)
            return []
        out: list[Frame | FrameError] = []
        self._append(parts[0])
        self._finish(out)
        for chunk in parts[1:-1]:
            if chunk:
                out.append(_decode_or_error(chunk))
        self._append(parts[-1])
        return out

    def _append(self, data: bytes) -> None:
        if self._overrun:
            return
        self._pending += data
        if len(self._pending) > MAX_ENCODED:
            self._overrun = True
            self._pending.clear()

    def _finish(self, out: list[Frame | FrameError]) -> None:
        if self._overrun:
            out.append(FrameError(f"more than {MAX_ENCODED} bytes without a frame end"))
            self._overrun = False
        elif self._pending:
            out.append(_decode_or_error(bytes(self._pending)))
        self._pending.clear()


def _decode_or_error(chunk: bytes) -> Frame | FrameError:
    try:
        return decode_frame(chunk)
    except FrameError as error:
        return error
