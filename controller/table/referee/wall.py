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
        self._live_at = 0
        """Every tag of `_order` before this index has left the wall (tags only ever leave)."""
        self._replacement_at = 0
        """The same for `_replacements`."""

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
        self._live_at = self._first_untaken(self._order, self._live_at)
        return self._order[self._live_at]

    def next_replacement(self) -> int | None:
        """The tag the next kong or flower replacement takes."""
        if not self.remaining:
            return None
        self._replacement_at = self._first_untaken(self._replacements, self._replacement_at)
        return self._replacements[self._replacement_at]

    def take(self, uid: int) -> None:
        """A tag left the wall."""
        self._untaken.discard(uid)

    def _first_untaken(self, tags: list[int], start: int) -> int:
        """The index of the first tag from `start` on still in the wall (one is: `remaining`
        counts only tags of the drawing order, and the replacements are drawn from it too)."""
        untaken = self._untaken
        while tags[start] not in untaken:
            start += 1
        return start
