"""The hand cycle at work: inputs from the MCU, the panel and commands go through one queue
into the pure cycle, and its effects are carried out on the ports, the result sink and the log.
"""

import asyncio
import logging
from collections import deque
from collections.abc import Callable
from typing import Protocol, cast

from controller.clock import Clock
from controller.errors import TableError
from controller.table import effects as fx
from controller.table import inputs as ev
from controller.table.cycle import HandCycle, TableView
from controller.table.ports import Mcu, McuCommandFailed, Panel, WallTilePlaced, ZoneRead
from controller.table.records import FinishedHand, HandStart, IncidentRecord, Instant

log = logging.getLogger(__name__)
_LEVELS: dict[fx.Level, int] = {
    "info": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
}


class ResultSink(Protocol):
    """Where hand starts, incidents, results and the table status go (the hub link, or a log)."""

    def hand_began(self, start: HandStart) -> None:
        """A hand's deal is decided."""
        ...

    def incident(self, start: HandStart | None, incident: IncidentRecord) -> None:
        """An irregularity was recorded."""
        ...

    async def record(self, hand: FinishedHand) -> str:
        """Store a result durably and return its id; raise TableError or OSError if it cannot.
        The event loop keeps running while the disk writes."""
        ...

    def status(self, view: TableView) -> None:
        """The table's state changed."""
        ...


class BlackBoxStore(Protocol):
    """Where each hand's black box lines go (files beside the outbox)."""

    def write(self, name: str, line: bytes, wall_time: float) -> None:
        """Append one line to the named hand's black box; never raises."""
        ...

    def flush(self) -> None:
        """Hand the lines written so far to the operating system; never raises."""
        ...


class TableRunner:
    """Feeds the hand cycle and carries out what it asks, one input at a time."""

    def __init__(
        self,
        cycle: HandCycle,
        mcu: Mcu,
        panel: Panel,
        clock: Clock,
        sink: ResultSink,
        blackbox: BlackBoxStore | None = None,
    ) -> None:
        self.cycle = cycle
        self.blackbox = blackbox
        self.mcu = mcu
        self.panel = panel
        self.clock = clock
        self.sink = sink
        self.handled = 0
        """Inputs handled so far (tests use it to see that the table has gone quiet)."""
        self.bugs = 0
        """Inputs and effects whose handling raised (each logged with its traceback)."""
        self._inbox: deque[ev.Input] = deque()
        """Inputs not handled yet, oldest first (a plain queue: asyncio's asks for the running
        loop, a system call, each time the runner waits, some 600 times a hand)."""
        self._waiting: asyncio.Future[None] | None = None
        self._fields = cycle.view_fields()
        self._view = TableView(*self._fields)
        self._changed = asyncio.Event()
        self._observers: list[Callable[[TableView], None]] = []
        self._group: asyncio.TaskGroup | None = None
        self._wake: asyncio.TimerHandle | None = None
        mcu.subscribe(self.submit)
        panel.subscribe(self.submit)

    @property
    def view(self) -> TableView:
        """The table as people see it now."""
        return self._view

    def observe(self, callback: Callable[[TableView], None]) -> None:
        """Call `callback` with the new view whenever it changes."""
        self._observers.append(callback)

    def submit(self, event: ev.Input) -> None:
        """Queue an input (any caller on the event loop)."""
        self._inbox.append(event)
        waiting = self._waiting
        if waiting is not None and not waiting.done():
            waiting.set_result(None)

    def now(self) -> Instant:
        """The current instant on the injected clock."""
        return Instant(self.clock.monotonic(), self.clock.wall())

    def tick(self) -> None:
        """Let the cycle see the time now (timeouts, settling zones)."""
        self._process(ev.Tick())

    async def run(self, tick_s: float = 0.25) -> None:
        """Handle inputs until cancelled, ticking every `tick_s` seconds."""
        loop = asyncio.get_running_loop()
        inbox = self._inbox
        async with asyncio.TaskGroup() as group:
            self._group = group
            group.create_task(self._ticks(tick_s), name="table-ticks")
            while True:
                while inbox:
                    self._process(_together(inbox))
                self._waiting = loop.create_future()
                try:
                    await self._waiting
                finally:
                    self._waiting = None

    async def changed(self, within: float) -> bool:
        """Wait up to `within` seconds for the view to change; True if it did."""
        self._changed.clear()
        try:
            async with asyncio.timeout(within):
                await self._changed.wait()
        except TimeoutError:
            return False
        return True

    async def _ticks(self, tick_s: float) -> None:
        while True:
            await asyncio.sleep(tick_s)
            self.submit(ev.Tick())

    def _process(self, event: ev.Input) -> None:
        """Handle one input. A bug in handling it, or in carrying out one of its effects on a
        port, is logged with its traceback and counted; the table goes on with the next (one
        input must not end the daemon, and one failed effect must not skip the others)."""
        try:
            effects = self.cycle.handle(event, self.now())
        except Exception:
            self._bug("handling", event)
            effects = []
        for effect in effects:
            try:
                self._carry_out(effect)
            except Exception:
                self._bug("carrying out", effect)
        self.handled += 1
        if self.blackbox is not None and isinstance(event, ev.Tick):
            self.blackbox.flush()  # black box lines reach the disk at least every tick
        fields = self.cycle.view_fields()
        if fields != self._fields:
            self._fields = fields
            view = self._view = TableView(*fields)
            self._changed.set()
            for observer in [self.sink.status, *self._observers]:
                try:
                    observer(view)
                except Exception:
                    self._bug("showing", view)

    def _bug(self, doing: str, what: object) -> None:
        self.bugs += 1
        log.exception(
            "bug %s %s (bug %d): the table goes on", doing, type(what).__name__, self.bugs
        )

    def _carry_out(self, effect: fx.Effect) -> None:
        match effect:  # the commonest first: nearly every input in play keeps a line
            case fx.KeepInput(name, line):
                if self.blackbox is not None:
                    self.blackbox.write(name, line, self.clock.wall())
            case fx.ShowStatus(pattern):
                self.panel.show_status(pattern)
            case fx.ShowTurn(place, overtime):
                self.panel.show_turn(place, overtime)
            case fx.SeatLight(place, mode):
                self.panel.light_seat(place, mode)
            case fx.Sound(beep):
                self.panel.beep(beep)
            case fx.Announce(level, text):
                log.log(_LEVELS[level], "%s", text)
            case fx.HandBegan(start):
                self.sink.hand_began(start)
            case fx.NoteIncident(start, incident):
                self.sink.incident(start, incident)
            case fx.RecordHand(hand):
                self._record(hand)
            case fx.ReadZones(asked_at):
                if self._group is not None:
                    self._group.create_task(self.mcu.read_zones(asked_at), name="read-zones")
            case fx.WakeAt(monotonic):
                self._wake_at(monotonic)
            case (
                fx.BuildWalls()
                | fx.RaiseWalls()
                | fx.LowerPlatform()
                | fx.RollDice()
                | fx.StopAll()
            ):
                self._move(effect)

    def _wake_at(self, monotonic: float) -> None:
        """Tick at that instant of the table's clock (as the event loop counts from now)."""
        if self._wake is not None:
            self._wake.cancel()
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # driven by hand (a test ticks it): nothing to schedule
            return
        # A microsecond late, so that the tick finds the instant passed whatever the rounding.
        delay = max(0.0, monotonic - self.clock.monotonic()) + 1e-6
        self._wake = loop.call_later(delay, self.submit, ev.Tick())

    def _record(self, hand: FinishedHand) -> None:
        if self._group is None:
            raise RuntimeError("the table runner is not running")
        self._group.create_task(self._store(hand), name="store-result")

    async def _store(self, hand: FinishedHand) -> None:
        try:
            result_id = await self.sink.record(hand)
        except (TableError, OSError) as error:
            self.submit(ev.RecordFailed(str(error)))
        else:
            self.submit(ev.HandRecorded(result_id))

    def _move(self, effect: fx.McuEffect) -> None:
        if self._group is None:
            raise RuntimeError("the table runner is not running")
        self._group.create_task(self._command(effect))

    async def _command(self, effect: fx.McuEffect) -> None:
        try:
            await self._send(effect)
        except McuCommandFailed as error:
            self.submit(ev.CommandFailed(error.command, error.failure, error.reason))

    async def _send(self, effect: fx.McuEffect) -> None:
        match effect:
            case fx.BuildWalls(tiles, per_side, layers, max_s):
                await self.mcu.build_walls(tiles, per_side, layers, max_s)
            case fx.RaiseWalls(max_s):
                await self.mcu.raise_walls(max_s)
            case fx.LowerPlatform(max_s):
                await self.mcu.lower_platform(max_s)
            case fx.RollDice(max_s):
                await self.mcu.roll_dice(max_s)
            case fx.StopAll():
                await self.mcu.stop_all()


def _together(inbox: deque[ev.Input]) -> ev.Input:
    """The next input; zone reads (or wall tiles) queued one after the other come as one."""
    first = inbox.popleft()
    kind = type(first)
    if kind not in (ZoneRead, WallTilePlaced) or not inbox or type(inbox[0]) is not kind:
        return first
    same = [first]
    while inbox and type(inbox[0]) is kind:
        same.append(inbox.popleft())
    if kind is ZoneRead:
        return ev.ZoneReads(tuple(cast(list[ZoneRead], same)))
    return ev.WallTilesPlaced(tuple(cast(list[WallTilePlaced], same)))
