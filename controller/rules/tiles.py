"""Tiles as small ints: 34 kinds, 8 flowers, and the physical tiles the tile sensors read.

Kinds 0-8 are 1m-9m (characters), 9-17 1p-9p (dots), 18-26 1s-9s (bamboo), 27-33 the
honours East South West North White Green Red (1z-7z), 34-41 the flowers 1f-8f.
A physical tile is `kind * 4 + copy` (copy 0-3) for the 136 suited and honour tiles and
`136 + flower number` for the eight flowers, which exist once each.
"""

from collections.abc import Iterable
from typing import NamedTuple

from controller.rules.errors import RulesError

KINDS = 34
FLOWER_BASE = 34
FLOWERS = 8
ALL_KINDS = KINDS + FLOWERS
COPIES = 4
PHYSICAL_TILES = KINDS * COPIES + FLOWERS

SUIT_LETTERS = "mpsz"
MAN, PIN, SOU, HONOUR = 0, 1, 2, 3
EAST, SOUTH, WEST, NORTH, WHITE, GREEN, RED = range(27, 34)
WINDS = (EAST, SOUTH, WEST, NORTH)
DRAGONS = (WHITE, GREEN, RED)
TERMINALS = (0, 8, 9, 17, 18, 26)
ORPHANS = TERMINALS + WINDS + DRAGONS

HONOUR_NAMES = ("East", "South", "West", "North", "White", "Green", "Red")
SUIT_NAMES = ("characters", "dots", "bamboo", "honours")
FLOWER_NAMES = (
    "plum",
    "orchid",
    "chrysanthemum",
    "bamboo flower",
    "spring",
    "summer",
    "autumn",
    "winter",
)


def suit(kind: int) -> int:
    """0 characters, 1 dots, 2 bamboo, 3 honours (flowers are not a suit: 4)."""
    return kind // 9 if kind < KINDS else 4


def number(kind: int) -> int:
    """The face number: 1-9 for suited tiles, 1-7 for honours, 1-8 for flowers."""
    if kind < 27:
        return kind % 9 + 1
    return kind - 26 if kind < KINDS else kind - FLOWER_BASE + 1


def is_suited(kind: int) -> bool:
    """A number tile of characters, dots or bamboo."""
    return kind < 27


def is_honour(kind: int) -> bool:
    """A wind or a dragon."""
    return 27 <= kind < KINDS


def is_flower(kind: int) -> bool:
    """One of the eight flower tiles."""
    return FLOWER_BASE <= kind < ALL_KINDS


def is_terminal(kind: int) -> bool:
    """A 1 or 9 of a suit."""
    return kind < 27 and kind % 9 in (0, 8)


def is_orphan(kind: int) -> bool:
    """A terminal or an honour (the tiles of Thirteen Orphans)."""
    return (kind >= 27 and kind < KINDS) or is_terminal(kind)


def is_simple(kind: int) -> bool:
    """A 2-8 of a suit."""
    return kind < 27 and 0 < kind % 9 < 8


def make(suit_index: int, face: int) -> int:
    """The kind of a suit (0-3) and face number; raises RulesError if there is no such tile."""
    top = 7 if suit_index == HONOUR else 9
    if not 0 <= suit_index <= HONOUR or not 1 <= face <= top:
        raise RulesError(f"there is no tile {face}{SUIT_LETTERS[suit_index % 4]}")
    return suit_index * 9 + face - 1


def name(kind: int) -> str:
    """A tile's name in words, e.g. '5 dots', 'Red', 'plum'."""
    if is_flower(kind):
        return FLOWER_NAMES[kind - FLOWER_BASE]
    if is_honour(kind):
        return HONOUR_NAMES[kind - 27]
    return f"{number(kind)} {SUIT_NAMES[suit(kind)]}"


class PhysicalTile(NamedTuple):
    """One real tile on the table: its kind and which of the (up to four) copies it is."""

    kind: int
    copy: int

    @property
    def id(self) -> int:
        """The tile's number 0-143, as the tile sensors report it."""
        if is_flower(self.kind):
            return KINDS * COPIES + self.kind - FLOWER_BASE
        return self.kind * COPIES + self.copy

    @classmethod
    def from_id(cls, tile_id: int) -> "PhysicalTile":
        """The physical tile with sensor number `tile_id` (0-143)."""
        if not 0 <= tile_id < PHYSICAL_TILES:
            raise RulesError(
                f"no physical tile {tile_id}: tiles are numbered 0-{PHYSICAL_TILES - 1}"
            )
        if tile_id >= KINDS * COPIES:
            return cls(FLOWER_BASE + tile_id - KINDS * COPIES, 0)
        return cls(tile_id // COPIES, tile_id % COPIES)


def counts(kinds: Iterable[int]) -> list[int]:
    """A count per kind (length 42: the 34 kinds then the 8 flowers)."""
    result = [0] * ALL_KINDS
    for kind in kinds:
        result[kind] += 1
    return result
