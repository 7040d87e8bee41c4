"""Blocks (sets and pairs) and readings: a hand's blocks with what they add up to.

A `Reading` carries, beside its blocks, the facts the pattern checks read (sequences,
triplets, pairs, kongs, concealed sets), so they are worked out once per arrangement
instead of by every check. Concealed blocks travel as codes, one byte a block: the suits'
readings join by concatenation, and a hand's reading is made once from its joined codes.
"""

from bisect import bisect_left
from collections.abc import Sequence
from enum import IntEnum
from itertools import product
from operator import itemgetter
from typing import NamedTuple

from controller.rules.hand import Meld, MeldKind
from controller.rules.tiles import EAST, KINDS


class Shape(IntEnum):
    """What a block of tiles is."""

    SEQUENCE = 0
    TRIPLET = 1
    KONG = 2
    PAIR = 3


_SIZES = (3, 3, 4, 2)
_SEQUENCE, _TRIPLET, _KONG = Shape.SEQUENCE, Shape.TRIPLET, Shape.KONG
"""Looking a member up on its enum class is slow (the enum's metaclass has a __getattr__)."""


class Block(NamedTuple):
    """A set or pair: its shape, lowest tile, whether it is concealed, whether it was declared."""

    shape: Shape
    tile: int
    concealed: bool
    declared: bool = False

    def tiles(self) -> tuple[int, ...]:
        """The tile kinds of the block."""
        if self.shape is _SEQUENCE:
            return (self.tile, self.tile + 1, self.tile + 2)
        return (self.tile,) * _SIZES[self.shape]

    def holds(self, kind: int) -> bool:
        """Whether the block contains a tile of `kind`."""
        if self.shape is _SEQUENCE:
            return self.tile <= kind <= self.tile + 2
        return self.tile == kind


# Every block exists once: readings are tuples of these shared objects.
BLOCKS = {  # (made by tuple.__new__, not the class's generated __new__: a Python call each)
    (shape, tile, concealed, declared): tuple.__new__(Block, (shape, tile, concealed, declared))
    for shape in Shape
    for tile in range(KINDS)
    for concealed in (False, True)
    for declared in (False, True)
}


def block(shape: Shape, tile: int, concealed: bool = True, declared: bool = False) -> Block:
    """The shared Block object for these values."""
    return BLOCKS[shape, tile, concealed, declared]


_CHOW, _PUNG, _CONCEALED_KONG = MeldKind.CHOW, MeldKind.PUNG, MeldKind.CONCEALED_KONG


def meld_block(meld: Meld) -> Block:
    """The block a declared meld stands for."""
    kind = meld.kind
    if kind is _CHOW:
        return BLOCKS[_SEQUENCE, meld.first, False, True]
    if kind is _PUNG:
        return BLOCKS[_TRIPLET, meld.first, False, True]
    return BLOCKS[_KONG, meld.first, kind is _CONCEALED_KONG, True]


# A census packs how many sets of each kind a reading holds, 3 bits per count (at most 4
# sets in a hand), so the census of a hand is the sum of its suits' censuses.
SEQUENCES, TRIPLETS, CONCEALED, HONOUR_SETS, KONGS, REPEATS = (3 * field for field in range(6))
"""Shifts of the census counts (`census >> SHIFT & 7`); TRIPLETS counts kongs too, REPEATS
the sequences that repeat an earlier identical one."""


def census(
    sequences: Sequence[int], triplets: int, concealed: int, honour_sets: int, kongs: int
) -> int:
    """The census of a reading with these (ascending) sequences and counts."""
    repeats = len(sequences) - len(set(sequences))
    return (
        len(sequences) << SEQUENCES
        | triplets << TRIPLETS
        | concealed << CONCEALED
        | honour_sets << HONOUR_SETS
        | kongs << KONGS
        | repeats << REPEATS
    )


_new = tuple.__new__
"""`_new(Reading, fields)` makes a Reading without the class's generated __new__ (a Python
call): a hand's reading is made for every hand scored."""


class Reading(NamedTuple):
    """Blocks of a hand, or of one suit of it, and what they add up to.

    `sequences`, `triplets` (kongs included) and `pairs` are the blocks' lowest tiles, the
    first two ascending; `census` counts the sets (see `census`).
    """

    blocks: tuple[Block, ...]
    sequences: tuple[int, ...]
    triplets: tuple[int, ...]
    pairs: tuple[int, ...]
    census: int

    @classmethod
    def of(cls, blocks: tuple[Block, ...]) -> "Reading":
        """Count up any blocks (the declared melds, seven pairs, a ruleset's own shapes)."""
        sequences: list[int] = []
        triplets: list[int] = []
        pairs: list[int] = []
        kongs = concealed = honour_sets = 0
        for shape, tile, hidden, _ in blocks:
            if shape == 0:
                sequences.append(tile)
            elif shape == 3:
                pairs.append(tile)
            else:
                triplets.append(tile)
                honour_sets += tile >= 27
                kongs += shape == 2
                concealed += hidden
        sequences.sort()
        triplets.sort()
        counted = census(sequences, len(triplets), concealed, honour_sets, kongs)
        return cls(blocks, tuple(sequences), tuple(triplets), tuple(pairs), counted)

    def opened(self, index: int) -> "Reading":
        """The reading with its concealed triplet at `index` completed by a discard (exposed)."""
        blocks, sequences, triplets, pairs, counted = self
        exposed = BLOCKS[_TRIPLET, blocks[index].tile, False, False]
        blocks = blocks[:index] + (exposed,) + blocks[index + 1 :]
        return _new(Reading, (blocks, sequences, triplets, pairs, counted - (1 << CONCEALED)))


# A concealed block as one byte: its shape in the top two bits, its lowest tile below. A
# concealed reading is then a bytes of codes: readings of suits join by concatenation, and
# bytes.translate picks out the tiles of one shape.
CODE_SHIFT = 6
TILE_BITS = (1 << CODE_SHIFT) - 1
"""A code's tile bits (`block_code`)."""


def block_code(shape: Shape, tile: int) -> int:
    """The code of a concealed block (not declared)."""
    return shape << CODE_SHIFT | tile


CODE_BLOCKS = tuple(map(BLOCKS.get, product(Shape, range(1 << CODE_SHIFT), [True], [False])))
"""The concealed block of each code (None where there is none), in code order."""
_LEFT_OUT = 255
"""Not a tile: what the tables of `_tiles_of` make of the codes of the other shapes."""
_LEFT_OUT_SHAPE = bytes([_LEFT_OUT]) * (1 << CODE_SHIFT)
"""`_tiles_of` a shape other than the table's."""


def _tiles_of(shape: Shape) -> bytes:
    """A bytes.translate table from codes to the tiles of blocks of this shape (the codes
    of a shape follow one another, in tile order)."""
    others = len(Shape) - 1 - shape
    return _LEFT_OUT_SHAPE * shape + bytes(range(1 << CODE_SHIFT)) + _LEFT_OUT_SHAPE * others


SEQUENCE_TILES = _tiles_of(_SEQUENCE)
"""bytes.translate table: a code to its tile if it is a sequence's, else LEFT_OUT_BYTE."""
TRIPLET_TILES = _tiles_of(_TRIPLET)
"""bytes.translate table: a code to its tile if it is a triplet's, else LEFT_OUT_BYTE."""
_PAIR_TILES = _tiles_of(Shape.PAIR)
LEFT_OUT_BYTE = bytes([_LEFT_OUT])
TRIPLET_CODE, PAIR_CODE = _TRIPLET << CODE_SHIFT, Shape.PAIR << CODE_SHIFT
SETS_ALL_CONCEALED = 1 << TRIPLETS | 1 << CONCEALED
"""A concealed triplet counts as a triplet and as a concealed set."""


def read_codes(codes: bytes) -> Reading:
    """The reading of concealed blocks given as codes (no kongs: a concealed kong is declared).

    The codes of each suit's reading come sorted (sequences, then triplets, then the pair,
    each ascending; the honours' in tile order), the suits in order, so the reading's
    sequences and triplets come out ascending.
    """
    # Each shape's tiles: translate, then drop the other shapes' (cheaper than a translate
    # that deletes: that builds a table of 256 entries at every call).
    sequences = tuple(codes.translate(SEQUENCE_TILES).replace(LEFT_OUT_BYTE, b""))
    triplets = tuple(codes.translate(TRIPLET_TILES).replace(LEFT_OUT_BYTE, b""))
    runs, sets = len(sequences), len(triplets)
    counted = runs << SEQUENCES | sets * SETS_ALL_CONCEALED
    if runs > 1:
        counted |= (runs - len(set(sequences))) << REPEATS
    if sets and triplets[-1] >= EAST:
        counted |= (sets - bisect_left(triplets, EAST)) << HONOUR_SETS
    if len(codes) > 1:  # (an itemgetter of one item gives the item, not a tuple)
        blocks = itemgetter(*codes)(CODE_BLOCKS)
    else:
        blocks = tuple(map(CODE_BLOCKS.__getitem__, codes))
    pairs = tuple(codes.translate(_PAIR_TILES).replace(LEFT_OUT_BYTE, b""))
    return _new(Reading, (blocks, sequences, triplets, pairs, counted))


def code_places(codes: bytes, kind: int) -> list[int]:
    """The places of `kind` in one suit's concealed reading (its codes, see `read_codes`):
    the index of the first block of each shape that holds it, in block order (none when no
    block holds it). The honours hold a tile in one block at most."""
    found = []
    if kind < EAST:
        first = bisect_left(codes, kind - 2)  # the first sequence that may hold it
        if first < len(codes) and codes[first] <= kind:
            found.append(first)
    at = codes.find(TRIPLET_CODE | kind)
    if at >= 0:
        found.append(at)
    at = codes.find(PAIR_CODE | kind)
    if at >= 0:
        found.append(at)
    return found


def with_declared(reading: Reading, declared: Reading) -> Reading:
    """A concealed reading joined with the declared melds' (`Reading.of` them)."""
    sequences = tuple(sorted(reading.sequences + declared.sequences))
    repeats = len(sequences) - len(set(sequences))  # a chow may repeat a concealed sequence
    total = reading.census + declared.census
    return Reading(
        reading.blocks + declared.blocks,
        sequences,
        tuple(sorted(reading.triplets + declared.triplets)),
        reading.pairs,
        total & ~(7 << REPEATS) | repeats << REPEATS,
    )
