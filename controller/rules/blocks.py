"""Blocks (sets and pairs) and readings: a hand's blocks with what they add up to.

A `Reading` carries, beside its blocks, the facts the pattern checks read (sequences,
triplets, pairs, kongs, concealed sets), so they are worked out once per suit reading and
joined per hand instead of being recounted for every arrangement.
"""

from collections.abc import Iterator, Mapping, Sequence
from enum import IntEnum
from types import MappingProxyType
from typing import NamedTuple, cast

from controller.rules.hand import Meld, MeldKind
from controller.rules.tiles import KINDS


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


NO_PLACES: Mapping[int, tuple[int, ...]] = MappingProxyType({})

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


class Reading(NamedTuple):
    """Blocks of a hand, or of one suit of it, and what they add up to.

    `sequences`, `triplets` (kongs included) and `pairs` are the blocks' lowest tiles, the
    first two ascending; `census` counts the sets (see `census`). A suit's reading also knows
    its `places`: for each tile kind, the index of the first block of each shape holding it.
    """

    blocks: tuple[Block, ...]
    sequences: tuple[int, ...]
    triplets: tuple[int, ...]
    pairs: tuple[int, ...]
    census: int
    places: Mapping[int, tuple[int, ...]] = NO_PLACES

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

    @classmethod
    def of_suit(cls, blocks: tuple[Block, ...]) -> "Reading":
        """A reading of one suit's concealed tiles, with the places of its tile kinds."""
        counted = cls.of(blocks)
        return cls(*counted[:5], Places(blocks))

    def opened(self, index: int) -> "Reading":
        """The reading with its concealed triplet at `index` completed by a discard (exposed)."""
        blocks = self.blocks
        exposed = BLOCKS[_TRIPLET, blocks[index].tile, False, False]
        return self._replace(
            blocks=blocks[:index] + (exposed,) + blocks[index + 1 :],
            census=self.census - (1 << CONCEALED),
        )


class Places(Mapping[int, tuple[int, ...]]):
    """A suit reading's places (see `Reading`), worked out when asked for: a hand asks only
    for the winning tile's, in the winning tile's suit."""

    __slots__ = ("_all", "_blocks", "_some")

    def __init__(self, blocks: Sequence[Block]) -> None:
        self._blocks = blocks
        self._some: dict[int, tuple[int, ...]] = {}
        """The places of the kinds asked for so far (empty tuple: the kind is not held)."""
        self._all: dict[int, tuple[int, ...]] | None = None

    def get(self, kind: int, default: object = None) -> object:  # type: ignore[override]
        found = self._some.get(kind)
        if found is None:
            found = self._some[kind] = _places_of(self._blocks, kind)
        return found or default

    def __getitem__(self, kind: int) -> tuple[int, ...]:
        found = self.get(kind)
        if found is None:
            raise KeyError(kind)
        return cast(tuple[int, ...], found)

    def _every(self) -> dict[int, tuple[int, ...]]:
        if self._all is None:
            self._all = _places(self._blocks)
        return self._all

    def __iter__(self) -> Iterator[int]:
        return iter(self._every())

    def __len__(self) -> int:
        return len(self._every())

    def __repr__(self) -> str:
        return repr(self._every())


def _places_of(blocks: Sequence[Block], kind: int) -> tuple[int, ...]:
    """The index of the first block of each shape that holds `kind`, in block order."""
    seen = 0
    found = []
    for index, (shape, tile, _, _) in enumerate(blocks):
        if (tile == kind or (shape == 0 and tile < kind <= tile + 2)) and not seen >> shape & 1:
            seen |= 1 << shape
            found.append(index)
    return tuple(found)


def _places(blocks: Sequence[Block]) -> dict[int, tuple[int, ...]]:
    """For each tile kind the blocks hold, the index of the first block of each shape that
    holds it, in block order (one pass over the blocks)."""
    seen: set[tuple[int, int]] = set()
    found: dict[int, list[int]] = {}
    for index, (shape, tile, _, _) in enumerate(blocks):
        for kind in (tile, tile + 1, tile + 2) if shape == _SEQUENCE else (tile,):
            if (kind, shape) not in seen:
                seen.add((kind, shape))
                found.setdefault(kind, []).append(index)
    return {kind: tuple(indices) for kind, indices in found.items()}


_new = tuple.__new__
"""`_new(Reading, fields)` makes a Reading without the class's generated __new__ (a Python
call): a hand's reading is made for every hand scored."""


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
            NO_PLACES,
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
