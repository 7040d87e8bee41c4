"""Each seat's standing in the hand: what it may still do (a short or long hand, a false win
lose rights), whether its short or long hand was said (once a hand), and its penalty tiles.
Changed only through the steps below; `fouls` decides when each applies."""

from collections.abc import Iterable, Sequence, Set
from typing import Final

from controller.table.irregularities import PenaltyTiles, Rights


class Standing:
    """The four seats' rights, miscounts said, and penalty tiles."""

    def __init__(self) -> None:
        self._rights = [Rights.ALL for _ in range(4)]
        self._miscounted: set[int] = set()
        self._penalty_tiles = [PenaltyTiles() for _ in range(4)]
        self.rights: Final[Sequence[Rights]] = self._rights
        """What each seat may still do this hand (read-only)."""
        self.miscounted: Final[Set[int]] = self._miscounted
        """Seats whose short or long hand was said, once a hand (read-only)."""
        self.penalty_tiles: Final[Sequence[PenaltyTiles]] = self._penalty_tiles
        """Each seat's penalty tiles (read-only)."""

    def lose(self, place: int, rights: Rights) -> None:
        """The seat loses these rights for the rest of the hand."""
        self._rights[place] &= ~rights

    def miscount_said(self, place: int) -> None:
        """The seat's short or long hand is said (or need not be: the rules make it so)."""
        self._miscounted.add(place)

    def expose(self, place: int, uids: Iterable[int]) -> None:
        """The seat's tiles exposed by a false win or a wrong claim become penalty tiles."""
        self._penalty_tiles[place] = self._penalty_tiles[place].exposed(uids)

    def discarded(self, place: int, uid: int) -> None:
        """A discard ends the seat's live penalty tiles (unless it was one of them)."""
        self._penalty_tiles[place] = self._penalty_tiles[place].after_discard(uid)

    def in_concealed_kong(self, place: int, uids: Iterable[int]) -> None:
        """Penalty tiles in a concealed kong are penalty tiles no more (R-PEN-4)."""
        self._penalty_tiles[place] = self._penalty_tiles[place].used_concealed(uids)
