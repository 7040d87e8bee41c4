"""One hand of play by the four simulated players, with their hands on the simulated table.

Every move goes through the table's physical API as docs/play.md says (draw from the
wall plan's next place, replacements from the wall's end, discards into the river, claimed
discards moved into the claimer's MELD zone with its own tiles, kongs, robbing a kong, a
discard taken into the HAND to win on it) and is written down as a `Move`. What the table
says back (a declared win accepted, the hand over) comes through an `Umpire`: the daemon's
view for real sessions, a stand-in in tests of the moves alone.

Which moves the players make is set by `Habits` (players.py): by default every move the
referee follows; with `claims`, `kongs`, `rob_kongs`, `shared_wins` and `win_types` off they
only draw, discard and win (a plain discard or self-draw). `Sloppiness`
(mistakes.py) adds slips at seeded rates, each kept as a `Slip` beside the moves.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum, auto
from typing import Protocol

from controller.rules import (
    Claim,
    KongKind,
    Meld,
    MeldKind,
    Ruleset,
    Seat,
    Wall,
    WinType,
    format_tiles,
    parse_tile,
)
from controller.rules.tiles import is_flower
from controller.sim.brain import (
    added_kong,
    choose_discard,
    claim_on,
    concealed_kong,
    may_win,
    wins,
)
from controller.sim.mistakes import Sloppiness
from controller.sim.moves import Move, MoveKind, Slip, SlipKind
from controller.table.geometry import physical_slot
from firmware_bridge.messages import TileSetKind, Zone
from firmware_bridge.sim.table import SimulatedTable
from firmware_bridge.sim.tiles import Tile, tile_names


class Umpire(Protocol):
    """What the players learn from the table while they play."""

    async def declare(self, places: Sequence[int]) -> list[int]:
        """Press these seats' declare buttons; returns the places whose win was accepted."""
        ...

    def playing(self) -> bool:
        """The hand is still in play."""
        ...

    async def wall_empty(self) -> None:
        """Nobody can draw: wait for the table to end the hand."""
        ...

    async def pace(self, followed: bool = True) -> None:
        """A pause between two moves (lets the table see each one); `followed` False after
        a slip, which the table follows as no move (nothing to wait for)."""
        ...

    async def stall(self, seconds: float) -> None:
        """Let this much table time pass (a slow turn)."""
        ...


@dataclass(frozen=True)
class PlayStyle:
    """Which moves the players make (from `Habits`)."""

    claims: bool = False
    kongs: bool = False
    rob_kongs: bool = False
    shared_wins: bool = False
    win_types: bool = False


class _Start(Enum):
    """How a turn begins."""

    DEAL = auto()
    """The dealer's first turn: 14 dealt tiles, no draw."""
    DRAW = auto()
    CLAIMED = auto()
    """After a chow or pung: discard only."""
    KONGED = auto()
    """After an exposed kong from a discard: a replacement first."""
    JUMPED = auto()
    """Drew out of turn (a slip): no win or kong, just a discard."""


@dataclass
class _Robbed:
    robbers: list[int]


@dataclass
class _Won:
    place: int


class HandPlay:
    """One hand from the end of the deal until the table ends it."""

    def __init__(
        self,
        table: SimulatedTable,
        umpire: Umpire,
        ruleset: Ruleset,
        dealer: int,
        wall: Wall,
        *,
        style: PlayStyle | None = None,
        hand: int = 0,
        sloppy: Sloppiness | None = None,
    ) -> None:
        self.table = table
        self.umpire = umpire
        self.ruleset = ruleset
        self.dealer = dealer
        self.wall = wall
        self.style = style or PlayStyle()
        self.number = hand
        self.finished: list[int] = []
        self.melds: dict[int, list[tuple[Meld, tuple[int, ...]]]] = {p: [] for p in range(4)}
        """Each seat's declared sets as it made them, with their tags."""
        self.moves: list[Move] = []
        self.sloppy = sloppy or Sloppiness()
        self.slips: list[Slip] = []
        """The mistakes made on purpose, in order (the ground truth for a referee)."""
        self.off = [0, 0, 0, 0]
        """Tiles each seat holds over (+1, long hand) or under (-1, short) what it must."""
        self._dice = self.sloppy.rng(hand)
        self._late: tuple[int, int, Tile, tuple[int, ...]] | None = None
        """A pung a seat let pass and will take after the next draw (a late claim)."""
        self._turns = [0, 0, 0, 0]
        self._claimed = False
        """Some set was made this hand (no more heavenly or earthly wins)."""
        self._after_kong = False
        """The last discard came after a kong in the same turn."""
        self._flower_replaced = False
        """The last tile drawn replaced a flower."""
        self._short_now = False
        """The turn just ended with a second discard (a slip the table follows as no move)."""
        self.barred: set[int] = set()
        """Seats that drew out of turn: a long hand, no win, claim or kong this hand."""
        self.penalty: dict[int, set[int]] = {p: set() for p in range(4)}
        """Each seat's penalty tiles (tags): never put into an exposed set."""

    # ---- what a player sees -------------------------------------------------------------

    def seat(self, place: int) -> Seat:
        """The seat wind of a table place in this hand."""
        return Seat((place - self.dealer) % 4)

    def hand(self, place: int) -> list[Tile]:
        """The tiles in a seat's HAND zone."""
        return self.table.zone_tiles(place, Zone.HAND)

    def flowers(self, place: int) -> list[int]:
        """The flowers a seat has set aside."""
        return [k for k in _kinds(self.table.zone_tiles(place, Zone.MELD)) if is_flower(k)]

    def after(self, place: int) -> list[int]:
        """The seats still in, in turn order after `place`."""
        order = [(place + step) % 4 for step in (1, 2, 3)]
        return [p for p in order if p not in self.finished]

    # ---- the hand -----------------------------------------------------------------------

    async def play(self) -> None:
        """Play until the table says the hand is over (or nobody can draw)."""
        turn, start = self.dealer, _Start.DEAL
        while self.umpire.playing():
            if start is _Start.DRAW:
                if not self.wall.remaining:
                    await self.umpire.wall_empty()
                    return
                turn, jumped = self._jump(turn)
                drawn = self._draw(turn)
                await self.umpire.pace(followed=not jumped)
                drawn = drawn and await self._after_draw(turn)
                if not drawn:
                    await self.umpire.wall_empty()
                    return
                start = _Start.JUMPED if jumped else start
            outcome = await self._turn(turn, start)
            if not self.umpire.playing():
                return
            if outcome is None:
                await self.umpire.wall_empty()
                return
            if isinstance(outcome, _Won | _Robbed):
                last = outcome.place if isinstance(outcome, _Won) else outcome.robbers[-1]
                nxt = self.after(last)
                if not nxt:
                    return
                turn, start = nxt[0], _Start.DRAW
                continue
            await self.umpire.pace(followed=not self._short_now)
            self._short_now = False
            claim = await self._after_discard(turn, outcome)
            if not self.umpire.playing():
                return
            if claim is None:
                nxt = self.after(turn)
                if not nxt:
                    return
                turn, start = nxt[0], _Start.DRAW
            elif isinstance(claim, list):
                nxt = self.after(claim[-1])
                if not nxt:
                    return
                turn, start = nxt[0], _Start.DRAW
            else:
                turn, start = claim
                await self.umpire.pace()

    async def _turn(self, place: int, start: _Start) -> Tile | _Won | _Robbed | None:
        """A seat's turn: win, kong (and replacement) as it likes, then discard; None if a
        replacement was a flower with no tile left to replace it (the hand is over)."""
        self._turns[place] += 1
        konged = False
        how = {_Start.DEAL: WinType.HEAVENLY, _Start.DRAW: WinType.SELF_DRAW}.get(start)
        if start is _Start.DRAW and self._flower_replaced:
            how = WinType.KONG_REPLACEMENT  # a flower's replacement wins like a kong's (杠开)
        if start is _Start.KONGED:
            if not self._replacement(place):
                return None
            await self.umpire.pace()
            konged, how = True, WinType.KONG_REPLACEMENT
        while how is not None:
            if await self._self_drawn(place, how):
                return _Won(place)
            kong = self._choose_kong(place) if self.style.kongs else None
            if kong is None:
                break
            robbed = await self._kong(place, *kong)
            if not self.umpire.playing():
                return _Won(robbed[-1]) if robbed else _Won(place)
            if robbed:
                return _Robbed(robbed)
            if not self._replacement(place):
                return None
            await self.umpire.pace()
            konged, how = True, WinType.KONG_REPLACEMENT
        await self._slips_before_discard(place)
        if not self.umpire.playing():
            return _Won(place)
        tile = self._discard(place, konged)
        if self._counted(place) and self._slip(self.sloppy.short_hand):
            await self.umpire.pace()
            self._note(place, SlipKind.SHORT_HAND, [tile], "a second tile thrown in one turn")
            tile = self._discard(place, konged)
            self.off[place] = -1
            self._short_now = True
        return tile

    # ---- slips (sloppy players) ---------------------------------------------------------

    def _counted(self, place: int) -> bool:
        """The seat still has every right (no short or long hand yet): a slip that costs
        them is still told as its own."""
        return self.off[place] == 0 and place not in self.barred

    def _slip(self, rate: float) -> bool:
        return rate > 0 and self._dice.random() < rate

    def _note(
        self,
        place: int,
        kind: SlipKind,
        tiles: Sequence[Tile],
        detail: str,
        seconds: float = 0.0,
    ) -> None:
        uids = tuple(t.uid for t in tiles)
        index = len(self.moves)
        self.slips.append(Slip(self.number, place, kind, index, uids, detail, seconds))

    def _jump(self, turn: int) -> tuple[int, bool]:
        """The seat after the one on turn draws in its place (drawing out of turn)."""
        nxt = self.after(turn)
        if not nxt or nxt[0] == turn or not self._slip(self.sloppy.draw_out_of_turn):
            return turn, False
        self._note(nxt[0], SlipKind.DRAW_OUT_OF_TURN, [], f"drew in place of seat {turn}")
        self.barred.add(nxt[0])  # a long hand: no win, claim or kong this hand
        return nxt[0], True

    async def _after_draw(self, place: int) -> bool:
        """After a live draw: a late claim of the discard before it, a second draw (long
        hand); False if the wall ran out on a flower."""
        if self._late is not None:
            await self._late_claim()
        if not self._counted(place) or self.wall.remaining < 2:
            return True
        if not self._slip(self.sloppy.long_hand):
            return True
        self._note(place, SlipKind.LONG_HAND, [], "a second tile drawn in one turn")
        self.off[place] = 1
        drawn = self._draw(place)
        await self.umpire.pace(followed=False)
        return drawn

    async def _late_claim(self) -> None:
        assert self._late is not None
        claimer, discarder, tile, used = self._late
        self._late = None
        river = self.table.zone_tiles(discarder, Zone.DISCARD)
        if not river or river[-1].uid != tile.uid or claimer in self.finished:
            return
        own = self._own(claimer, used)
        if own is None:
            return
        self._note(claimer, SlipKind.LATE_CLAIM, [tile], f"took seat {discarder}'s discard late")
        self.table.meld(claimer, [tile.uid] + [t.uid for t in own])
        self._record(claimer, MoveKind.PUNG, [tile, *own], source=discarder)
        await self._refused(claimer, discarder, tile, own)

    def _own(self, place: int, kinds: Sequence[int]) -> list[Tile] | None:
        """Tiles of these kinds from the seat's hand that are no penalty tiles (None: none)."""
        own: list[Tile] = []
        for need in kinds:
            tile = next(
                (
                    t
                    for t in self.hand(place)
                    if _kind(t) == need and t not in own and t.uid not in self.penalty[place]
                ),
                None,
            )
            if tile is None:
                return None
            own.append(tile)
        return own

    async def _refused(self, claimer: int, discarder: int, tile: Tile, own: list[Tile]) -> None:
        """The table refused a set laid out with a discard (a wrong claim): the discard goes
        back to its river, the claimer's own tiles back to its hand as penalty tiles."""
        await self.umpire.pace(followed=False)
        self.table.move(tile.uid, discarder, Zone.DISCARD)
        for own_tile in own:
            self.table.move(own_tile.uid, claimer, Zone.HAND)
        self.penalty[claimer].update(t.uid for t in own)
        await self.umpire.pace(followed=False)

    async def _slips_before_discard(self, place: int) -> None:
        if self._counted(place) and self._slip(self.sloppy.false_win):
            self._note(place, SlipKind.FALSE_WIN, [], "declared a win the tiles do not make")
            self._record(place, MoveKind.DECLARE, [], win_type=WinType.SELF_DRAW)
            await self.umpire.declare([place])
            self.penalty[place].update(t.uid for t in self.hand(place))
        if self._slip(self.sloppy.slow_turn):
            seconds = self.sloppy.slow_turn_s(self.ruleset)
            self._note(place, SlipKind.SLOW_TURN, [], f"the turn took {seconds:g} s", seconds)
            await self.umpire.stall(seconds)

    # ---- draws --------------------------------------------------------------------------

    def _draw(self, place: int) -> bool:
        """Draw the next live tile (flowers set aside and replaced); False if the last tile
        was a flower with nothing left to replace it."""
        tile = self.table.draw(place, *physical_slot(self.wall.draw(), self.dealer))
        self._record(place, MoveKind.DRAW, [tile])
        return self._flowers_out(place, tile)

    def _replacement(self, place: int) -> bool:
        """Draw a replacement from the wall's end (as `_draw`)."""
        position = self.wall.draw_replacement()
        tile = self.table.draw(place, *physical_slot(position, self.dealer))
        self._record(place, MoveKind.REPLACEMENT, [tile])
        return self._flowers_out(place, tile)

    def _flowers_out(self, place: int, tile: Tile) -> bool:
        self._flower_replaced = False
        while is_flower(_kind(tile)):
            self._flower_replaced = True
            self.table.meld(place, [tile.uid])
            self._record(place, MoveKind.FLOWER, [tile])
            if not self.wall.remaining:
                return False
            position = self.wall.draw_replacement()
            tile = self.table.draw(place, *physical_slot(position, self.dealer))
            self._record(place, MoveKind.REPLACEMENT, [tile])
        return True

    # ---- wins ---------------------------------------------------------------------------

    def _win_type(self, how: WinType, place: int) -> WinType:
        """The win type the player names: the real one, or (interim judge) discard/self-draw."""
        first = not self._claimed and self._turns[place] == 1
        if how is WinType.HEAVENLY and not (first and place == self.dealer):
            how = WinType.SELF_DRAW
        if how is WinType.SELF_DRAW:
            if first and place != self.dealer and self.ruleset.is_self_drawn(WinType.EARTHLY):
                how = WinType.EARTHLY
            elif not self.wall.remaining:
                how = WinType.LAST_TILE
        if how is WinType.DISCARD and not self.wall.remaining:
            how = WinType.LAST_DISCARD
        if self.style.win_types:
            return how
        return WinType.SELF_DRAW if self.ruleset.is_self_drawn(how) else WinType.DISCARD

    def _wins(
        self, place: int, extra: int | None, how: WinType, discarder: int | None = None
    ) -> bool:
        if self.off[place] or place in self.barred:
            return False  # a short or long hand can no longer win
        kinds = _kinds(self.hand(place))
        if extra is not None:
            kinds.append(extra)
        melds = [meld for meld, _ in self.melds[place]]
        flowers = self.flowers(place)
        if not kinds or not may_win(self.ruleset, kinds, melds, flowers):
            return False
        how = self._win_type(how, place)
        self_drawn = self.ruleset.is_self_drawn(how)
        return wins(
            self.ruleset,
            kinds,
            kinds[-1],
            self_drawn=self_drawn,
            seat=self.seat(place),
            discarder=None if self_drawn or discarder is None else self.seat(discarder),
            flowers=flowers,
            melds=melds,
            finished=frozenset(self.seat(p) for p in self.finished),
            win_type=how,
        )

    async def _self_drawn(self, place: int, how: WinType) -> bool:
        if not self._wins(place, None, how):
            return False
        self._record(place, MoveKind.DECLARE, [], win_type=self._win_type(how, place))
        if place in await self.umpire.declare([place]):
            self.finished.append(place)
            return True
        return False

    # ---- kongs --------------------------------------------------------------------------

    def _choose_kong(self, place: int) -> tuple[KongKind, int] | None:
        if not self.wall.remaining or self.off[place] or place in self.barred:
            return None  # no replacement: no kong on the last tile
        kinds = [k for k in _kinds(self.hand(place)) if not is_flower(k)]
        kind = concealed_kong(self.ruleset, kinds)
        if kind is not None:
            return KongKind.CONCEALED, kind
        pungs = [meld.first for meld, _ in self.melds[place] if meld.kind is MeldKind.PUNG]
        free = [t for t in self.hand(place) if t.uid not in self.penalty[place]]
        kind = added_kong(self.ruleset, [k for k in _kinds(free) if not is_flower(k)], pungs)
        return None if kind is None else (KongKind.ADDED, kind)

    async def _kong(self, place: int, how: KongKind, kind: int) -> list[int]:
        """Make the kong; returns the robbers if an added kong was robbed."""
        tiles = [t for t in self.hand(place) if _kind(t) == kind]
        if how is KongKind.CONCEALED:
            self.penalty[place].difference_update(t.uid for t in tiles)  # none any more
            self.table.meld(place, [t.uid for t in tiles])
            self._set(place, Meld(MeldKind.CONCEALED_KONG, (kind,) * 4), tiles)
            self._record(place, MoveKind.CONCEALED_KONG, tiles)
            await self.umpire.pace()
            return []
        added = next(t for t in tiles if t.uid not in self.penalty[place])
        self.table.meld(place, [added.uid])
        self._record(place, MoveKind.ADDED_KONG, [added])
        await self.umpire.pace()
        robbers = await self._rob(place, added)
        if robbers:
            return robbers
        sets = self.melds[place]
        index = next(
            i for i, (m, _) in enumerate(sets) if m.kind is MeldKind.PUNG and m.first == kind
        )
        sets[index] = (Meld(MeldKind.KONG, (kind,) * 4), (*sets[index][1], added.uid))
        self._claimed = True
        return []

    async def _rob(self, konger: int, tile: Tile) -> list[int]:
        """Seats that win on the added tile press declare; the first takes it into its HAND."""
        if not (self.style.rob_kongs and self.ruleset.claims.can_rob(KongKind.ADDED)):
            return []
        kind = _kind(tile)
        robbers = [
            p for p in self.after(konger) if self._wins(p, kind, WinType.ROBBING_KONG, konger)
        ]
        if not robbers:
            return []
        robbers = self._winners(robbers)
        self.table.move(tile.uid, robbers[0], Zone.HAND)
        self._record(robbers[0], MoveKind.ROB_KONG, [tile], source=konger)
        for robber in robbers:
            how = self._win_type(WinType.ROBBING_KONG, robber)
            self._record(robber, MoveKind.DECLARE, [], source=konger, win_type=how)
        won = await self.umpire.declare(robbers)
        self.finished += [p for p in robbers if p in won]
        return robbers

    def _winners(self, candidates: list[int]) -> list[int]:
        """Everyone who wins on one tile where the ruleset allows it, else the first in turn."""
        if self.style.shared_wins and self.ruleset.claims.multiple_winners:
            return candidates
        return candidates[:1]

    # ---- discards and claims ------------------------------------------------------------

    def _discard(self, place: int, konged: bool) -> Tile:
        hand = self.hand(place)
        kind = choose_discard([k for k in _kinds(hand) if not is_flower(k)], self.ruleset)
        tile = next(t for t in hand if _kind(t) == kind)
        self.table.discard(place, tile.uid)
        self.penalty[place].discard(tile.uid)
        self._record(place, MoveKind.DISCARD, [tile])
        self._after_kong = konged
        return tile

    async def _after_discard(self, place: int, tile: Tile) -> list[int] | tuple[int, _Start] | None:
        """Claims on a discard: wins (the winners), else the best set (claimer, how its
        turn starts), else None (it passes; the next draw closes the window)."""
        kind = _kind(tile)
        how = WinType.AFTER_KONG_DISCARD if self._after_kong else WinType.DISCARD
        first = not self._claimed and place == self.dealer and self._turns[place] == 1
        if first and not self.ruleset.is_self_drawn(WinType.EARTHLY):
            how = WinType.EARTHLY
        winners = [p for p in self.after(place) if self._wins(p, kind, how, place)]
        if winners:
            winners = self._winners(winners)
            if self.style.claims and how is not WinType.EARTHLY:  # a set ends Earthly
                await self._claim_race(place, tile, winners)
            self.table.move(tile.uid, winners[0], Zone.HAND)
            self._record(winners[0], MoveKind.TAKE_DISCARD, [tile], source=place)
            for winner in winners:
                said = self._win_type(how, winner)
                self._record(winner, MoveKind.DECLARE, [], source=place, win_type=said)
            won = await self.umpire.declare(winners)
            self.finished += [p for p in winners if p in won]
            return winners
        if not self.style.claims:
            return None
        await self._wrong_claims(place, tile)
        return self._claim_set(place, tile)

    async def _claim_race(self, place: int, tile: Tile, winners: list[int]) -> None:
        """A slip: a seat lays out a pung of the discard a seat after it will win on, before
        the winner takes it (the win comes first: the set is void, its tiles go back)."""
        kind = _kind(tile)
        for other in self.after(place):
            if other in winners or self.off[other] or other in self.barred:
                continue
            own = self._own(other, (kind, kind))
            if (
                own is None
                or not self.ruleset.claims.pung
                or not self._slip(self.sloppy.claim_race)
            ):
                continue
            self._note(other, SlipKind.CLAIM_RACE, [tile], f"punged seat {place}'s discard")
            self.table.meld(other, [tile.uid] + [t.uid for t in own])
            self._record(other, MoveKind.PUNG, [tile, *own], source=place)
            self._claimed = True
            await self.umpire.pace()
            for own_tile in own:
                self.table.move(own_tile.uid, other, Zone.HAND)
            return

    async def _wrong_claims(self, place: int, tile: Tile) -> None:
        """Slips on a discard nobody wins on: a chow from a seat that is not the next, a pung
        with a penalty tile; each refused, its tiles put back."""
        kind = _kind(tile)
        if not self.wall.remaining:
            return  # the last discard may only be won on
        for other in self.after(place):
            if self.off[other] or other in self.barred or len(self.hand(other)) < 4:
                continue
            chow = self.ruleset.claims.chow and other != (place + 1) % 4
            used = _chow_of(kind, _kinds(self.hand(other))) if chow else None
            if used is not None and self._slip(self.sloppy.wrong_seat_chow):
                own = self._own(other, used)
                if own is not None:
                    self._note(other, SlipKind.WRONG_SEAT_CHOW, [tile], f"chowed seat {place}")
                    self.table.meld(other, [tile.uid] + [t.uid for t in own])
                    await self._refused(other, place, tile, own)
                    return
            marked = [t for t in self.hand(other) if t.uid in self.penalty[other]]
            pair = [t for t in self.hand(other) if _kind(t) == kind][:2]
            if (
                self.ruleset.claims.pung
                and len(pair) == 2
                and any(t in marked for t in pair)
                and self._slip(self.sloppy.penalty_set)
            ):
                self._note(other, SlipKind.PENALTY_SET, [tile], "punged with a penalty tile")
                self.table.meld(other, [tile.uid] + [t.uid for t in pair])
                await self._refused(other, place, tile, pair)
                return

    def _claim_set(self, place: int, tile: Tile) -> tuple[int, _Start] | None:
        kind = _kind(tile)
        last = not self.wall.remaining
        wanted: dict[Seat, tuple[int, Claim, tuple[int, ...]]] = {}
        for other in self.after(place):
            if self.off[other] or other in self.barred:
                continue
            if len(self.hand(other)) < 3:
                continue  # a claim must leave a tile to throw
            free = [t for t in self.hand(other) if t.uid not in self.penalty[other]]
            kinds = [k for k in _kinds(free) if not is_flower(k)]
            choice = claim_on(
                self.ruleset,
                kinds,
                kind,
                may_chow=other == (place + 1) % 4,
                may_kong=self.style.kongs and self.wall.remaining > 0,
            )
            if choice is not None:
                wanted[self.seat(other)] = (other, *choice)
        resolved = self.ruleset.claims.resolve(
            self.seat(place), {seat: claim for seat, (_, claim, _) in wanted.items()}, last
        )
        if not resolved:
            return None
        claimer, claim, used = wanted[resolved[0][0]]
        late = claim is Claim.PUNG and claimer != self.after(place)[0]
        if late and self._slip(self.sloppy.late_claim):
            self._late = (claimer, place, tile, used)
            return None
        own = self._own(claimer, used)
        assert own is not None, "chosen from the tiles that are no penalty tiles"
        self.table.meld(claimer, [tile.uid] + [t.uid for t in own])
        tiles = sorted([kind, *used])
        meld_kind, move = {
            Claim.CHOW: (MeldKind.CHOW, MoveKind.CHOW),
            Claim.PUNG: (MeldKind.PUNG, MoveKind.PUNG),
            Claim.KONG: (MeldKind.KONG, MoveKind.EXPOSED_KONG),
        }[claim]
        self._set(claimer, Meld(meld_kind, tuple(tiles)), [tile, *own])
        self._record(claimer, move, [tile, *own], source=place)
        self._claimed = True
        return claimer, _Start.KONGED if claim is Claim.KONG else _Start.CLAIMED

    # ---- records ------------------------------------------------------------------------

    def _set(self, place: int, meld: Meld, tiles: Sequence[Tile]) -> None:
        self.melds[place].append((meld, tuple(t.uid for t in tiles)))
        self._claimed = True

    def _record(
        self,
        place: int,
        kind: MoveKind,
        tiles: Sequence[Tile],
        *,
        source: int | None = None,
        win_type: WinType | None = None,
    ) -> None:
        self.moves.append(
            Move(
                self.number,
                place,
                kind,
                tuple(t.uid for t in tiles),
                format_tiles(sorted(_kinds(list(tiles)))),
                source,
                win_type,
            )
        )


_KIND_OF = {name: parse_tile(name) for name in tile_names(TileSetKind.WITH_FLOWERS_144)}
"""Face -> tile kind for every face of the simulated tile sets."""


def _chow_of(tile: int, hand: Sequence[int]) -> tuple[int, int] | None:
    """Two kinds of the hand that make a chow with `tile` (None: none)."""
    if tile >= 27:
        return None
    for low, high in ((tile - 2, tile - 1), (tile - 1, tile + 1), (tile + 1, tile + 2)):
        same_suit = low >= 0 and high < 27 and low // 9 == high // 9 == tile // 9
        if same_suit and low in hand and high in hand:
            return low, high
    return None


def _kind(tile: Tile) -> int:
    return _KIND_OF[tile.name]


def _kinds(tiles: list[Tile]) -> list[int]:
    kind_of = _KIND_OF
    return [kind_of[tile.name] for tile in tiles]
