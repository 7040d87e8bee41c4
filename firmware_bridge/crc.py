"""CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection), the frame checksum."""

import binascii


def crc16(data: bytes | bytearray | memoryview) -> int:
    """The CRC-16/CCITT-FALSE of `data` (0x29B1 for b"123456789")."""
    return binascii.crc_hqx(data, 0xFFFF)
