"""Blocks (sets and pairs) and readings: a hand's blocks with what they add up to.

A `Reading` carries, beside its blocks, the facts the pattern checks read (sequences,
triplets, pairs, kongs, concealed sets), so they are worked out once per suit reading and
joined per hand instead of being recounted for every arrangement.
"""

from bisect import bisect_left
from collections.abc import Sequence
from enum import IntEnum
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
BLOCKS = {
    (shape, tile, concealed, declared): Block(shape, tile, concealed, declared)
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


def suit_places(reading: Reading, kind: int) -> list[int]:
    """The places of `kind` in one suit's concealed reading: the index of the first block of
    each shape that holds it, in block order (none when no block holds it).

    Read off the reading's tiles rather than its blocks: a number suit's blocks are its
    sequences, then its triplets, then its pair, each ascending (as the suit table and the
    search give them), and the honours' blocks are in tile order, one block a tile at most.
    """
    _, sequences, triplets, pairs, _ = reading
    if kind >= EAST:  # the first honour
        tiles = sorted(triplets + pairs)
        return [tiles.index(kind)] if kind in tiles else []
    found = []
    runs = len(sequences)
    first = bisect_left(sequences, kind - 2)  # the first sequence that may hold it
    if first < runs and sequences[first] <= kind:
        found.append(first)
    if kind in triplets:
        found.append(runs + triplets.index(kind))
    if kind in pairs:
        found.append(runs + len(triplets) + pairs.index(kind))
    return found


def join(parts: Sequence[Reading], declared: Reading | None) -> Reading:
    """The hand's reading from its suits' readings (characters, dots, bamboo, honours, in
    that order, so their tiles stay ascending) and the declared melds, if any."""
    m, p, s, z = parts
    reading = _new(
        Reading,
        (
            m.blocks + p.blocks + s.blocks + z.blocks,
            m.sequences + p.sequences + s.sequences,
            m.triplets + p.triplets + s.triplets + z.triplets,
            m.pairs + p.pairs + s.pairs + z.pairs,
            m.census + p.census + s.census + z.census,
        ),
    )
    if declared is None:
        return reading
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
