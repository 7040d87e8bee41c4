"""Four simulated players at the simulated table: they watch the table as people do (its
state, the dice), press its buttons, and move tiles with their hands (the physical model).

Before a WMC session's first hand they hold the seating draw the table asks for (two rolls,
then each takes one of the four wind tiles, shuffled face down, into his HAND zone). They
roll when the walls are up, take the deal the dice decide (flowers set aside and
replaced), then play the hand (`hand_play`): draw, throw, win on a discard or by self-draw
and press their declare button; with the `Habits` for it, also claim chows, pungs and
kongs, make concealed and added kongs, rob kongs, win together on one discard and name the
real win type. The referee ends each hand itself; the players wait for that.

Every move is a `Move`, every mistake made on purpose a `Slip`: the ground truth of the
session, written to the `ground_truth` file as each hand ends and, when asked (`keep`), kept
in `SimulatedPlayers.moves` and `.slips`.
"""

import asyncio
import contextlib
import logging
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from controller.rules import get_ruleset
from controller.sim.dealing import take_deal
from controller.sim.hand_play import HandPlay, PlayStyle
from controller.sim.hardware import Buttons
from controller.sim.mistakes import Sloppiness
from controller.sim.moves import Move, Slip, write_jsonl
from controller.sim.virtual_time import LoopClock
from controller.table.cycle import Phase, TableView
from controller.table.runner import TableRunner
from controller.table.seating import FIRST_ROLLER, draw_order
from controller.table.tiles import seats_words
from firmware_bridge.messages import Zone
from firmware_bridge.sim.table import SimulatedTable

log = logging.getLogger(__name__)

FOLLOW_LIMIT_S = 15.0
"""Longest the players wait for the table to follow a move (longer than the referee takes
to give up on tiles out of place and take the table as it is)."""


@dataclass(frozen=True)
class Habits:
    """How the simulated players behave."""

    think_s: float = 0.0
    """Pause between moves (real seconds; 0 still lets the table's events through)."""
    move_s: float = 0.0
    """Table time each move takes at least (the table's injected clock: virtual in tests).
    People are slower than the zone readers' polls; 0: as fast as the event loop goes."""
    wrong_deal_hand: int | None = None
    """In this hand, seats S and W each take one of the other's dealt tiles."""
    claims: bool = True
    """Claim chows (from the seat before, where the ruleset has chows), pungs and exposed
    kongs on discards that fit the hand (the referee follows them)."""
    kongs: bool = True
    """Make concealed and added kongs in the own turn, and exposed kongs when claiming."""
    rob_kongs: bool = True
    """Win on the tile of another seat's added kong (robbing the kong)."""
    shared_wins: bool = True
    """Everyone who can win on one discard declares (Sichuan, Shanghai); else the first in
    turn after the discarder (head bump)."""
    win_types: bool = True
    """Judge a possible win by its real type (kong replacement, last tile, heavenly, ...);
    off: as a plain discard or self-draw."""
    sloppy: Sloppiness | None = None
    """Mistakes made on purpose at these rates (`simulate --habits sloppy`); None: none."""
    seating_draw: bool = True
    """Hold the seating draw when the table asks for one (off: a test lays the winds)."""
    wait_for_referee: bool = True
    """After each move wait until the table's view shows the referee followed a move
    (`TableView.moves` changed)."""

    @property
    def style(self) -> PlayStyle:
        """The moves these habits make."""
        return PlayStyle(self.claims, self.kongs, self.rob_kongs, self.shared_wins, self.win_types)


FULL_PLAY = Habits()
"""Every move the referee follows (the defaults)."""
PLAIN_PLAY = Habits(
    claims=False,
    kongs=False,
    rob_kongs=False,
    shared_wins=False,
    win_types=False,
)
"""Only draws, discards and wins (plain discard or self-draw), the referee ending hands."""


class SimulatedPlayers:
    """The four players of a simulated table."""

    def __init__(
        self,
        table: SimulatedTable,
        buttons: Buttons,
        habits: Habits | None = None,
        ground_truth: Path | None = None,
        keep: bool = False,
    ):
        self.table = table
        self.buttons = buttons
        self.habits = habits or Habits()
        self.ground_truth = ground_truth
        """A JSON lines file the moves and slips of each hand are added to as it ends."""
        self.keep = keep
        """Keep every move and slip in memory (`moves`, `slips`) for a test to read; off, a
        long session's memory does not grow with its hands."""
        self.hands_played = 0
        self.moves: list[Move] = []
        """With `keep`: every move of every hand played, in order (the session's ground truth)."""
        self.slips: list[Slip] = []
        """With `keep`: every mistake made on purpose (sloppy habits), in order."""
        self._wake = asyncio.Event()
        self._runner: TableRunner | None = None
        self._followed = 0
        self._hand: int | None = None
        """The hand being played."""
        self._seating_draws = 0
        self.waiting = "the table to power on"
        """What the players wait for now, in words (a session that stalls says it)."""

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
            elif view.phase is Phase.SEATING and self.habits.seating_draw and not view.rolling:
                if len(view.dice) < 4 and pressed != (view.session, view.phase, view.dice):
                    pressed = (view.session, view.phase, view.dice)
                    await self.think()
                    self.buttons.press_dice()
                elif len(view.dice) == 4 and key not in done:
                    done.add(key)
                    await self._seating_draw(view)
            elif view.phase in (Phase.WALLS_RAISED, Phase.DICE) and not view.rolling:
                if pressed != (view.hand, view.phase, view.dice, view.dealer):
                    pressed = (view.hand, view.phase, view.dice, view.dealer)
                    await self.think()
                    self.buttons.press_dice()
            elif view.phase in (Phase.DEALING, Phase.PLAYING) and key not in done:
                if any(seen[:2] != key[:2] for seen in done):
                    done.clear()  # only this hand's phases matter (memory stays flat)
                done.add(key)
                await (self._deal(view) if view.phase is Phase.DEALING else self._play(view))
            self.waiting = "the table's next step"
            await self._next_view()

    async def _next_view(self, until: float | None = None) -> TableView:
        """The table's view once it changes; or as it is at `until` (the table's time), if
        the table shows nothing new by then (a table that cannot follow a move goes quiet)."""
        assert self._runner is not None
        self._wake.clear()
        if until is None:
            await self._wake.wait()
        else:
            # The table's clock runs with the loop's (virtual or real): its seconds are the
            # loop's seconds.
            left = until - self._runner.clock.monotonic()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), max(left, 0.0))
        return self._runner.view

    async def think(self) -> None:
        """Pause as a person does between moves."""
        await asyncio.sleep(self.habits.think_s)

    # ---- the seating draw ------------------------------------------------------------------

    async def _seating_draw(self, view: TableView) -> None:
        """The four winds, shuffled face down in a row, taken one each in the order the dice
        gave (the table's status says it), each into the taker's HAND zone."""
        d = view.dice
        order = draw_order(FIRST_ROLLER, (d[0], d[1]), (d[2], d[3]))
        row = self.table.take_out(["1z", "2z", "3z", "4z"])
        self._seating_draws += 1  # not the session id: it holds the time of day
        random.Random(f"{self.table.seed}:seating:{self._seating_draws}").shuffle(row)
        if not order.from_odd_end:
            row.reverse()
        for chair in order.takers:
            await self.think()
            self.table.put(row.pop(0), chair, Zone.HAND)

    # ---- the deal --------------------------------------------------------------------------

    async def _deal(self, view: TableView) -> None:
        assert view.ruleset is not None and view.dealer is not None
        swap = view.hand == self.habits.wrong_deal_hand
        ruleset = get_ruleset(view.ruleset)
        self._wall = take_deal(self.table, ruleset, view.dice, view.dealer, swap=swap)
        await self.think()

    # ---- play ------------------------------------------------------------------------------

    async def _play(self, view: TableView) -> None:
        assert view.ruleset is not None and view.dealer is not None
        self._followed = view.moves
        self._hand = view.hand
        play = HandPlay(
            self.table,
            self,
            get_ruleset(view.ruleset),
            view.dealer,
            self._wall,
            style=self.habits.style,
            hand=view.hand or 0,
            sloppy=self.habits.sloppy,
        )
        try:
            await play.play()
        finally:
            if self.keep:
                self.moves += play.moves
                self.slips += play.slips
            if self.ground_truth is not None:
                write_jsonl(self.ground_truth, [*play.moves, *play.slips], append=True)
        self.hands_played += 1

    # ---- what the table says back (the Umpire of hand_play) -----------------------------

    async def declare(self, places: Sequence[int]) -> list[int]:
        """Press these seats' declare buttons and wait for the table's verdicts; returns the
        places whose win it accepted (all of them if the hand ended meanwhile). A press the
        table does not show within `FOLLOW_LIMIT_S` (a stuck button) counts as refused."""
        assert self._runner is not None
        await self._through_faults()
        for place in places:
            self.buttons.press_declare(place)
        self.waiting = f"the table's verdict on the declaration of {seats_words(places)}"
        view, clock = self._runner.view, self._runner.clock
        start = clock.monotonic()
        while (
            self.playing()
            and not all(p in view.declared or p in view.winners for p in places)
            and clock.monotonic() - start < FOLLOW_LIMIT_S  # a press the table never saw
        ):
            view = await self._next_view(until=start + FOLLOW_LIMIT_S)
        while self.playing() and any(p in view.declared for p in places):
            view = await self._next_view()
        # What the table made of the declaration (the tile taken, the win) is followed: the
        # next move waits to be followed in its turn, not passed for one of these.
        self._followed = view.moves
        if not self.playing():
            return list(places)
        return [p for p in places if p in view.winners]

    def playing(self) -> bool:
        """The table still plays this hand (a fault only stops play until it is cleared)."""
        if self._runner is None:
            return False
        view = self._runner.view
        return view.phase is Phase.PLAYING or (
            view.phase is Phase.FAULT and view.hand == self._hand
        )

    async def _through_faults(self) -> None:
        """A fault stopped play: make no move until the technician has cleared it."""
        while (
            self._runner is not None and self._runner.view.phase is Phase.FAULT and self.playing()
        ):
            self.waiting = "the fault to be cleared"
            await self._next_view()

    async def wall_empty(self) -> None:
        """Nobody can draw: wait until the referee ends the hand."""
        self.waiting = "the table to end the hand: no tile left to draw, as they count"
        while self.playing():
            await self._next_view()

    async def stall(self, seconds: float) -> None:
        """Let `seconds` of the table's time pass (its injected clock: virtual in tests)."""
        assert self._runner is not None
        clock = self._runner.clock
        start = clock.monotonic()
        # The injected clock has no event to wait on. The loop's own clock (virtual time)
        # moves only when we sleep on it: in slices of at most a second, so the hand's end is
        # seen, and never less than 10 ms (a remainder of 1e-14 s is lost in its float).
        # Another clock (a test's manual one) moves while we yield.
        on_loop = isinstance(clock, LoopClock)
        while (left := seconds - (clock.monotonic() - start)) > 0 and self.playing():
            slice_s = min(max(left, 0.01), 1.0) if on_loop else 0.0
            await asyncio.sleep(max(self.habits.think_s, slice_s))

    async def pace(self, followed: bool = True) -> None:
        """Between two moves: think, and (`wait_for_referee`, a move the table follows)
        wait until the table's view shows it followed one, for at most `FOLLOW_LIMIT_S` of
        the table's time (what it makes of a move it cannot follow is its own business)."""
        await self.think()
        if self._runner is None:
            return
        await self._through_faults()
        if self.habits.move_s:
            await self.stall(self.habits.move_s)
        view, clock = self._runner.view, self._runner.clock
        start = clock.monotonic()
        if followed and self.habits.wait_for_referee:
            self.waiting = "the table to follow their move"
            while (
                view.moves == self._followed
                and self.playing()
                and clock.monotonic() - start < FOLLOW_LIMIT_S
            ):
                view = await self._next_view(until=start + FOLLOW_LIMIT_S)
        self._followed = view.moves
