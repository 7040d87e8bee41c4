"""Four simulated players at the simulated table: they watch the table as people do (its
state, the dice), press its buttons, and move tiles with their hands (the physical model).

They roll when the walls are up, take the deal the dice decide (flowers set aside and
replaced), then play: draw, throw, win on a discard or by self-draw and press their declare
button. When the wall is empty they tell the table the hand is over (the referee will do
that itself once it lands).
"""

import asyncio
import logging
from dataclasses import dataclass, replace

from controller.rules import Seat, Wall, get_ruleset, parse_tile
from controller.rules.ruleset import Ruleset
from controller.rules.tiles import is_flower
from controller.sim.brain import choose_discard, wins
from controller.sim.hardware import Buttons
from controller.table.cycle import Phase, TableView
from controller.table.deal import Take, expected_deal
from controller.table.geometry import physical_slot
from controller.table.inputs import EndHand
from controller.table.runner import TableRunner
from controller.table.tiles import TileMap
from firmware_bridge.messages import Zone
from firmware_bridge.sim.table import SimulatedTable
from firmware_bridge.sim.tiles import Tile

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Habits:
    """How the simulated players behave."""

    think_s: float = 0.0
    """Pause between moves (real seconds; 0 still lets the table's events through)."""
    wrong_deal_hand: int | None = None
    """In this hand, seats S and W each take one of the other's dealt tiles."""


class SimulatedPlayers:
    """The four players of a simulated table."""

    def __init__(self, table: SimulatedTable, buttons: Buttons, habits: Habits | None = None):
        self.table = table
        self.buttons = buttons
        self.habits = habits or Habits()
        self.hands_played = 0
        self._wake = asyncio.Event()
        self._runner: TableRunner | None = None

    async def run(self, runner: TableRunner) -> None:
        """Play whatever the table asks for, until cancelled."""
        self._runner = runner
        runner.observe(lambda _: self._wake.set())
        pressed: tuple[object, ...] | None = None
        done: set[tuple[str | None, int | None, Phase]] = set()
        while True:
            view = runner.view
            key = (view.session, view.hand, view.phase)
            if view.phase is Phase.FAULT:
                pressed = None
            elif view.phase in (Phase.WALLS_RAISED, Phase.DICE) and not view.rolling:
                if pressed != (view.hand, view.phase, view.dice, view.dealer):
                    pressed = (view.hand, view.phase, view.dice, view.dealer)
                    await self.think()
                    self.buttons.press_dice()
            elif view.phase in (Phase.DEALING, Phase.PLAYING) and key not in done:
                done.add(key)
                await (self._deal(view) if view.phase is Phase.DEALING else self._play(view))
            await self._next_view()

    async def _next_view(self) -> TableView:
        assert self._runner is not None
        self._wake.clear()
        await self._wake.wait()
        return self._runner.view

    async def think(self) -> None:
        """Pause as a person does between moves."""
        await asyncio.sleep(self.habits.think_s)

    # ---- the deal --------------------------------------------------------------------------

    async def _deal(self, view: TableView) -> None:
        assert view.ruleset is not None and view.dealer is not None
        ruleset = get_ruleset(view.ruleset)
        wall = self.table.wall()
        tiles = TileMap.from_names("seen", {tile.uid: tile.name for tile in wall.values()})
        plan = ruleset.wall_plan(view.dice)
        self._wall = plan.wall()
        placed = {slot: tile.uid for slot, tile in wall.items()}
        deal = expected_deal(plan, placed, tiles, view.dealer, self._wall)
        takes = list(deal.takes)
        if view.hand == self.habits.wrong_deal_hand:
            takes = _swap_first(takes, 1, 2)
        for take in (t for t in takes if not t.replacement):
            self.table.draw(take.place, *take.slot)
        for take in (t for t in takes if t.replacement):
            self._set_aside_flowers(take.place)
            self.table.draw(take.place, *take.slot)
        for place in range(4):
            self._set_aside_flowers(place)
        await self.think()

    def _set_aside_flowers(self, place: int) -> None:
        hand = self.table.zone_tiles(place, Zone.HAND)
        flowers = [tile.uid for tile in hand if is_flower(_kind(tile))]
        if flowers:
            self.table.meld(place, flowers)

    # ---- play ------------------------------------------------------------------------------

    async def _play(self, view: TableView) -> None:
        assert view.ruleset is not None and view.dealer is not None
        game = _Game(self, get_ruleset(view.ruleset), view.dealer, self._wall)
        await game.play()
        self.hands_played += 1

    async def declare(self, place: int) -> bool:
        """Press the declare button and wait for the table's verdict; True if it was a win."""
        assert self._runner is not None
        self.buttons.press_declare(place)
        view = self._runner.view
        while place not in view.declared and place not in view.winners:
            if view.phase is not Phase.PLAYING:
                return True
            view = await self._next_view()
        while place in view.declared and view.phase is Phase.PLAYING:
            view = await self._next_view()
        return place in view.winners or view.phase is not Phase.PLAYING

    def playing(self) -> bool:
        """The table still says 'playing'."""
        return self._runner is not None and self._runner.view.phase is Phase.PLAYING

    async def end_hand(self) -> None:
        """Tell the table the wall is empty (the referee's job, later) and wait for it."""
        assert self._runner is not None
        self._runner.submit(EndHand("the wall is empty"))
        while self.playing():
            await self._next_view()


def _swap_first(takes: list[Take], one: int, other: int) -> list[Take]:
    first = next(i for i, t in enumerate(takes) if t.place == one)
    second = next(i for i, t in enumerate(takes) if t.place == other)
    takes = list(takes)
    takes[first] = replace(takes[first], place=other)
    takes[second] = replace(takes[second], place=one)
    return takes


class _Game:
    """One hand of play: turn order, draws from the wall plan, discards and wins."""

    def __init__(
        self, players: SimulatedPlayers, ruleset: Ruleset, dealer: int, wall: Wall
    ) -> None:
        self.players = players
        self.table = players.table
        self.ruleset = ruleset
        self.dealer = dealer
        self.wall = wall
        self.finished: list[int] = []

    def seat(self, place: int) -> Seat:
        return Seat((place - self.dealer) % 4)

    def hand(self, place: int) -> list[Tile]:
        return self.table.zone_tiles(place, Zone.HAND)

    def flowers(self, place: int) -> list[int]:
        return [k for k in _kinds(self.table.zone_tiles(place, Zone.MELD)) if is_flower(k)]

    def after(self, place: int) -> list[int]:
        order = [(place + step) % 4 for step in (1, 2, 3)]
        return [p for p in order if p not in self.finished]

    async def play(self) -> None:
        turn, draw = self.dealer, False
        while self.players.playing():
            if draw:
                if not self.wall.remaining:
                    await self.players.end_hand()
                    return
                self._draw(turn)
            if await self._self_drawn(turn):
                if not self.players.playing() or not self.after(turn):
                    return
                turn, draw = self.after(turn)[0], True
                continue
            claimer = await self._discard(turn)
            if not self.players.playing():
                return
            nxt = self.after(claimer if claimer is not None else turn)
            if not nxt:
                return
            turn, draw = nxt[0], True
            await self.players.think()

    def _draw(self, place: int) -> None:
        position = self.wall.draw()
        tile = self.table.draw(place, *physical_slot(position, self.dealer))
        while is_flower(_kind(tile)) and self.wall.remaining:
            self.table.meld(place, [tile.uid])
            position = self.wall.draw_replacement()
            tile = self.table.draw(place, *physical_slot(position, self.dealer))

    async def _self_drawn(self, place: int) -> bool:
        kinds = _kinds(self.hand(place))
        if not kinds or not wins(
            self.ruleset,
            kinds,
            kinds[-1],
            self_drawn=True,
            seat=self.seat(place),
            flowers=self.flowers(place),
            finished=self._finished_seats(),
        ):
            return False
        if await self.players.declare(place):
            self.finished.append(place)
            return True
        return False

    async def _discard(self, place: int) -> int | None:
        hand = self.hand(place)
        kind = choose_discard([k for k in _kinds(hand) if not is_flower(k)], self.ruleset)
        tile = next(t for t in hand if _kind(t) == kind)
        self.table.discard(place, tile.uid)
        for other in self.after(place):
            kinds = [*_kinds(self.hand(other)), kind]
            if wins(
                self.ruleset,
                kinds,
                kind,
                self_drawn=False,
                seat=self.seat(other),
                discarder=self.seat(place),
                flowers=self.flowers(other),
                finished=self._finished_seats(),
            ):
                self.table.move(tile.uid, other, Zone.HAND)
                if await self.players.declare(other):
                    self.finished.append(other)
                return other
        return None

    def _finished_seats(self) -> frozenset[Seat]:
        return frozenset(self.seat(p) for p in self.finished)


def _kind(tile: Tile) -> int:
    return parse_tile(tile.name)


def _kinds(tiles: list[Tile]) -> list[int]:
    return [_kind(tile) for tile in tiles]
