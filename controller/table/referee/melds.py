"""What each seat holds as the referee follows it: concealed tags, melds as they were formed
(so a kong's kind and a chow's tiles come from history, never from reading a zone), flowers
set aside, the river. Only `places.Places` changes them; the rest of the referee reads them
through the read-only views `SeatView` and `MeldView`."""

from collections.abc import Sequence, Set
from dataclasses import dataclass, field
from typing import Protocol

from controller.rules import Meld, MeldKind
from controller.rules.claims import KongKind
from controller.table.ports import Zone
from controller.table.tiles import TileMap


@dataclass
class MeldRecord:
    """One meld as formed: its tags, its kind, and for a kong how it was made."""

    uids: list[int]
    kind: MeldKind
    kong: KongKind | None = None
    claimed: int | None = None
    """The tag taken from another seat's discard (None: all the seat's own)."""
    left: list[int] = field(default_factory=list)
    """Tags of the set that left the table since: the set stands as it was laid out."""

    def meld(self, tiles: TileMap) -> Meld:
        """The meld for the rules engine (as laid out)."""
        return Meld(self.kind, tuple(sorted(tiles.kinds([*self.uids, *self.left]))))


class MeldView(Protocol):
    """One meld as formed, read-only."""

    @property
    def uids(self) -> Sequence[int]: ...
    @property
    def kind(self) -> MeldKind: ...
    @property
    def kong(self) -> KongKind | None: ...
    @property
    def claimed(self) -> int | None: ...
    def meld(self, tiles: TileMap) -> Meld: ...


class SeatView(Protocol):
    """One seat's tiles, read-only."""

    @property
    def concealed(self) -> Set[int]: ...
    @property
    def melds(self) -> Sequence[MeldView]: ...
    @property
    def flowers(self) -> Sequence[int]: ...
    @property
    def river(self) -> Sequence[int]: ...
    @property
    def loose(self) -> Sequence[int]: ...
    def zone_of(self, uid: int) -> Zone | None: ...
    def all_uids(self) -> list[int]: ...
    def pung_of(self, kind: int, tiles: TileMap) -> MeldView | None: ...


@dataclass
class SeatTiles:
    """One seat's tiles as the referee knows them."""

    concealed: set[int] = field(default_factory=set)
    melds: list[MeldRecord] = field(default_factory=list)
    flowers: list[int] = field(default_factory=list)
    river: list[int] = field(default_factory=list)
    loose: list[int] = field(default_factory=list)
    """Tags lying in the MELD zone that belong to no meld (taken as the table showed them)."""

    def zone_of(self, uid: int) -> Zone | None:
        """Where the tag must lie on the table (None: this seat does not hold it)."""
        if uid in self.concealed:
            return Zone.HAND
        if uid in self.flowers or uid in self.loose or any(uid in m.uids for m in self.melds):
            return Zone.MELD
        if uid in self.river:
            return Zone.DISCARD
        return None

    def all_uids(self) -> list[int]:
        """Every tag the seat holds, in any zone."""
        held = [*self.concealed, *self.flowers, *self.river, *self.loose]
        return held + [uid for m in self.melds for uid in m.uids]

    def pung_of(self, kind: int, tiles: TileMap) -> MeldRecord | None:
        """The seat's exposed pung of this kind, if it has one."""
        for record in self.melds:
            if record.kind is MeldKind.PUNG and tiles.kind(record.uids[0]) == kind:
                return record
        return None
