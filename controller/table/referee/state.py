"""The referee's memory of one hand and the primitives every step uses. Each fact has one
owner: where each tile is (`places`), the turn (`turn`), the claim windows (`windows`), each
seat's standing (`standing`), the waits (`waits`), the clocks (`handclocks`); `Play` itself
keeps which tags differ from the last settled read, and the moves, incidents and payments.
The steps of play change a fact only through its owner's methods."""

from collections.abc import Iterable, Iterator, Mapping, Sequence, Set
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Final

from controller.rules import DealState, Ruleset, Seat
from controller.rules.claims import KongKind
from controller.table.incidents import IncidentKind, IncidentRecord, Instant
from controller.table.irregularities import PenaltyTiles, Rights
from controller.table.ports import Zone
from controller.table.referee.events import (
    IncidentSeen,
    Move,
    MoveMade,
    Payment,
    RefereeOutput,
    WinEntry,
    WinMade,
)
from controller.table.referee.handclocks import ClockSteps, HandClocks
from controller.table.referee.melds import SeatView
from controller.table.referee.places import Place, Places, WallView
from controller.table.referee.standing import Standing
from controller.table.referee.turn import Need, Turn, TurnSteps
from controller.table.referee.waits import Waits, WaitSteps
from controller.table.referee.wall import WallTiles
from controller.table.referee.windows import Window, Windows, WindowSteps
from controller.table.rulings import Ruling
from controller.table.tiles import TileMap

READ_LAG = 1.0
"""Longest a lost MCU event goes unnoticed (the next event or heartbeat reply shows it)."""


@dataclass
class KongEntry:
    """A kong that stands, and who paid its konger how much (so it can be passed or returned)."""

    place: int
    kind: KongKind
    paid_by: dict[int, int] = field(default_factory=dict)
    passed: bool = False


@dataclass
class Settings:
    """The referee's times (seconds)."""

    window_s: float = 3.0
    settle_s: float = 1.5
    stray_s: float = 10.0
    """A tile out of place this long, with no move explaining it, is an incident."""


class Play:
    """Everything the referee knows about the hand in play."""

    def __init__(
        self,
        ruleset: Ruleset,
        tiles: TileMap,
        deal: DealState,
        wall: WallTiles,
        hands: Sequence[Iterable[int]],
        flowers: Sequence[Iterable[int]],
        settings: Settings,
        heavenly_tile: int | None,
    ) -> None:
        self.ruleset = ruleset
        self.tiles = tiles
        self.deal = deal
        self.settings = settings
        self.heavenly_tile = heavenly_tile
        self.places = Places(wall, hands, flowers, self._check)
        """Where every tag is (the one owner of it)."""
        self.seats: Final[Sequence[SeatView]] = self.places.seats
        """Each seat's tiles (read-only: `places` moves them)."""
        self.wall: Final[WallView] = self.places.wall
        """The wall (read-only: `places` takes tags from it)."""
        self.seen: dict[int, Place] = {}
        for seat in self.places.seats:
            for uid in seat.all_uids():
                where = self.places.where.get(uid)
                if where is not None:
                    self.seen[uid] = where
        self.zones: dict[Place, frozenset[int]] = {}
        self.odd: set[int] = set()
        """Tags whose settled place differs from where they must be."""
        self.conflicts: set[int] = set()
        """Tags a read showed in two zones at once (R-SENSOR-2): no move until read again."""
        self.unseen: set[int] = set()
        """Tags that must lie in a zone and that no antenna reads (missed, or gone)."""
        self.waits: WaitSteps = Waits()
        """What the referee waits for and since when; the reads again under way."""
        self.on_turn: TurnSteps = Turn(deal.dealer)
        """Whose turn it is and what that seat must do next."""
        self.windows: WindowSteps = Windows()
        """The claim windows and the presses not yet judged."""
        self.kongs: list[KongEntry] = []
        self._finished: list[int] = []
        self.moves: list[Move] = []
        self.wins: list[WinEntry] = []
        self.payments: list[Payment] = []
        self.incidents: list[IncidentRecord] = []
        self.time: ClockSteps = HandClocks()
        """The hand's clocks, and what they said during the input being handled."""
        self.standing = Standing()
        """Each seat's rights, miscount said, and penalty tiles."""
        self._foreign: set[int] = set()
        """Tags that are in no tile set (said once; they take no part in play)."""
        self._foreign_unsaid: dict[int, tuple[int, float]] = {}
        """Tags in no tile set not said yet: the seat whose zone showed them, and when."""
        self.over = ""
        """Why the hand ended ('': it goes on)."""
        self.now = Instant(0.0, 0.0)
        """The instant of the input being handled (or of the declaration being judged)."""
        self._out: list[RefereeOutput] = []

    @property
    def turn(self) -> int:
        """The seat whose turn it is."""
        return self.on_turn.place

    @property
    def need(self) -> Need:
        """What the seat on turn must do next."""
        return self.on_turn.need

    @property
    def window(self) -> Window | None:
        """The claim window open now."""
        return self.windows.open

    @property
    def rights(self) -> Sequence[Rights]:
        """What each seat may still do this hand."""
        return self.standing.rights

    @property
    def penalty_tiles(self) -> Sequence[PenaltyTiles]:
        """Each seat's penalty tiles."""
        return self.standing.penalty_tiles

    @property
    def won_on(self) -> Mapping[int, int]:
        """Discards won on -> the winner (who may take the tile to its hand, or leave it)."""
        return self.places.won_on

    @property
    def finished(self) -> Sequence[int]:
        """Seats that won and left the hand, in order."""
        return self._finished

    @property
    def foreign(self) -> Set[int]:
        """Tags that are in no tile set (said once; they take no part in play)."""
        return self._foreign

    @property
    def foreign_unsaid(self) -> Mapping[int, tuple[int, float]]:
        """Tags in no tile set not said yet (R-SENSOR-3): the seat whose zone showed them,
        and when."""
        return self._foreign_unsaid

    @property
    def out(self) -> Sequence[RefereeOutput]:
        """What the referee said during the input being handled, in order."""
        return self._out

    def begin_input(self, now: Instant) -> None:
        """An input at `now`: nothing said during it yet."""
        self._out = []
        self.now = now
        self.time.new_input()

    @contextmanager
    def judged_at(self, at: Instant) -> Iterator[None]:
        """Judge a declaration at the instant it was made (its incidents and its win)."""
        before, self.now = self.now, at
        try:
            yield
        finally:
            self.now = before

    def say(self, output: RefereeOutput) -> None:
        """Something the referee says now (a read again, the clocks, a win, the hand's end)."""
        self._out.append(output)

    def won(self, win: WinEntry) -> None:
        """A win is recorded and said."""
        self.wins.append(win)
        self._out.append(WinMade(win))

    def leaves(self, place: int) -> None:
        """The seat won and leaves the hand: its tiles are looked at again."""
        self._finished.append(place)
        self.recheck(place)

    def ends(self, reason: str) -> None:
        """The hand is over; no window is open."""
        self.over = reason
        self.windows.shut()

    def kong_stands(self, kong: KongEntry) -> None:
        """A kong stands, paid as recorded."""
        self.kongs.append(kong)

    def kong_income_passed(self, kong: KongEntry) -> None:
        """The kong's income went to the winners on the konger's next discard (杠上炮)."""
        kong.passed = True

    def kong_void(self, kong: KongEntry, reason: str) -> None:
        """A kong is void: its payment (the newest) is returned."""
        self.kongs.remove(kong)
        amounts = tuple(-a for a in self.payments[-1].amounts)
        self.payments.append(Payment(reason, amounts))

    def unrecord(self) -> Move:
        """The newest move was read wrongly: it is taken back (to be recorded as it was)."""
        return self.moves.pop()

    def foreign_found(self, uids: Iterable[int], place: int) -> None:
        """Tags in no tile set, read in a zone of `place`: they take no part in play, and are
        said once read again (`foreign_said`)."""
        for uid in uids:
            self._foreign.add(uid)
            self._foreign_unsaid[uid] = (place, self.t)

    def foreign_said(self, uids: Iterable[int]) -> None:
        """These tags in no tile set were said."""
        for uid in uids:
            del self._foreign_unsaid[uid]

    def foreign_misread(self, uids: Iterable[int]) -> None:
        """These tags in no tile set are read nowhere any more before they were said: a
        damaged read showed them. Forgotten."""
        for uid in uids:
            del self._foreign_unsaid[uid]
            self._foreign.discard(uid)

    def left_table(self, uid: int) -> None:
        """The tag left the table: play goes on without it."""
        self.places.gone(uid)
        self.unseen.discard(uid)

    @property
    def t(self) -> float:
        """The monotonic time of the input being handled."""
        return self.now.monotonic

    def window_due(self) -> float | None:
        """When the open claim window's time is up (None: no window is open)."""
        window = self.windows.open
        return None if window is None else window.opened + self.settings.window_s

    def reads_in(self, due: float) -> bool:
        """Every read up to `due` has come, so a decision due then may be taken; or it waited
        the strays time for them (a re-read on a noisy line can take that long). A loss is
        found at the next event or heartbeat, so one found up to READ_LAG after `due` counts."""
        since = self.waits.missing_since
        return since is None or due < since - READ_LAG or self.t >= due + self.settings.stray_s

    # ---- places -------------------------------------------------------------------------

    def observe(self, place: int, zone: Zone, uids: frozenset[int]) -> None:
        """A zone's settled content. A tag read here while the zone it was seen in still
        holds it is in two places at once: a sensor conflict, no move (R-SENSOR-2), until
        one of the two zones drops it (within the same input, when a move read both)."""
        key = (place, zone)
        before = self.zones.get(key, frozenset())
        self.zones[key] = uids
        seen, zones = self.seen, self.zones
        for uid in before - uids:
            if seen.get(uid) == key:
                del seen[uid]
            if uid in self.conflicts:
                self.conflicts.discard(uid)
                held = [k for k, content in zones.items() if uid in content]
                if held:
                    seen[uid] = held[0]
            self._check(uid)
        for uid in uids - before:
            old = seen.get(uid)
            if old is not None and old != key and uid in zones.get(old, ()):
                self.conflicts.add(uid)
            else:
                seen[uid] = key
            self._check(uid)

    def _check(self, uid: int) -> None:
        if uid in self._foreign:
            self.odd.discard(uid)
            self.unseen.discard(uid)
            return
        places = self.places
        want, got = places.where.get(uid), self.seen.get(uid)
        if want == got and uid in places.also:
            places.back_in_place(uid)  # put back where it belongs: the second place is gone
        if got is None and want is not None:
            self.unseen.add(uid)
        else:
            self.unseen.discard(uid)
        # A tag no antenna reads now is taken to be where it must be: antennas miss tags,
        # and a tile on its way (off the river, not yet in a meld) is no move yet.
        if (
            want == got
            or got is None
            or uid in self.conflicts
            or got == places.also.get(uid)
            or self._revealed(uid, want, got)
        ):
            self.odd.discard(uid)
        else:
            self.odd.add(uid)

    def _revealed(self, uid: int, want: Place | None, got: Place | None) -> bool:
        """A winner who left the hand may lay its tiles out as it likes, the discard it won on
        among them; a discard taken to win on lies in the taker's hand until it is judged."""
        if got is not None and self.places.won_on.get(uid) == got[0]:
            return True
        window = self.windows.open
        if window is not None and window.uid == uid and window.taken_by is not None:
            return got == (window.taken_by, Zone.HAND)
        return want is not None and want[0] in self._finished and (got is None or got[0] == want[0])

    def check(self, uid: int) -> None:
        """Look again at one tag (what play wants of it changed without a move)."""
        self._check(uid)

    def recheck(self, place: int) -> None:
        """Look again at every tag of a seat (it just left the hand)."""
        for uid in self.seats[place].all_uids():
            self._check(uid)

    def at(self, uid: int) -> Place | None:
        """Where the last settled read saw the tag."""
        return self.seen.get(uid)

    def odd_at(self, place: int, zone: Zone) -> list[int]:
        """Tags seen in this zone that must be elsewhere."""
        key, seen = (place, zone), self.seen
        return sorted(uid for uid in self.odd if seen.get(uid) == key)

    # ---- seats --------------------------------------------------------------------------

    def seat_of(self, place: int) -> Seat:
        """The seat wind of a physical seat this hand."""
        return self.deal.seat_of(place)

    def in_play(self, place: int) -> bool:
        """The seat has not won and left (blood battle)."""
        return place not in self._finished

    def next_in(self, place: int) -> int:
        """The next seat after `place` still in the hand."""
        for step in (1, 2, 3, 4):
            other = (place + step) % 4
            if self.in_play(other):
                return other
        return place

    def kinds(self, uids: Iterable[int]) -> list[int]:
        """Tile kinds of tags (unknown tags left out)."""
        return self.tiles.kinds(uids)

    # ---- outputs ------------------------------------------------------------------------

    def record(self, move: Move) -> None:
        """A move was made."""
        self.moves.append(move)
        self._out.append(MoveMade(move))

    def incident(
        self,
        place: int | None,
        kind: IncidentKind,
        detail: str,
        penalty: int = 0,
        tiles: tuple[int, ...] = (),
        ruling: Ruling | None = None,
    ) -> None:
        """An irregularity (or a ruling that costs nothing): recorded with the row of
        docs/rulings.md applied; play goes on."""
        self.note(IncidentRecord(self.now, place, kind, detail, penalty, tiles, ruling))

    def note(self, incident: IncidentRecord) -> None:
        """An incident record made elsewhere (the clocks): recorded, play goes on."""
        self.incidents.append(incident)
        self._out.append(IncidentSeen(incident))

    def pay(self, reason: str, amounts: Mapping[Seat, int]) -> tuple[int, ...]:
        """Record a settlement (by seat wind); returns it by place."""
        by_place = tuple(amounts.get(self.seat_of(place), 0) for place in range(4))
        if any(by_place):
            self.payments.append(Payment(reason, by_place))
        return by_place
