"""The wall as tags in drawing order: live draws from the head, replacements from the tail."""

from collections.abc import Collection, Sequence


class WallTiles:
    """Which tag the next draw and the next replacement must be, and how many may still come."""

    def __init__(
        self, order: Sequence[int], replacements: Sequence[int], taken: Collection[int], dead: int
    ) -> None:
        self._order = list(order)
        self._replacements = list(replacements)
        self._untaken = {uid for uid in order if uid not in taken}
        self._dead = dead

    @property
    def remaining(self) -> int:
        """Tiles that may still be drawn (the dead wall never is)."""
        return max(0, len(self._untaken) - self._dead)

    def holds(self, uid: int) -> bool:
        """Whether the tag still stands in the wall."""
        return uid in self._untaken

    def next_live(self) -> int | None:
        """The tag the next live draw takes (None: none may be drawn)."""
        if not self.remaining:
            return None
        return next(uid for uid in self._order if uid in self._untaken)

    def next_replacement(self) -> int | None:
        """The tag the next kong or flower replacement takes."""
        if not self.remaining:
            return None
        return next(uid for uid in self._replacements if uid in self._untaken)

    def take(self, uid: int) -> None:
        """A tag left the wall."""
        self._untaken.discard(uid)
