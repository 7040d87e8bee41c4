"""Consistent Overhead Byte Stuffing: removes every 0x00 so that 0x00 can end a frame.

The `cobs` package's C extension does the work when it is built (pip builds it, or installs
the pure-Python package where no compiler is at hand): a short frame is encoded or decoded in
a tenth of a microsecond. Without it, both directions here work a block (a run without 0x00)
at a time with bytes operations in C, never a byte at a time. Either way a malformed input is
a FrameError."""

from collections.abc import Callable

from firmware_bridge.errors import FrameError

_MAX_RUN = 254
_CODES = [bytes((n,)) for n in range(256)]
"""The one-byte code of each block length + 1."""


def _encode(data: bytes) -> bytes:
    """Encode `data` so that the result holds no 0x00 byte (overhead: 1 byte per 254)."""
    if len(data) < _MAX_RUN:
        codes = _CODES
        return b"".join([codes[len(block) + 1] + block for block in data.split(b"\0")])
    out = bytearray()
    for block in data.split(b"\0"):
        while len(block) >= _MAX_RUN:
            out.append(_MAX_RUN + 1)
            out += block[:_MAX_RUN]
            block = block[_MAX_RUN:]
        out.append(len(block) + 1)
        out += block
    return bytes(out)


def _decode(data: bytes) -> bytes:
    """Decode one COBS block sequence (without its 0x00 terminator); FrameError if malformed
    (a 0x00 inside is: COBS never writes one there)."""
    size = len(data)
    if b"\0" in data:
        raise FrameError("malformed COBS encoding", bytes(data))
    if size <= _MAX_RUN:
        # No block can be a full one (code 255) here: every code byte becomes the 0x00 it
        # stands for, and the first goes.
        out = bytearray(data)
        index = 0
        while index < size:
            code = out[index]
            if code == 0 or index + code > size:
                raise FrameError("malformed COBS encoding", bytes(data))
            out[index] = 0
            index += code
        return bytes(out[1:])
    return _decode_long(data)


def _decode_long(data: bytes) -> bytes:
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


def _extension() -> tuple[Callable[[bytes], bytes], Callable[[bytes], bytes]] | None:
    """The C extension's encoder and decoder (None: not built here)."""
    try:
        from cobs import cobs  # type: ignore[import-untyped]
    except ImportError:
        return None
    if not cobs._using_extension:
        return None
    encode: Callable[[bytes], bytes] = cobs.encode
    decode_raw: Callable[[bytes], bytes] = cobs.decode
    refused = cobs.DecodeError

    def decode(data: bytes) -> bytes:
        try:
            return decode_raw(data)
        except refused:
            raise FrameError("malformed COBS encoding", bytes(data)) from None

    return encode, decode


_FAST = _extension()
cobs_encode: Callable[[bytes], bytes] = _FAST[0] if _FAST else _encode
"""Encode `data` so that the result holds no 0x00 byte (overhead: 1 byte per 254)."""
cobs_decode: Callable[[bytes], bytes] = _FAST[1] if _FAST else _decode
"""Decode one COBS block sequence (without its 0x00 terminator); FrameError if malformed."""
