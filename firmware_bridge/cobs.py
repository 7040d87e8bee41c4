"""Consistent Overhead Byte Stuffing: removes every 0x00 so that 0x00 can end a frame."""

from firmware_bridge.errors import FrameError

_MAX_RUN = 254


def cobs_encode(data: bytes) -> bytes:
    """Encode `data` so that the result holds no 0x00 byte (overhead: 1 byte per 254)."""
    out = bytearray()
    if len(data) < _MAX_RUN:
        for block in data.split(b"\0"):
            out.append(len(block) + 1)
            out += block
        return bytes(out)
    for block in data.split(b"\0"):
        while len(block) >= _MAX_RUN:
            out.append(_MAX_RUN + 1)
            out += block[:_MAX_RUN]
            block = block[_MAX_RUN:]
        out.append(len(block) + 1)
        out += block
    return bytes(out)


def cobs_decode(data: bytes) -> bytes:
    """Decode one COBS block sequence (without its 0x00 terminator); FrameError if malformed."""
    out = bytearray()
    index = 0
    size = len(data)
    while index < size:
        code = data[index]
        end = index + code
        if code == 0 or end > size:
            raise FrameError("malformed COBS encoding", bytes(data))
        out += data[index + 1 : end]
        index = end
        if code != _MAX_RUN + 1 and index < size:
            out.append(0)
    return bytes(out)
