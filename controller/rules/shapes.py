"""Win shapes: every arrangement of a hand into sets and a pair, seven pairs, thirteen orphans.

Concealed tiles are read suit by suit from memoised per-suit tables (`suits`), so a hand
costs a few dictionary look-ups. `arrangements` lists every way to read a winning hand
(freedom of count: a ruleset scores each and keeps the best); `is_win` only answers yes or no.
"""

from bisect import bisect_left
from collections.abc import Sequence
from enum import IntEnum
from itertools import product
from operator import itemgetter
from typing import NamedTuple

from controller.rules.blocks import (
    CODE_SHIFT,
    Block,
    Reading,
    Shape,
    block,
    meld_block,
    read_codes,
    with_declared,
)
from controller.rules.hand import Meld
from controller.rules.notation import format_tiles
from controller.rules.suits import (
    MIDDLES,
    ODD_COUNTS,
    SuitTable,
    is_regular,
    packed_profile,
    suit_tables,
)
from controller.rules.tiles import EAST, KINDS, ORPHANS

__all__ = [
    "ALL_FORMS",
    "FORMS_BY_NAME",
    "FORM_NAMES",
    "Arrangement",
    "Block",
    "Form",
    "Shape",
    "arrangements",
    "block",
    "count_tiles",
    "declared_reading",
    "irregular_arrangements",
    "is_regular",
    "is_seven_pairs",
    "is_thirteen_orphans",
    "is_win",
    "meld_block",
    "regular_readings",
    "waits",
]


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
FORMS_BY_NAME = {name: form for form, name in FORM_NAMES.items()}
ALL_FORMS = frozenset(Form)
# Module constants: looking a member up on its enum class is slow (the enum's metaclass has
# a __getattr__), and the win check and scoring ask these for every hand.
_REGULAR, _SEVEN_PAIRS, _THIRTEEN_ORPHANS, _SPECIAL = Form
_TRIPLET, _PAIR = Shape.TRIPLET, Shape.PAIR
_TRIPLET_CODE, _PAIR_CODE = _TRIPLET << CODE_SHIFT, _PAIR << CODE_SHIFT


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
    if _REGULAR in forms and is_regular(counts):
        return True
    if _SEVEN_PAIRS in forms and is_seven_pairs(counts, allow_four):
        return True
    return _THIRTEEN_ORPHANS in forms and is_thirteen_orphans(counts)


def count_tiles(tiles: Sequence[int]) -> list[int]:
    """Counts per kind (34) of tiles (no flowers)."""
    counts = [0] * KINDS
    for tile in tiles:
        counts[tile] += 1
    return counts


def declared_reading(melds: Sequence[Meld]) -> Reading | None:
    """The declared melds as a reading (None when there are none)."""
    return Reading.of(tuple(meld_block(meld) for meld in melds)) if melds else None


def regular_readings(
    tables: Sequence[SuitTable],
    declared: Reading | None,
    win_tile: int,
    self_drawn: bool,
    every_place: bool = True,
) -> list[tuple[Reading, int]]:
    """Every reading of a regular hand (four sets and a pair), once per place of the winning
    tile: (reading, index of the block holding the winning tile).

    `tables` are `suit_tables` of the concealed counts. The first block of each shape that
    holds the winning tile is a place; a triplet completed by a discard is not concealed.
    Without `every_place`, places that leave the same blocks give the first one only.
    """
    (m, mp, *_), (p, pp, *_), (s, sp, *_), (z, zp, *_) = tables
    if not (m and p and s and z) or mp + pp + sp + zp != 1:
        return []
    suit = win_tile // 9
    kind = win_tile
    triplet, pair = _TRIPLET_CODE | kind, _PAIR_CODE | kind
    found: list[tuple[Reading, int]] = []
    for parts in product(m, p, s, z):
        reading = read_codes(b"".join(parts))
        if declared is not None:
            reading = with_declared(reading, declared)
        offset = sum(map(len, parts[:suit]))  # blocks of the suits before the winning tile's
        codes = parts[suit]
        # The places of `blocks.code_places`, inlined: most hands have one reading.
        placed = False  # the reading as it is, with the winning tile in some place
        if kind < EAST:
            first = bisect_left(codes, kind - 2)  # the first sequence that may hold it
            if first < len(codes) and codes[first] <= kind:
                found.append((reading, offset + first))
                placed = True
        at = codes.find(triplet)
        if at >= 0:
            if self_drawn:
                if every_place or not placed:
                    found.append((reading, offset + at))
                    placed = True
            else:
                found.append((reading.opened(offset + at), offset + at))
        at = codes.find(pair)
        if at >= 0 and (every_place or not placed):
            found.append((reading, offset + at))
    return found


def irregular_arrangements(
    counts: Sequence[int], packed: int, win_tile: int, forms: frozenset[Form], allow_four: bool
) -> list[Arrangement]:
    """Seven pairs and thirteen orphans readings of concealed counts (no melds), if `forms`
    has them. `packed` is the counts' `suits.packed_profile`: it rules both out cheaply."""
    found = []
    if packed & ODD_COUNTS == 0 and _SEVEN_PAIRS in forms and is_seven_pairs(counts, allow_four):
        pairs = tuple(block(_PAIR, k) for k, n in enumerate(counts) for _ in range(n // 2))
        found.append(Arrangement(_SEVEN_PAIRS, pairs, _first_holding(pairs, win_tile)))
    if packed & MIDDLES == 0 and _THIRTEEN_ORPHANS in forms and is_thirteen_orphans(counts):
        double = next(k for k in ORPHANS if counts[k] == 2)
        found.append(Arrangement(_THIRTEEN_ORPHANS, (block(_PAIR, double),), 0))
    return found


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
    tables = suit_tables(counts)
    if _REGULAR in forms:
        regular = regular_readings(tables, declared_reading(melds), win_tile, self_drawn)
        found += [Arrangement(_REGULAR, reading.blocks, index) for reading, index in regular]
    if melds:
        return found
    packed = packed_profile(tables)
    return found + irregular_arrangements(counts, packed, win_tile, forms, allow_four)


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
