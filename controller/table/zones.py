"""Where every tile on the playing surface is, from the zone antennas' reads, debounced.

Antennas can miss a tag on one read, so a tag that drops out of its zone's reads counts as
gone only once `absent_reads` reads in a row missed it and `absence_s` has passed, unless
another zone reads it first (then it moved). Pure: time is passed in.
"""

import math

from controller.table.ports import Zone

ZoneKey = tuple[int, Zone]
"""(physical seat 0-3, zone)."""
ZONE_KEYS: tuple[ZoneKey, ...] = tuple((seat, zone) for seat in range(4) for zone in Zone)
"""The twelve zones, seat by seat."""


class ZoneBoard:
    """The debounced content of the twelve zones, and where each tile came from."""

    def __init__(self, absence_s: float = 1.0, absent_reads: int = 2) -> None:
        self.absence_s = absence_s
        self.absent_reads = absent_reads
        self.changes = 0
        """Counts every change of what the board shows (a watcher holding the same count has
        seen the board as it is)."""
        self.clear()

    def clear(self) -> None:
        """Forget everything (the platform was lowered)."""
        self.last_change = -math.inf
        self._where: dict[int, ZoneKey] = {}
        self._tiles: dict[ZoneKey, set[int]] = {}
        self._frozen: dict[ZoneKey, frozenset[int]] = {}
        """`tiles()` of the zones unchanged since it was last asked (asked after every input)."""
        self._missing_since: dict[int, float] = {}
        self._misses: dict[int, int] = {}
        """Reads in a row of its zone that missed the tag."""
        self._came_from: dict[int, ZoneKey | None] = {}
        self._arrival: dict[int, int] = {}
        self._arrivals = 0
        self._seat_change = [-math.inf] * 4
        self.changes += 1

    def update(self, seat: int, zone: Zone, uids: frozenset[int], now: float) -> bool:
        """Take one read of a zone; True if what the board shows changed."""
        key = (seat, zone)
        changed = False
        missing, misses, where = self._missing_since, self._misses, self._where
        for uid in uids:
            if missing:
                missing.pop(uid, None)
            if misses:
                misses.pop(uid, None)
            if where.get(uid) != key:
                self._move(uid, key, now)
                changed = True
        held = self._tiles.get(key)
        if held:
            for uid in held - uids:
                missing.setdefault(uid, now)
                misses[uid] = misses.get(uid, 0) + 1
        return self.expire(now) or changed

    def expire(self, now: float) -> bool:
        """Let tags missing for `absence_s` go; True if any went."""
        if not self._missing_since:
            return False
        gone = [
            u
            for u, t in self._missing_since.items()
            if now - t >= self.absence_s and self._misses.get(u, 0) >= self.absent_reads
        ]
        for uid in gone:
            del self._missing_since[uid]
            self._misses.pop(uid, None)
            key = self._where.pop(uid)
            self._tiles[key].discard(uid)
            self._frozen.pop(key, None)
            self._touch(key[0], now)
        return bool(gone)

    def _move(self, uid: int, key: ZoneKey, now: float) -> None:
        before = self._where.get(uid)
        self._missing_since.pop(uid, None)
        self._misses.pop(uid, None)
        if before is not None:
            self._tiles[before].discard(uid)
            self._frozen.pop(before, None)
            self._touch(before[0], now)
        self._came_from[uid] = before
        self._where[uid] = key
        self._tiles.setdefault(key, set()).add(uid)
        self._frozen.pop(key, None)
        self._arrivals += 1
        self._arrival[uid] = self._arrivals
        self._touch(key[0], now)

    def _touch(self, seat: int, now: float) -> None:
        self._seat_change[seat] = now
        self.last_change = now
        self.changes += 1

    def tiles(self, seat: int, zone: Zone) -> frozenset[int]:
        """The tags in one zone now."""
        return self._zone((seat, zone))

    def snapshot(self) -> dict[ZoneKey, frozenset[int]]:
        """The tags in every zone now, in `ZONE_KEYS` order."""
        return {key: self._zone(key) for key in ZONE_KEYS}

    def _zone(self, key: ZoneKey) -> frozenset[int]:
        """A zone's tags, frozen once per change (a zone unchanged since it was last asked for
        gives the same set)."""
        tiles = self._frozen.get(key)
        if tiles is None:
            tiles = self._frozen[key] = frozenset(self._tiles.get(key, ()))
        return tiles

    def zone_of(self, uid: int) -> ZoneKey | None:
        """The zone a tag lies in (None: not on the board)."""
        return self._where.get(uid)

    def came_from(self, uid: int) -> ZoneKey | None:
        """The zone a tag was in before its current one (None: from the wall)."""
        return self._came_from.get(uid)

    def newest(self, seat: int, zone: Zone) -> int | None:
        """The tag that arrived last in a zone (None if it is empty)."""
        tiles = self._tiles.get((seat, zone))
        return max(tiles, key=self._arrival.__getitem__) if tiles else None

    def seat_changed_at(self, seat: int) -> float:
        """When any zone of this seat last changed."""
        return self._seat_change[seat]

    def count(self, zone: Zone) -> int:
        """Tags in this zone over all four seats."""
        return sum(len(self._tiles.get((seat, zone), ())) for seat in range(4))
