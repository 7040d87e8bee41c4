"""Frames on the wire: COBS(header | payload | CRC-16) followed by 0x00, and an incremental decoder.

Pure code: bytes in, frames (or typed errors as values) out. Nothing here reads a port or a clock.
"""

import struct
from enum import IntFlag
from typing import NamedTuple

from firmware_bridge.cobs import cobs_decode, cobs_encode
from firmware_bridge.crc import crc16
from firmware_bridge.errors import CrcError, FrameError

PROTOCOL_VERSION = 1
HEADER = struct.Struct("<BBBBBH")
"""version, flags, seq, ack, message type, payload length (little-endian)."""
HEADER_SIZE = HEADER.size
CRC_SIZE = 2
MAX_PAYLOAD = 512
MAX_FRAME = HEADER_SIZE + MAX_PAYLOAD + CRC_SIZE
MAX_ENCODED = MAX_FRAME + MAX_FRAME // 254 + 1
DELIMITER = b"\0"


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
    version: int = PROTOCOL_VERSION

    def describe(self) -> str:
        """A one-line summary for frame logs."""
        flags = "|".join(flag.name or "" for flag in Flag if self.flags & flag) or "-"
        return (
            f"v{self.version} type=0x{self.type:02x} seq={self.seq} ack={self.ack} "
            f"flags={flags} payload={self.payload.hex()}"
        )


def encode_frame(frame: Frame) -> bytes:
    """The bytes to put on the wire for `frame`, 0x00 terminator included."""
    if len(frame.payload) > MAX_PAYLOAD:
        raise FrameError(f"payload of {len(frame.payload)} bytes exceeds {MAX_PAYLOAD}")
    header = HEADER.pack(
        frame.version, frame.flags, frame.seq, frame.ack, frame.type, len(frame.payload)
    )
    body = header + frame.payload
    return cobs_encode(body + crc16(body).to_bytes(CRC_SIZE, "little")) + DELIMITER


def decode_frame(encoded: bytes) -> Frame:
    """Decode one frame (COBS bytes without the terminator); FrameError or CrcError if bad."""
    if len(encoded) > MAX_ENCODED:
        raise FrameError(f"frame of {len(encoded)} bytes is longer than {MAX_ENCODED}", encoded)
    body = cobs_decode(encoded)
    if len(body) < HEADER_SIZE + CRC_SIZE:
        raise FrameError(f"frame of {len(body)} bytes is shorter than a header", encoded)
    if crc16(body[:-CRC_SIZE]) != int.from_bytes(body[-CRC_SIZE:], "little"):
        raise CrcError("checksum mismatch", encoded)
    version, flags, seq, ack, kind, length = HEADER.unpack_from(body)
    payload = body[HEADER_SIZE:-CRC_SIZE]
    if length != len(payload):
        raise FrameError(f"header says {length} payload bytes, frame has {len(payload)}", encoded)
    return Frame(kind, payload, seq, ack, flags, version)


class FrameDecoder:
    """Turns a byte stream cut anywhere into frames; garbage costs only the frames it touches."""

    def __init__(self) -> None:
        self._pending = bytearray()
        self._overrun = False

    def feed(self, data: bytes) -> list[Frame | FrameError]:
        """Add received bytes; return the frames they complete, and errors as values."""
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
