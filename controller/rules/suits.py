"""Per-suit tables: every reading of one suit's tiles, memoised on the suit's counts.

A hand is read suit by suit. Each suit's 9 counts (the honours' 7), as bytes (cheap to
slice and hash), key a table entry made the first time those counts are seen: the suit's
readings into sets (and the pair), each as its blocks' codes (`blocks.read_codes`), and a
profile of which kinds of tile it holds (for the hand's tile facts). Reading or scoring a
hand then costs four look-ups and a join of codes.

A number suit's readings come from the table shipped with the package (`suit_search`), read
once at import: a suit never seen before costs a look-up and a slice of its codes,
never a search; the win check needs only to know that a suit's counts are in the table.
"""

from array import array
from collections.abc import Sequence
from struct import Struct, unpack_from
from sys import byteorder
from typing import Final

from controller.rules.blocks import TILE_BITS, Reading, Shape, block_code, read_codes
from controller.rules.suit_profile import (
    HOLDS_456,
    HOLDS_ANY,
    HOLDS_FOUR,
    HOLDS_MIDDLE,
    HOLDS_NINE,
    HOLDS_ODD,
    HOLDS_TERMINAL,
    suit_profile,
)
from controller.rules.suit_search import (
    FORMAT,
    KEY_SIZE,
    MOST_OF_A_KIND,
    MOST_TILES,
    TABLE_FILE,
    readings,
)

__all__ = [
    "CODES",
    "HOLDS_456",
    "HOLDS_ANY",
    "HOLDS_FOUR",
    "HOLDS_MIDDLE",
    "HOLDS_NINE",
    "HOLDS_ODD",
    "HOLDS_TERMINAL",
    "MIDDLES",
    "ODD_COUNTS",
    "PAIRS",
    "PROFILE_BITS",
    "SuitTable",
    "hand_profile",
    "hand_tables",
    "is_regular",
    "packed_profile",
    "suit_profile",
    "suit_readings",
    "suit_table",
    "suit_tables",
]

PROFILE_BITS = 7
"""Bits per suit when the four suits' profiles are packed into one int (`hand_profile`)."""


def _in_suits(bit: int, suits: range) -> int:
    return sum(bit << (PROFILE_BITS * suit) for suit in suits)


ODD_COUNTS = _in_suits(HOLDS_ODD, range(4))
"""Packed-profile bits: some kind is held an odd number of times."""
MIDDLES = _in_suits(HOLDS_MIDDLE, range(3))
"""Packed-profile bits: some 2-8 is held (so no thirteen orphans)."""


_EMPTY_SUIT = bytes(9)


SuitTable = tuple[tuple[bytes, ...], int, int, int, int, int]
"""What one suit's counts allow, as a plain tuple (a suit never seen before makes one, and a
named tuple costs a call more): `(codes, pairs, profile, facts, census, pair)`.

- codes: every reading into sets (and a pair if the count needs one) as its blocks' codes
  (`blocks.read_codes`), sorted; none if there is none.
- pairs: pairs in each reading (1 when the suit holds the hand's pair).
- profile: bits HOLDS_*, shifted to the suit's place in a packed profile (`packed_profile`).
- facts: this suit's part of the key of the hand's tile facts (`views.facts_key`): the four
  suits' parts or'ed together make it.
- census: the `blocks.census` of the suit's reading when it reads one way, else 0 (a hand's
  is the sum of its suits').
- pair: the code of its pair (`blocks.block_code`) when the suit reads one way with a pair,
  else 0.
"""
CODES: Final = 0
PAIRS: Final = 1
"""Where a SuitTable holds its codes and its pairs."""


def suit_readings(table: SuitTable) -> tuple[Reading, ...]:
    """A suit table's readings, each summed up on its own."""
    return tuple(map(read_codes, table[CODES]))


_FACTS_SUIT_SHIFT = 2 * PROFILE_BITS
"""Where a number suit's part of a tile-facts key (`views.facts_key`) says it holds a tile:
bit _FACTS_SUIT_SHIFT + suit; its profile bits go in the lowest bits, the honours' above."""


def _placed(suit: int) -> tuple[tuple[int, int], ...]:
    """A number suit's SuitTable profile and facts for each of its profiles (bits HOLDS_*)."""
    return tuple(
        (bits << PROFILE_BITS * suit, bits | (bits & HOLDS_ANY) << _FACTS_SUIT_SHIFT + suit)
        for bits in range(1 << PROFILE_BITS)
    )


_PLACED = tuple(map(_placed, range(3)))


_ODD = bytes(n % 2 for n in range(256))
"""Each count's parity, for bytes.translate."""


def _pairing(counts: bytes) -> int:
    """The HOLDS_ODD and HOLDS_FOUR bits of any counts."""
    return (HOLDS_ODD if 1 in counts.translate(_ODD) else 0) | (HOLDS_FOUR if 4 in counts else 0)


def _load() -> "tuple[dict[bytes, int], array[int], array[int], bytes, bytes, int]":
    """The shipped table (see `suit_search`): each key's index, the offsets of its readings,
    the censuses, the profiles, the readings, how many keys need no pair."""
    data = TABLE_FILE.read_bytes()
    layout, size, unpaired = unpack_from("<III", data)
    if layout != FORMAT:
        raise RuntimeError(f"{TABLE_FILE} is stale: python -m controller.rules.suit_search")
    at = 12
    keys = Struct(f"{KEY_SIZE}s" * size).unpack_from(data, at)  # (one C call for all)
    at += KEY_SIZE * size
    offsets, censuses = array("I"), array("I")
    offsets.frombytes(data[at : at + 4 * (size + 1)])
    at += 4 * (size + 1)
    censuses.frombytes(data[at : at + 4 * size])
    at += 4 * size
    if byteorder != "little":
        offsets.byteswap()
        censuses.byteswap()
    index = dict(zip(keys, range(size), strict=True))
    return index, offsets, censuses, data[at : at + size], data[at + size :], unpaired


_INDEX, _OFFSETS, _CENSUSES, _PROFILES, _CODES, _UNPAIRED = _load()
"""Each number-suit count's index in the table (made at import: a suit never seen before is
then one look-up); the keys without a pair come first, _UNPAIRED of them. A key's readings
are _CODES[_OFFSETS[index] : _OFFSETS[index + 1]]."""


def _suit_codes(suit: int) -> bytes:
    """A number suit's block codes in the table (shape * 16 + tile in the suit) to codes
    (`blocks.block_code`), for bytes.translate."""
    table = bytearray(256)
    for shape in Shape:  # (`blocks.block_code` of each tile of the suit)
        first = block_code(shape, 9 * suit)
        table[shape * 16 : shape * 16 + 9] = range(first, first + 9)
    return bytes(table)


_SUIT_CODES = tuple(_CODES.translate(_suit_codes(suit)) for suit in range(3))
"""The readings of each number suit as its codes, translated at import (their counts of
blocks come out garbled: those are read in _CODES)."""


def _stored(suit: int, index: int) -> tuple[bytes, ...]:
    """The readings (codes) of a number suit's counts at `index` in the table."""
    start, end = _OFFSETS[index], _OFFSETS[index + 1]
    codes = _SUIT_CODES[suit]
    found = []
    while start < end:
        after = start + 1 + _CODES[start]
        found.append(codes[start + 1 : after])
        start = after
    return tuple(found)


def _suit_table(suit: int, counts: bytes) -> SuitTable:
    """Make a number suit's table entry and keep it in the suit's memo (`_remember`)."""
    index = _INDEX.get(counts)
    if index is not None:  # the table has its readings, whether they need a pair, its profile
        start, end = _OFFSETS[index], _OFFSETS[index + 1]
        pairs = 1 if index >= _UNPAIRED else 0
        placed, facts = _PLACED[suit][_PROFILES[index]]
        found: SuitTable
        if _CODES[start] == end - start - 1:  # most counts read one way only
            codes = _SUIT_CODES[suit][start + 1 : end]  # (sorted: a pair comes last)
            found = ((codes,), pairs, placed, facts, _CENSUSES[index], codes[-1] if pairs else 0)
        else:
            found = (_stored(suit, index), pairs, placed, facts, 0, 0)
    else:  # unreadable, or outside the table (over 14 tiles, or over 4 of a kind)
        total = sum(counts)
        parts: tuple[bytes, ...] = ()
        if total % 3 != 1 and (total > MOST_TILES or max(counts) > MOST_OF_A_KIND):
            parts = tuple(
                bytes(block_code(shape, tile) for shape, tile, _, _ in blocks)
                for blocks in readings(counts, 9 * suit)
            )
        placed, facts = _PLACED[suit][suit_profile(counts)]
        found = (parts, total % 3 // 2, placed, facts, *_one_way(parts))
    cache = _TABLES[suit]  # (`_remember`, inlined)
    if len(cache) >= MEMO_LIMIT:
        del cache[next(iter(cache))]
    cache[counts] = found
    return found


def _one_way(parts: tuple[bytes, ...]) -> tuple[int, int]:
    """The SuitTable census and pair of readings (codes) made here, not read from the table."""
    if len(parts) != 1:
        return 0, 0
    reading = read_codes(parts[0])
    pairs = reading.pairs
    return reading.census, block_code(Shape.PAIR, pairs[0]) if len(pairs) == 1 else 0


def _honours_read(counts: bytes) -> bool:
    """Whether the honours' 7 counts (each at most 4) read as sets and pairs: honours make
    no sequences, so none may be held once, or four times (a kong is declared, not held)."""
    return 1 not in counts and 4 not in counts


def _honour_table(counts: bytes) -> SuitTable:
    bits = (HOLDS_ANY if any(counts) else 0) | _pairing(counts)
    profile, facts = bits << PROFILE_BITS * 3, bits << PROFILE_BITS
    if not _honours_read(counts):
        return (), 0, profile, facts, 0, 0
    codes = bytes(
        block_code(Shape.PAIR if n == 2 else Shape.TRIPLET, 27 + i)
        for i, n in enumerate(counts)
        if n
    )
    return (codes,), counts.count(2), profile, facts, *_one_way((codes,))


_TABLES: tuple[dict[bytes, SuitTable], ...] = ({}, {}, {}, {})
MEMO_LIMIT = 1024
"""Entries each suit's memo holds at most (the oldest go first): a daemon that checks hands
all day keeps a bounded memo, while the counts of the hands in play stay in it."""


def suit_table(suit: int, counts: bytes) -> SuitTable:
    """The table entry of one suit (0-2 number suits, 3 honours) for its counts. Memoised."""
    found = _TABLES[suit].get(counts)
    return _remember(suit, counts) if found is None else found


def _remember(suit: int, counts: bytes) -> SuitTable:
    """Make a suit's table entry and keep it in the suit's memo."""
    if suit != 3:
        return _suit_table(suit, counts)
    cache = _TABLES[3]
    found = _honour_table(counts)
    if len(cache) >= MEMO_LIMIT:
        del cache[next(iter(cache))]
    cache[counts] = found
    return found


_split = Struct("9s9s9s7s").unpack
"""A hand's 34 counts (bytes) cut into its four suits' (one C call for four slices)."""


def suit_tables(counts: Sequence[int]) -> tuple[SuitTable, SuitTable, SuitTable, SuitTable]:
    """The table entries of a hand's four suits, from its 34 counts."""
    m, p, s, z = _split(bytes(counts))
    tm, tp, ts, tz = _TABLES
    return (
        tm.get(m) or _suit_table(0, m),
        tp.get(p) or _suit_table(1, p),
        ts.get(s) or _suit_table(2, s),
        tz.get(z) or _remember(3, z),
    )


Tables = tuple[SuitTable, SuitTable, SuitTable, SuitTable]


OneWay = tuple[tuple[bytes, bytes, bytes, bytes], int, int]
"""A concealed hand whose suits read one way each, with one pair among them: each suit's
reading (codes), the hand's census (`blocks.census`) and its pair's tile."""


def hand_tables(counts: Sequence[int]) -> tuple[Tables, int, int, OneWay | None]:
    """What scoring reads of a hand's 34 concealed counts: the four `suit_tables`, their
    `packed_profile`, the key of its tile facts (`views.facts_key` of it), and, when every
    suit reads one way and one of them holds the pair (most hands), that reading."""
    m, p, s, z = _split(bytes(counts))
    tm, tp, ts, tz = _TABLES
    tables = (
        tm.get(m) or _suit_table(0, m),
        tp.get(p) or _suit_table(1, p),
        ts.get(s) or _suit_table(2, s),
        tz.get(z) or _remember(3, z),
    )
    (
        (mc, mp, mprofile, mf, mn, mq),
        (pc, pp, pprofile, pf, pn, pq),
        (sc, sp, sprofile, sf, sn, sq),
        (zc, zp, zprofile, zf, zn, zq),
    ) = tables
    packed = mprofile | pprofile | sprofile | zprofile
    key = mf | pf | sf | zf
    if len(mc) == len(pc) == len(sc) == len(zc) == 1 and mp + pp + sp + zp == 1:
        parts = (mc[0], pc[0], sc[0], zc[0])
        return tables, packed, key, (parts, mn + pn + sn + zn, (mq | pq | sq | zq) & TILE_BITS)
    return tables, packed, key, None


def is_regular(counts: Sequence[int]) -> bool:
    """Whether 34 concealed counts make sets and exactly one pair (stops at the first
    suit that cannot be read). A number suit only has to be in the table."""
    row = bytes(counts)
    if max(row) > MOST_OF_A_KIND:
        return _is_regular_read(row)
    honours = row[27:34]
    if not _honours_read(honours):
        return False
    pairs = honours.count(2)
    for part in (row[0:9], row[9:18], row[18:27]):
        if part != _EMPTY_SUIT:
            found = _INDEX.get(part)
            if found is None:
                return sum(part) > MOST_TILES and _is_regular_read(row)
            pairs += found >= _UNPAIRED
    return pairs == 1


def _is_regular_read(row: bytes) -> bool:
    """`is_regular` through the suits' readings (any counts)."""
    tm, tp, ts, tz = _TABLES
    m = row[0:9]
    a = tm.get(m) or _remember(0, m)
    if not a[CODES]:
        return False
    p = row[9:18]
    b = tp.get(p) or _remember(1, p)
    if not b[CODES]:
        return False
    s = row[18:27]
    c = ts.get(s) or _remember(2, s)
    if not c[CODES]:
        return False
    z = row[27:34]
    h = tz.get(z) or _remember(3, z)
    return bool(h[CODES]) and a[PAIRS] + b[PAIRS] + c[PAIRS] + h[PAIRS] == 1


def packed_profile(tables: Sequence[SuitTable]) -> int:
    """The four suits' profiles packed into one int (characters in the lowest bits)."""
    (_, _, m, _, _, _), (_, _, p, _, _, _), (_, _, s, _, _, _), (_, _, z, _, _, _) = tables
    return m | p | s | z


def hand_profile(counts: Sequence[int]) -> int:
    """The packed profile of any 34 counts (e.g. concealed tiles and melds together)."""
    return packed_profile(suit_tables(counts))
