"""Scripted hands for the referee: a wall arranged so each seat is dealt the tiles a test
names and draws them in the order it names, and a table whose zones the test moves tiles
between as players would (each action's changed zones go to the referee as one settled read)."""

from collections.abc import Iterable

from controller.rules import DealState, get_ruleset, parse_tiles
from controller.rules.tiles import is_flower
from controller.table.geometry import Slot, physical_slot
from controller.table.ports import Zone
from controller.table.records import Instant
from controller.table.referee import (
    Declare,
    Elapsed,
    HandOver,
    Inventories,
    ReadAgain,
    ReadDone,
    Referee,
    RefereeInput,
    RefereeOutput,
    RefereeResult,
    RefereeSetup,
    Settings,
    ZoneContent,
)
from controller.table.referee.blackbox import BlackBox
from controller.table.tiles import TileMap
from tests.table.helpers import uid_of

Key = tuple[int, Zone]
"""(seat, zone)"""
DICE = {"zung-jung": (3, 4, 2, 2), "sichuan": (3, 4), "shanghai": (3, 4)}


def arranged_wall(
    ruleset_name: str,
    hands: dict[int, str],
    draws: str = "",
    replacements: str = "",
    dealer: int = 0,
) -> tuple[dict[Slot, int], TileMap, tuple[int, ...]]:
    """A wall that deals `hands` (place -> tiles; the dealer's has 14), then `draws` in live
    order and `replacements` from the tail; the rest of the set fills the wall."""
    ruleset = get_ruleset(ruleset_name)
    dice = DICE[ruleset_name]
    plan = ruleset.wall_plan(dice)
    pool: dict[int, list[int]] = {}
    kinds: dict[int, int] = {}
    for tile in ruleset.tiles.physical():
        uid = uid_of(tile.id)
        kinds[uid] = tile.kind
        pool.setdefault(tile.kind, []).append(uid)

    def take(kind: int) -> int:
        return pool[kind].pop()

    for place, text in hands.items():
        size = 14 if place == dealer else 13
        assert len(parse_tiles(text)) == size, f"seat {place} is dealt {size} tiles: {text}"
    placed: dict[Slot, int] = {}
    for step in plan.deal:
        place = (dealer + step.seat) % 4
        wanted = parse_tiles(hands[place])
        at = sum(1 for s in placed.values() if s in _dealt(placed, plan, dealer, place))
        for position in step.positions:
            placed[physical_slot(position, dealer)] = take(wanted[at])
            at += 1
    live = plan.sequence[plan.first_live :]
    for position, kind in zip(live, parse_tiles(draws), strict=False):
        placed[physical_slot(position, dealer)] = take(kind)
    for position, kind in zip(plan.replacements, parse_tiles(replacements), strict=False):
        placed[physical_slot(position, dealer)] = take(kind)
    rest = sorted((u for us in pool.values() for u in us), key=lambda u: is_flower(kinds[u]))
    for position in plan.sequence:
        slot = physical_slot(position, dealer)
        if slot not in placed:
            placed[slot] = rest.pop(0)
    return placed, TileMap("test", kinds), dice


def _dealt(placed: dict[Slot, int], plan: object, dealer: int, place: int) -> set[int]:
    """Tags already placed for `place` during the deal."""
    from controller.rules import WallPlan

    assert isinstance(plan, WallPlan)
    slots = {
        physical_slot(p, dealer)
        for step in plan.deal
        if (dealer + step.seat) % 4 == place
        for p in step.positions
    }
    return {uid for slot, uid in placed.items() if slot in slots}


class Table:
    """Four seats' zones and a referee watching them; time moves only when the test says."""

    def __init__(
        self,
        ruleset: str,
        hands: dict[int, str],
        draws: str = "",
        replacements: str = "",
        dealer: int = 0,
        settings: Settings | None = None,
    ) -> None:
        self.ruleset = get_ruleset(ruleset)
        placed, self.tiles, dice = arranged_wall(ruleset, hands, draws, replacements, dealer)
        self.plan = self.ruleset.wall_plan(dice)
        self.live = [placed[physical_slot(p, dealer)] for p in self.plan.sequence]
        self.tail = [placed[physical_slot(p, dealer)] for p in self.plan.replacements]
        self.zones: dict[tuple[int, Zone], set[int]] = {
            (p, z): set() for p in range(4) for z in Zone
        }
        from controller.table.deal import expected_deal

        expected = expected_deal(self.plan, placed, self.tiles, dealer)
        for place in range(4):
            self.zones[(place, Zone.HAND)] = set(expected.hands[place])
            self.zones[(place, Zone.MELD)] = set(expected.flowers[place])
        self.taken = {u for z in self.zones.values() for u in z}
        self.setup = RefereeSetup(
            self.ruleset,
            self.tiles,
            placed,
            dice,
            DealState(dealer=dealer),
            {p: frozenset(self.zones[(p, Zone.HAND)]) for p in range(4)},
            {p: frozenset(self.zones[(p, Zone.MELD)]) for p in range(4)},
            settings or Settings(window_s=3.0, settle_s=1.5, stray_s=10.0),
        )
        self.referee = Referee(self.setup)
        self.box = BlackBox.start(self.setup)
        self._rivers: dict[int, list[int]] = {}
        self.t = 100.0
        self.out: list[RefereeOutput] = []
        self._misread: set[Key] = set()
        """Zones a damaged read showed wrongly: the next read again shows them as they are."""

    # ---- what players do --------------------------------------------------------------------

    def draw(self, place: int) -> int:
        """Take the next live tile into the HAND zone."""
        uid = next(u for u in self.live if u not in self.taken)
        return self._from_wall(place, uid)

    def replace(self, place: int) -> int:
        """Take the next tile from the wall's end."""
        uid = next(u for u in self.tail if u not in self.taken)
        return self._from_wall(place, uid)

    def _from_wall(self, place: int, uid: int) -> int:
        self.taken.add(uid)
        self.zones[(place, Zone.HAND)].add(uid)
        self._read([(place, Zone.HAND)])
        return uid

    def uid(self, place: int, tile: str, zone: Zone = Zone.HAND) -> int:
        """A tag of this kind in a seat's zone."""
        kind = parse_tiles(tile)[0]
        return next(u for u in sorted(self.zones[(place, zone)]) if self.tiles.kind(u) == kind)

    def discard(self, place: int, tile: str) -> int:
        """HAND -> own river."""
        uid = self.uid(place, tile)
        self.move([uid], place, Zone.DISCARD)
        return uid

    def meld(self, place: int, tiles: str, discard_of: int | None = None) -> None:
        """Tiles of the own HAND (and the newest discard of `discard_of`) into the MELD zone."""
        chosen: list[int] = []
        for kind in parse_tiles(tiles):
            hand = sorted(self.zones[(place, Zone.HAND)])
            chosen.append(next(u for u in hand if self.tiles.kind(u) == kind and u not in chosen))
        if discard_of is not None:
            chosen.append(self.newest_discard(discard_of))
        self.move(chosen, place, Zone.MELD)

    def newest_discard(self, place: int) -> int:
        """The newest tile of a river."""
        return self._rivers[place][-1]

    def move(self, uids: Iterable[int], place: int, zone: Zone, unread: Iterable[Key] = ()) -> None:
        """Tags into a zone; the zones they left and the one they reach are read together
        (but the `unread` ones: their reads are lost, until `read`)."""
        changed = {(place, zone)}
        for uid in uids:
            for key, content in self.zones.items():
                if uid in content:
                    content.discard(uid)
                    changed.add(key)
            self.zones[(place, zone)].add(uid)
            if zone is Zone.DISCARD:
                self._rivers.setdefault(place, []).append(uid)
        self._read(sorted(changed - set(unread), key=lambda k: (k[0], k[1].value)))

    def take_discard(self, place: int, of: int) -> None:
        """The newest discard of `of` into the own HAND (to win on it)."""
        self.move([self.newest_discard(of)], place, Zone.HAND)

    def declare(self, place: int) -> None:
        """Press the declare button."""
        self.feed(Declare(place))

    def wait(self, seconds: float) -> None:
        """Time passes."""
        self.t += seconds
        self.feed(Elapsed())

    # ---- the referee --------------------------------------------------------------------------

    def read(self, *keys: Key) -> None:
        """These zones are read (as they are now)."""
        self._read(list(keys))

    def misread(self, key: Key, *uids: int) -> None:
        """A damaged read of one zone (one the line's checksum let through) shows these tags in
        it as well; the next read again shows the zone as it is."""
        shown = frozenset(self.zones[key]) | frozenset(uids)
        self._misread.add(key)
        self.feed(Inventories((ZoneContent(*key, shown),)))

    def _read(self, keys: list[Key]) -> None:
        self.feed(
            Inventories(tuple(ZoneContent(p, z, frozenset(self.zones[(p, z)])) for p, z in keys))
        )

    def feed(self, event: RefereeInput) -> list[RefereeOutput]:
        """One input to the referee (and its black box) at the table's time."""
        now = Instant(self.t, 1_700_000_000.0 + self.t)
        self.box.note(event, now)
        out = self.referee.handle(event, now)
        self.out += out
        self.t += 0.01
        if any(isinstance(o, ReadAgain) for o in out):
            # The MCU reads every zone again: the zones here are exact, so only those read
            # wrongly before change.
            if self._misread:
                keys, self._misread = sorted(self._misread), set()
                self._read(keys)
            out += self.feed(ReadDone(now.monotonic))
        return out

    @property
    def result(self) -> RefereeResult:
        """The hand's result (the hand must be over)."""
        [over] = [o for o in self.out if isinstance(o, HandOver)]
        return over.result

    def incidents(self) -> list[str]:
        """Kinds of the incidents so far."""
        return [i.kind for i in self.referee.play.incidents]
