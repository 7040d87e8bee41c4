"""Per-suit tables: every reading of one suit's tiles, memoised on the suit's counts.

A hand is read suit by suit. Each suit's 9 counts (the honours' 7), as bytes (cheap to
slice and hash), key a table entry made the first time those counts are seen: the suit's
readings into sets (and the pair), each already summed up as a `Reading`, and a profile of
which kinds of tile it holds (for the hand's tile facts). Reading or scoring a hand then
costs four look-ups and a join.
"""

from collections.abc import Sequence
from typing import NamedTuple

from controller.rules.blocks import Block, Reading, Shape, block

# Profile bits: which kinds of tile a suit holds.
HOLDS_ANY = 1
HOLDS_TERMINAL = 2
"""A 1 or a 9."""
HOLDS_MIDDLE = 4
"""A 2-8."""
HOLDS_456 = 8
HOLDS_NINE = 16
"""Nine tiles or more (room for three sets)."""
HOLDS_ODD = 32
"""A kind held an odd number of times (so no seven pairs)."""
HOLDS_FOUR = 64
"""All four tiles of a kind."""
PROFILE_BITS = 7
"""Bits per suit when the four suits' profiles are packed into one int (`hand_profile`)."""


def _in_suits(bit: int, suits: range) -> int:
    return sum(bit << (PROFILE_BITS * suit) for suit in suits)


ODD_COUNTS = _in_suits(HOLDS_ODD, range(4))
"""Packed-profile bits: some kind is held an odd number of times."""
MIDDLES = _in_suits(HOLDS_MIDDLE, range(3))
"""Packed-profile bits: some 2-8 is held (so no thirteen orphans)."""


class SuitTable(NamedTuple):
    """What one suit's counts allow: its readings, its pairs, the kinds of tile it holds."""

    readings: tuple[Reading, ...]
    """Every reading into sets (and a pair if the count needs one); none if there is none."""
    pairs: int
    """Pairs in each reading (1 when the suit holds the hand's pair)."""
    profile: int
    """Bits HOLDS_*, shifted to the suit's place in a packed profile (`packed_profile`)."""


def _read(counts: list[int], offset: int, need_pair: bool) -> list[tuple[Block, ...]]:
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
    rest = _read(counts, offset, need_pair)
    for i in used:
        counts[i] += 1
    first = block(shape, offset + low)
    return [(first, *reading) for reading in rest]


def suit_profile(counts: Sequence[int]) -> int:
    """Which kinds of tile one number suit's 9 counts hold (bits HOLDS_*)."""
    return (
        bool(any(counts)) * HOLDS_ANY
        | bool(counts[0] or counts[8]) * HOLDS_TERMINAL
        | bool(any(counts[1:8])) * HOLDS_MIDDLE
        | bool(any(counts[3:6])) * HOLDS_456
        | (sum(counts) >= 9) * HOLDS_NINE
        | _pairing(counts)
    )


def _pairing(counts: Sequence[int]) -> int:
    """The HOLDS_ODD and HOLDS_FOUR bits of any counts."""
    return (HOLDS_ODD if any(n % 2 for n in counts) else 0) | (HOLDS_FOUR if 4 in counts else 0)


def _suit_table(suit: int, counts: bytes) -> SuitTable:
    total = sum(counts)
    if total % 3 == 1:
        return SuitTable((), 0, suit_profile(counts))
    found = _read(list(counts), 9 * suit, total % 3 == 2)
    unique = sorted({tuple(sorted(blocks)) for blocks in found})
    readings = tuple(Reading.of_suit(blocks) for blocks in unique)
    return SuitTable(readings, total % 3 // 2, suit_profile(counts))


def _honour_table(counts: bytes) -> SuitTable:
    profile = (HOLDS_ANY if any(counts) else 0) | _pairing(counts)
    if 1 in counts or 4 in counts:
        return SuitTable((), 0, profile)
    blocks = tuple(
        block(Shape.PAIR if n == 2 else Shape.TRIPLET, 27 + i) for i, n in enumerate(counts) if n
    )
    return SuitTable((Reading.of_suit(blocks),), counts.count(2), profile)


_TABLES: tuple[dict[bytes, SuitTable], ...] = ({}, {}, {}, {})
MEMO_LIMIT = 1024
"""Entries each suit's memo holds at most (the oldest go first): a daemon that checks hands
all day keeps a bounded memo, while the counts of the hands in play stay in it."""


def suit_table(suit: int, counts: bytes) -> SuitTable:
    """The table entry of one suit (0-2 number suits, 3 honours) for its counts. Memoised."""
    cache = _TABLES[suit]
    found = cache.get(counts)
    if found is None:
        found = _honour_table(counts) if suit == 3 else _suit_table(suit, counts)
        if len(cache) >= MEMO_LIMIT:
            del cache[next(iter(cache))]
        found = cache[counts] = found._replace(profile=found.profile << PROFILE_BITS * suit)
    return found


def suit_tables(counts: Sequence[int]) -> tuple[SuitTable, SuitTable, SuitTable, SuitTable]:
    """The table entries of a hand's four suits, from its 34 counts."""
    row = bytes(counts)
    m, p, s, z = row[0:9], row[9:18], row[18:27], row[27:34]
    tm, tp, ts, tz = _TABLES
    return (
        tm.get(m) or suit_table(0, m),
        tp.get(p) or suit_table(1, p),
        ts.get(s) or suit_table(2, s),
        tz.get(z) or suit_table(3, z),
    )


def is_regular(counts: Sequence[int]) -> bool:
    """Whether 34 concealed counts make sets and exactly one pair (stops at the first
    suit that cannot be read)."""
    row = bytes(counts)
    tm, tp, ts, tz = _TABLES
    m = row[0:9]
    a = tm.get(m) or suit_table(0, m)
    if not a.readings:
        return False
    p = row[9:18]
    b = tp.get(p) or suit_table(1, p)
    if not b.readings:
        return False
    s = row[18:27]
    c = ts.get(s) or suit_table(2, s)
    if not c.readings:
        return False
    z = row[27:34]
    h = tz.get(z) or suit_table(3, z)
    return bool(h.readings) and a.pairs + b.pairs + c.pairs + h.pairs == 1


def packed_profile(tables: Sequence[SuitTable]) -> int:
    """The four suits' profiles packed into one int (characters in the lowest bits)."""
    m, p, s, z = tables
    return m.profile | p.profile | s.profile | z.profile


def hand_profile(counts: Sequence[int]) -> int:
    """The packed profile of any 34 counts (e.g. concealed tiles and melds together)."""
    return packed_profile(suit_tables(counts))
