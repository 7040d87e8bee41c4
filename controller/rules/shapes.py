"""Win shapes: every arrangement of a hand into sets and a pair, seven pairs, thirteen orphans.

Concealed tiles are read suit by suit; each suit's readings are memoised on its 9 counts
(and the honours' on their 7), so a hand costs a few dictionary look-ups. `arrangements`
lists every way to read a winning hand (freedom of count: a ruleset scores each and keeps
the best); `is_win` only answers yes or no.
"""

from collections.abc import Sequence
from enum import IntEnum
from operator import itemgetter
from typing import NamedTuple

from controller.rules.hand import Meld, MeldKind
from controller.rules.notation import format_tiles
from controller.rules.tiles import KINDS, ORPHANS


class Shape(IntEnum):
    """What a block of tiles is."""

    SEQUENCE = 0
    TRIPLET = 1
    KONG = 2
    PAIR = 3


class Form(IntEnum):
    """The kind of winning hand."""

    REGULAR = 0
    SEVEN_PAIRS = 1
    THIRTEEN_ORPHANS = 2
    SPECIAL = 3
    """A ruleset's own winning shape (e.g. Shanghai's Jumbled Winds), from its own hook."""


FORM_NAMES = {
    Form.REGULAR: "regular",
    Form.SEVEN_PAIRS: "seven-pairs",
    Form.THIRTEEN_ORPHANS: "thirteen-orphans",
    Form.SPECIAL: "special",
}
ALL_FORMS = frozenset(Form)
_REGULAR, _SEVEN_PAIRS, _THIRTEEN_ORPHANS, _SPECIAL = Form
_TRIPLET = Shape.TRIPLET
_SIZES = (3, 3, 4, 2)


class Block(NamedTuple):
    """A set or pair: its shape, lowest tile, whether it is concealed, whether it was declared."""

    shape: Shape
    tile: int
    concealed: bool
    declared: bool = False

    def tiles(self) -> tuple[int, ...]:
        """The tile kinds of the block."""
        if self.shape is Shape.SEQUENCE:
            return (self.tile, self.tile + 1, self.tile + 2)
        return (self.tile,) * _SIZES[self.shape]

    def holds(self, kind: int) -> bool:
        """Whether the block contains a tile of `kind`."""
        if self.shape is Shape.SEQUENCE:
            return self.tile <= kind <= self.tile + 2
        return self.tile == kind


# Every block exists once: readings are tuples of these shared objects.
_BLOCKS = {
    (shape, tile, concealed, declared): Block(shape, tile, concealed, declared)
    for shape in Shape
    for tile in range(KINDS)
    for concealed in (False, True)
    for declared in (False, True)
}


def block(shape: Shape, tile: int, concealed: bool = True, declared: bool = False) -> Block:
    """The shared Block object for these values."""
    return _BLOCKS[shape, tile, concealed, declared]


class Arrangement(NamedTuple):
    """One reading of a winning hand; `win_block` indexes the block holding the winning tile.

    A SPECIAL reading may have no blocks (then `win_block` is -1).
    """

    form: Form
    blocks: tuple[Block, ...]
    win_block: int

    def describe(self) -> str:
        """The reading in notation: concealed blocks plain, declared ones in brackets."""
        if self.form is Form.THIRTEEN_ORPHANS:
            return "thirteen orphans, pair " + format_tiles(self.blocks[0].tiles())
        if not self.blocks:
            return FORM_NAMES[self.form]
        parts = []
        for item in sorted(self.blocks, key=lambda b: (b.declared, b.tile, b.shape)):
            text = format_tiles(item.tiles())
            parts.append(f"[{text}]" if item.declared else text)
        return " ".join(parts)


Reading = tuple[Block, ...]
_EMPTY: tuple[tuple[Reading, ...], int] = (((),), 0)
_NONE: tuple[tuple[Reading, ...], int] = ((), 0)


def _read_suit(counts: list[int], offset: int, need_pair: bool) -> list[Reading]:
    low = next((i for i, n in enumerate(counts) if n), -1)
    if low < 0:
        return [] if need_pair else [()]
    found: list[Reading] = []
    if counts[low] >= 3:
        found += _take(counts, offset, need_pair, Shape.TRIPLET, low, (low, low, low))
    if low <= 6 and counts[low + 1] and counts[low + 2]:
        found += _take(counts, offset, need_pair, Shape.SEQUENCE, low, (low, low + 1, low + 2))
    if need_pair and counts[low] >= 2:
        found += _take(counts, offset, False, Shape.PAIR, low, (low, low))
    return found


def _take(
    counts: list[int], offset: int, need_pair: bool, shape: Shape, low: int, used: tuple[int, ...]
) -> list[Reading]:
    for i in used:
        counts[i] -= 1
    rest = _read_suit(counts, offset, need_pair)
    for i in used:
        counts[i] += 1
    first = block(shape, offset + low)
    return [(first, *reading) for reading in rest]


_SUITS: tuple[dict[tuple[int, ...], tuple[tuple[Reading, ...], int]], ...] = tuple(
    {(0,) * 9: _EMPTY} for _ in range(3)
)


def suit_readings(suit: int, counts: tuple[int, ...]) -> tuple[tuple[Reading, ...], int]:
    """Every reading of one suit's 9 counts into sets (and the pair if it needs one).

    Returns (readings, pairs): no readings if the suit cannot be read; pairs is 1 when the
    suit holds the hand's pair. Memoised.
    """
    cache = _SUITS[suit]
    found = cache.get(counts)
    if found is None:
        total = sum(counts)
        if total % 3 == 1:
            found = _NONE
        else:
            readings = _read_suit(list(counts), 9 * suit, total % 3 == 2)
            unique = tuple(sorted({tuple(sorted(reading)) for reading in readings}))
            found = (unique, total % 3 // 2)
        cache[counts] = found
    return found


_HONOURS: dict[tuple[int, ...], tuple[tuple[Reading, ...], int]] = {}


def honour_readings(counts: tuple[int, ...]) -> tuple[tuple[Reading, ...], int]:
    """The honours' only reading (triplets and pairs), or none. Memoised."""
    found = _HONOURS.get(counts)
    if found is None:
        if any(n in (1, 4) for n in counts):
            found = _NONE
        else:
            blocks = tuple(
                block(Shape.PAIR if n == 2 else Shape.TRIPLET, 27 + i)
                for i, n in enumerate(counts)
                if n
            )
            found = ((blocks,), sum(1 for n in counts if n == 2))
        _HONOURS[counts] = found
    return found


def regular_readings(counts: Sequence[int]) -> list[Reading]:
    """Every reading of 34 concealed counts into sets and exactly one pair."""
    row = tuple(counts)
    m, p, s, z = row[0:9], row[9:18], row[18:27], row[27:34]
    a, pa = _SUITS[0].get(m) or suit_readings(0, m)
    if not a:
        return []
    b, pb = _SUITS[1].get(p) or suit_readings(1, p)
    if not b:
        return []
    c, pc = _SUITS[2].get(s) or suit_readings(2, s)
    if not c:
        return []
    h, ph = _HONOURS.get(z) or honour_readings(z)
    if not h or pa + pb + pc + ph != 1:
        return []
    honours = h[0]
    if len(a) == len(b) == len(c) == 1:
        return [a[0] + b[0] + c[0] + honours]
    return [x + y + z + honours for x in a for y in b for z in c]


def is_regular(counts: Sequence[int]) -> bool:
    """Whether 34 concealed counts make sets and exactly one pair."""
    row = tuple(counts)
    m, p, s, z = row[0:9], row[9:18], row[18:27], row[27:34]
    a, pa = _SUITS[0].get(m) or suit_readings(0, m)
    if not a:
        return False
    b, pb = _SUITS[1].get(p) or suit_readings(1, p)
    if not b:
        return False
    c, pc = _SUITS[2].get(s) or suit_readings(2, s)
    if not c:
        return False
    h, ph = _HONOURS.get(z) or honour_readings(z)
    return bool(h) and pa + pb + pc + ph == 1


def is_seven_pairs(counts: Sequence[int], allow_four: bool = True) -> bool:
    """Whether 34 counts are seven pairs (four of a kind as two pairs when `allow_four`)."""
    if 1 in counts or 3 in counts or (not allow_four and 4 in counts):
        return False
    return sum(counts[:KINDS]) == 14


_ORPHAN_COUNTS = itemgetter(*ORPHANS)


def is_thirteen_orphans(counts: Sequence[int]) -> bool:
    """One of each terminal and honour plus one more of them."""
    orphans = _ORPHAN_COUNTS(counts)
    return 0 not in orphans and sum(orphans) == 14 == sum(counts[:KINDS])


def is_win(
    counts: Sequence[int], forms: frozenset[Form] = ALL_FORMS, allow_four: bool = True
) -> bool:
    """Whether concealed counts (declared melds already taken out) make a winning shape."""
    if Form.REGULAR in forms and is_regular(counts):
        return True
    if Form.SEVEN_PAIRS in forms and is_seven_pairs(counts, allow_four):
        return True
    return Form.THIRTEEN_ORPHANS in forms and is_thirteen_orphans(counts)


def count_tiles(tiles: Sequence[int]) -> list[int]:
    """Counts per kind (34) of tiles (no flowers)."""
    counts = [0] * KINDS
    for tile in tiles:
        counts[tile] += 1
    return counts


def meld_block(meld: Meld) -> Block:
    """The block a declared meld stands for."""
    if meld.kind is MeldKind.CHOW:
        return block(Shape.SEQUENCE, meld.first, False, True)
    if meld.kind is MeldKind.PUNG:
        return block(Shape.TRIPLET, meld.first, False, True)
    return block(Shape.KONG, meld.first, meld.kind is MeldKind.CONCEALED_KONG, True)


def arrangements(
    counts: Sequence[int],
    melds: Sequence[Meld],
    win_tile: int,
    self_drawn: bool,
    forms: frozenset[Form] = ALL_FORMS,
    allow_four: bool = True,
) -> list[Arrangement]:
    """Every reading of a hand (concealed `counts` plus `melds`), per place of the winning tile.

    A triplet completed by a discard is not concealed; where the winning tile could sit in
    a sequence or the pair instead, each choice is a separate reading.
    """
    found: list[Arrangement] = []
    if _REGULAR in forms:
        declared = tuple(meld_block(meld) for meld in melds) if melds else ()
        for reading in regular_readings(counts):
            _place(found, reading, declared, win_tile, self_drawn)
    if melds:
        return found
    if _SEVEN_PAIRS in forms and is_seven_pairs(counts, allow_four):
        pairs = tuple(block(Shape.PAIR, k) for k, n in enumerate(counts) for _ in range(n // 2))
        found.append(Arrangement(Form.SEVEN_PAIRS, pairs, _first_holding(pairs, win_tile)))
    if _THIRTEEN_ORPHANS in forms and is_thirteen_orphans(counts):
        double = next(k for k in ORPHANS if counts[k] == 2)
        found.append(Arrangement(Form.THIRTEEN_ORPHANS, (block(Shape.PAIR, double),), 0))
    return found


def _place(
    found: list[Arrangement],
    reading: Reading,
    declared: tuple[Block, ...],
    win_tile: int,
    self_drawn: bool,
) -> None:
    seen = [False, False, False, False]
    for index, item in enumerate(reading):
        shape = item.shape
        tile = item.tile
        if seen[shape] or not (tile <= win_tile <= tile + 2 if shape == 0 else tile == win_tile):
            continue
        seen[shape] = True
        if shape == 1 and not self_drawn:
            opened = _BLOCKS[_TRIPLET, tile, False, False]
            blocks = reading[:index] + (opened,) + reading[index + 1 :]
            found.append(Arrangement(_REGULAR, blocks + declared, index))
        else:
            found.append(Arrangement(_REGULAR, reading + declared, index))


def _first_holding(blocks: tuple[Block, ...], kind: int) -> int:
    return next(i for i, item in enumerate(blocks) if item.holds(kind))


def waits(
    concealed: Sequence[int],
    forms: frozenset[Form] = ALL_FORMS,
    allow_four: bool = True,
    held: Sequence[int] = (),
) -> list[int]:
    """The kinds that complete concealed tiles (3n+1 of them) into a winning shape.

    A kind of which the player already holds all four (in `concealed` or `held`, e.g. the
    melds) cannot come and is left out.
    """
    counts = count_tiles(concealed)
    seen = count_tiles(held)
    result = []
    for kind in range(KINDS):
        if counts[kind] + seen[kind] >= 4:
            continue
        counts[kind] += 1
        if is_win(counts, forms, allow_four):
            result.append(kind)
        counts[kind] -= 1
    return result
