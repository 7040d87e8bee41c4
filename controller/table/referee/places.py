"""Where every tag of the hand is, kept in one place: the wall, a seat's hand, its melds, its
flowers set aside, its loose tiles (in its MELD zone, in no meld), its river, or out of play.

`Places` is the only writer of these facts. Each move is one named method that takes the tag
out of the one place it was in and puts it in the next, so a tag is always in exactly one
place. What the rest of the referee reads is derived from it: each seat's tiles (read-only
views), the wall, and where on the table each tag must lie (`where`). A tag a seat holds
lies in the zone of the pile that holds it, with one exception: a discard won on lies where
the winner left it (`won`). A tag may also lie, until it moves, at a second place (`also`).
"""

import enum
from collections.abc import Callable, Iterable, Mapping, Sequence, Set
from typing import Final, Protocol

from controller.rules import MeldKind
from controller.rules.claims import KongKind
from controller.table.ports import Zone
from controller.table.referee.melds import MeldRecord, MeldView, SeatTiles, SeatView
from controller.table.referee.wall import WallTiles

Place = tuple[int, Zone]
"""(physical seat, zone) where a tag lies."""


class Pile(enum.Enum):
    """Which of its seat's tiles a held tag is part of."""

    HAND = "hand"
    MELD = "meld"
    FLOWERS = "flowers"
    LOOSE = "loose"
    RIVER = "river"


ZONE_OF = {
    Pile.HAND: Zone.HAND,
    Pile.MELD: Zone.MELD,
    Pile.FLOWERS: Zone.MELD,
    Pile.LOOSE: Zone.MELD,
    Pile.RIVER: Zone.DISCARD,
}
"""The zone a pile's tags lie in."""

PILE_OF = {Zone.HAND: Pile.HAND, Zone.MELD: Pile.LOOSE, Zone.DISCARD: Pile.RIVER}
"""The pile a tag joins when play takes it as the table shows it (in a zone, in no meld)."""


class Spot(enum.Enum):
    """Where a tag held by no seat is."""

    WALL = "wall"
    OUT = "out of play"
    NOWHERE = "nowhere"
    """A tag play never knew (in no tile set, or never dealt nor walled)."""


class WallView(Protocol):
    """The wall as the referee reads it (only `Places` takes tags from it)."""

    @property
    def remaining(self) -> int: ...
    def holds(self, uid: int) -> bool: ...
    def next_live(self) -> int | None: ...
    def next_replacement(self) -> int | None: ...


class Places:
    """The one owner of where each tag is; `moved(uid)` is told after each move of a tag."""

    def __init__(
        self,
        wall: WallTiles,
        hands: Sequence[Iterable[int]],
        flowers: Sequence[Iterable[int]],
        moved: Callable[[int], None],
    ) -> None:
        self._wall = wall
        self._seats = [SeatTiles() for _ in hands]
        self._held: dict[int, tuple[int, Pile]] = {}
        self._where: dict[int, Place] = {}
        self._also: dict[int, Place] = {}
        self._out: set[int] = set()
        self._won_on: dict[int, int] = {}
        self.won_on: Final[Mapping[int, int]] = self._won_on
        """Discards won on -> the winner (who may take the tile to its hand, or leave it)."""
        self._moved = moved
        self.wall: Final[WallView] = wall
        """The wall (read-only)."""
        self.seats: Final[Sequence[SeatView]] = self._seats
        """Each seat's tiles (read-only views of what this class holds)."""
        self.where: Final[Mapping[int, Place]] = self._where
        """Where on the table each tag must lie (none: in the wall, out of play or unknown)."""
        self.also: Final[Mapping[int, Place]] = self._also
        """A second place a tag may lie in until it moves (R-WRONG: a refused claim's tiles
        may stay in the claimer's MELD zone; penalty tiles lie face up there or in the hand)."""
        for place, uids in enumerate(hands):
            for uid in uids:
                self._enter(uid, place, Pile.HAND)
        for place, uids in enumerate(flowers):
            for uid in sorted(uids):
                self._enter(uid, place, Pile.FLOWERS)

    # ---- what play reads ------------------------------------------------------------------

    def spot(self, uid: int) -> tuple[int, Pile] | Spot:
        """The one place the tag is in: a seat's pile, the wall, out of play, or nowhere."""
        held = self._held.get(uid)
        if held is not None:
            return held
        if uid in self._out:
            return Spot.OUT
        return Spot.WALL if self._wall.holds(uid) else Spot.NOWHERE

    def out_of_play(self) -> Set[int]:
        """Tags that left the table (play goes on without them)."""
        return self._out

    # ---- moves ----------------------------------------------------------------------------

    def draw(self, uid: int, place: int) -> None:
        """The seat took the tag from the wall into its hand."""
        self._move(uid, place, Pile.HAND)

    def to_hand(self, uid: int, place: int, also: Place | None = None) -> None:
        """The tag is the seat's concealed tile again (it may lie at `also` until it moves)."""
        self._move(uid, place, Pile.HAND, also)

    def to_river(self, uid: int, place: int, also: Place | None = None) -> None:
        """The tag lies in the seat's river (last)."""
        self._move(uid, place, Pile.RIVER, also)

    def to_flowers(self, uid: int, place: int) -> None:
        """The seat set the flower aside."""
        self._move(uid, place, Pile.FLOWERS)

    def take_as_seen(self, uid: int, place: int, zone: Zone) -> None:
        """The tag is taken to be where the table shows it (in no meld, from anywhere); a set
        it is taken from is broken up: its other tags lie loose in the MELD zone."""
        held = self._held.get(uid)
        if held is not None and held[1] is Pile.MELD:
            self._break_up(held[0], uid)
        self._move(uid, place, PILE_OF[zone])

    def _break_up(self, place: int, uid: int) -> None:
        seat = self._seats[place]
        record = next(r for r in seat.melds if uid in r.uids)
        seat.melds.remove(record)
        for tag in record.uids:
            self._held[tag] = (place, Pile.LOOSE)
            seat.loose.append(tag)

    def meld(
        self,
        place: int,
        uids: Sequence[int],
        kind: MeldKind,
        kong: KongKind | None = None,
        claimed: int | None = None,
    ) -> None:
        """The tags form a new meld of the seat, in this order."""
        record = MeldRecord([], kind, kong, claimed)
        self._seats[place].melds.append(record)
        for uid in uids:
            self._leave(uid)
            record.uids.append(uid)
            self._enter(uid, place, Pile.MELD)
            self._moved(uid)

    def add_to_pung(self, uid: int, place: int, pung: MeldView, kong: KongKind) -> None:
        """The tag makes the seat's pung a kong of this kind."""
        record = self._record(place, pung)
        self._leave(uid)
        record.uids.append(uid)
        record.kind, record.kong = MeldKind.KONG, kong
        self._enter(uid, place, Pile.MELD)
        self._moved(uid)

    def set_kong(self, place: int, meld: MeldView, kong: KongKind) -> None:
        """How the seat's kong was made, once known."""
        self._record(place, meld).kong = kong

    def unkong(self, place: int) -> None:
        """An added kong whose fourth tile was robbed is the pung it was."""
        for record in self._seats[place].melds:
            if record.kong is KongKind.ADDED and len(record.uids) == 3:
                record.kind, record.kong = MeldKind.PUNG, None

    def drop_meld(self, place: int, meld: MeldView) -> None:
        """A meld whose tags all went elsewhere is no meld."""
        record = self._record(place, meld)
        assert not record.uids, "a meld is dropped once its tags have gone elsewhere"
        self._seats[place].melds.remove(record)

    def won(self, uid: int, place: int, lies: Place) -> None:
        """A discard won on is the winner's; it lies at `lies` (the winner may leave it)."""
        self._won_on[uid] = place
        self._leave(uid)
        self._enter(uid, place, Pile.HAND)
        self._where[uid] = lies
        self._also.pop(uid, None)
        self._moved(uid)

    def may_lie(self, uid: int, also: Place) -> None:
        """The tag stays where it is; until it moves it may also lie at `also`."""
        self._also[uid] = also
        self._moved(uid)

    def back_in_place(self, uid: int) -> None:
        """The tag lies where it must: the second place it might lie in is gone."""
        self._also.pop(uid, None)

    def gone(self, uid: int) -> None:
        """The tag left the table: it is out of play (where it might also lie is kept); a
        set it was part of stands as it was laid out."""
        held = self._held.get(uid)
        if held is not None and held[1] is Pile.MELD:
            record = next(r for r in self._seats[held[0]].melds if uid in r.uids)
            record.left.append(uid)
        self._leave(uid)
        self._out.add(uid)

    # ---- the one place each tag is in -----------------------------------------------------

    def _move(self, uid: int, place: int, pile: Pile, also: Place | None = None) -> None:
        if self._held.get(uid) == (place, pile):
            self._where[uid] = (place, ZONE_OF[pile])  # it stays (a river keeps its order)
        else:
            self._leave(uid)
            self._enter(uid, place, pile)
        if also is None:
            if uid in self._also:
                del self._also[uid]
        else:
            self._also[uid] = also
        self._moved(uid)

    def _leave(self, uid: int) -> None:
        """Take the tag out of the one place it is in."""
        held = self._held.pop(uid, None)
        self._where.pop(uid, None)
        if held is None:
            self._out.discard(uid)
            if self._wall.holds(uid):
                self._wall.take(uid)
            return
        place, pile = held
        seat = self._seats[place]
        if pile is Pile.HAND:
            seat.concealed.discard(uid)
        elif pile is Pile.RIVER:
            seat.river.remove(uid)
        elif pile is Pile.FLOWERS:
            seat.flowers.remove(uid)
        elif pile is Pile.LOOSE:
            seat.loose.remove(uid)
        else:
            next(r for r in seat.melds if uid in r.uids).uids.remove(uid)

    def _enter(self, uid: int, place: int, pile: Pile) -> None:
        if uid in self._held:
            return  # read in two zones at the deal: the first holds it
        seat = self._seats[place]
        if pile is Pile.HAND:
            seat.concealed.add(uid)
        elif pile is Pile.RIVER:
            seat.river.append(uid)
        elif pile is Pile.FLOWERS:
            seat.flowers.append(uid)
        elif pile is Pile.LOOSE:
            seat.loose.append(uid)
        self._held[uid] = (place, pile)
        # ZONE_OF without hashing the pile (an enum hashes slowly; this runs on every move)
        zone = Zone.HAND if pile is Pile.HAND else Zone.DISCARD if pile is Pile.RIVER else Zone.MELD
        self._where[uid] = (place, zone)

    def _record(self, place: int, meld: MeldView) -> MeldRecord:
        return next(r for r in self._seats[place].melds if r is meld)
