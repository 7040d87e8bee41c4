"""Which tiles a ruleset plays with (from `[tiles]`)."""

from controller.rules.data import Table, get
from controller.rules.errors import RulesError
from controller.rules.tiles import FLOWER_BASE, FLOWERS, KINDS, PhysicalTile, suit
from controller.rules.values import value

_SUITS = "mpsz"


@value
class TileSet:
    """The kinds in play, copies of each, and the flowers (one of each)."""

    kinds: frozenset[int]
    copies: int
    flowers: tuple[int, ...]

    @classmethod
    def from_data(cls, data: Table) -> "TileSet":
        """The `[tiles]` table of a ruleset's data."""
        letters = get(data, "tiles.suits", list)
        if not letters or any(letter not in _SUITS for letter in letters):
            raise RulesError(f"tiles.suits: a list of m, p, s, z; got {letters}")
        flowers = get(data, "tiles.flowers", int)
        if flowers not in (0, FLOWERS):
            raise RulesError(f"tiles.flowers: 0 or {FLOWERS}; got {flowers}")
        kinds = frozenset(k for k in range(KINDS) if _SUITS[suit(k)] in letters)
        flower_kinds = tuple(range(FLOWER_BASE, FLOWER_BASE + flowers))
        return cls(kinds, get(data, "tiles.copies", int), flower_kinds)

    @property
    def total(self) -> int:
        """How many physical tiles are in play."""
        return len(self.kinds) * self.copies + len(self.flowers)

    def physical(self) -> tuple[PhysicalTile, ...]:
        """Every physical tile in play."""
        tiles = [
            PhysicalTile(kind, copy) for kind in sorted(self.kinds) for copy in range(self.copies)
        ]
        return tuple(tiles + [PhysicalTile(kind, 0) for kind in self.flowers])
