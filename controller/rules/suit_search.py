"""Every reading of one suit's tiles by search, and the table of them shipped with the package.

`search` tries every way to take sets (and the pair) off a suit's counts: the reference the
shipped table is made from and checked against, and the fallback for counts outside it. The
table (`suit_readings.bin`, made by `python -m controller.rules.suit_search`) holds the readings
of every number-suit count with at most 4 of a kind and 14 tiles that can be read at all, so a
suit never seen before costs a look-up, not a search.

File layout (little-endian): FORMAT (uint32); N (uint32); P (uint32): how many keys come
first that need no pair; N keys (the 9 counts, a byte each; those without a pair first, each
part ascending); N + 1 offsets (uint32) into the readings; N censuses (uint32: the
`blocks.census` of the key's reading if it reads one way, else 0); N profiles (one byte
each: `suits.suit_profile` of the key's counts); then the readings: at each offset the key's
readings, each a count of blocks (one byte) and that many block codes (shape * 16 + lowest
tile, tile 0-8).
"""

import struct
import sys
from array import array
from itertools import product
from pathlib import Path

from controller.rules.blocks import Block, Reading, Shape, block
from controller.rules.suit_profile import suit_profile

TABLE_FILE = Path(__file__).with_name("suit_readings.bin")
MOST_OF_A_KIND = 4
MOST_TILES = 14
FORMAT = 5
"""The file layout's version: a table of another layout is stale."""
KEY_SIZE = 9
"""Bytes per key: a number suit's counts, as the suit tables' memos are keyed."""


def search(counts: list[int], offset: int, need_pair: bool) -> list[tuple[Block, ...]]:
    """Every way to read the counts (a suit starting at tile `offset`) as sets and, if
    `need_pair`, one pair; blocks in the order taken (a reading may come more than once)."""
    low = next((i for i, n in enumerate(counts) if n), -1)
    if low < 0:
        return [] if need_pair else [()]
    found: list[tuple[Block, ...]] = []
    if counts[low] >= 3:
        found += _take(counts, offset, need_pair, Shape.TRIPLET, low, (low, low, low))
    if low <= 6 and counts[low + 1] and counts[low + 2]:
        found += _take(counts, offset, need_pair, Shape.SEQUENCE, low, (low, low + 1, low + 2))
    if need_pair and counts[low] >= 2:
        found += _take(counts, offset, False, Shape.PAIR, low, (low, low))
    return found


def _take(
    counts: list[int], offset: int, need_pair: bool, shape: Shape, low: int, used: tuple[int, ...]
) -> list[tuple[Block, ...]]:
    for i in used:
        counts[i] -= 1
    rest = search(counts, offset, need_pair)
    for i in used:
        counts[i] += 1
    first = block(shape, offset + low)
    return [(first, *reading) for reading in rest]


def readings(counts: bytes, offset: int) -> list[tuple[Block, ...]]:
    """The distinct readings of a number suit's counts, each's blocks sorted, in sorted order
    (none when the counts cannot be read)."""
    total = sum(counts)
    if total % 3 == 1:
        return []
    found = search(list(counts), offset, total % 3 == 2)
    return sorted({tuple(sorted(blocks)) for blocks in found})


def build() -> bytes:
    """The table file's bytes, by searching every count the table covers."""
    entries: list[tuple[bool, bytes, bytes, int, int]] = []
    for row in product(range(MOST_OF_A_KIND + 1), repeat=9):
        counts = bytes(row)
        if sum(counts) > MOST_TILES:
            continue
        found = readings(counts, 0)
        if found:
            encoded = b"".join(
                bytes([len(blocks), *(item.shape * 16 + item.tile for item in blocks)])
                for blocks in found
            )
            census = Reading.of(found[0]).census if len(found) == 1 else 0
            entries.append((sum(counts) % 3 == 2, counts, encoded, census, suit_profile(counts)))
    entries.sort()
    keys = b"".join(key for _, key, *_ in entries)
    offsets = array("I", [0])
    for _, _, encoded, _, _ in entries:
        offsets.append(offsets[-1] + len(encoded))
    censuses = array("I", (census for *_, census, _ in entries))
    if sys.byteorder != "little":
        offsets.byteswap()
        censuses.byteswap()
    profiles = bytes(profile for *_, profile in entries)
    body = b"".join(encoded for _, _, encoded, _, _ in entries)
    unpaired = sum(not paired for paired, *_ in entries)
    head = struct.pack("<III", FORMAT, len(entries), unpaired)
    return head + keys + offsets.tobytes() + censuses.tobytes() + profiles + body


def main() -> None:
    """Write the table file next to this module."""
    TABLE_FILE.write_bytes(build())
    sys.stdout.write(f"wrote {TABLE_FILE} ({TABLE_FILE.stat().st_size} bytes)\n")


if __name__ == "__main__":
    main()
