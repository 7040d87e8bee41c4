"""The control socket wired into the running daemon (diagnostics' part of the composition
root): the daemon's own MCU link, panel, view and hub link as the diag target, and its feed of
events. It knows the daemon by what it reads of it (`RunningTable`), not by its class."""

import functools
from dataclasses import replace
from pathlib import Path
from typing import Protocol

from controller.config import TableConfig
from controller.devices.mcu import LinkMcu
from controller.devices.panel import GpioPanel
from controller.diag.bench import LinkBench, PinBench, TileSetFiles
from controller.diag.direct import config_status
from controller.diag.events import EventFeed
from controller.diag.ports import NobodyAtTheTable, Technician
from controller.diag.server import ControlServer
from controller.diag.target import DiagTarget
from controller.hub.table_side.hub_link import HubLink
from controller.rules import format_tiles
from controller.table.core import TableView
from controller.table.cycle import HandCycle
from controller.table.hand import HandState
from controller.table.ports import Panel
from controller.table.referee.events import Move
from controller.table.runner import TableRunner
from controller.table.tiles import seat_name

FEED_LOGGERS = ("controller.table", "controller.app")


class TableParts(Protocol):
    """The daemon's panel and tile-set file."""

    @property
    def panel(self) -> Panel:
        """The buttons, LEDs and emergency stop."""

    @property
    def tileset(self) -> Path:
        """The tile-set file the daemon reads."""


class RunningTable(Protocol):
    """What the control socket reads of the running daemon (`controller.app.TableApp`)."""

    @property
    def config(self) -> TableConfig:
        """The configuration it runs with."""

    @property
    def runner(self) -> TableRunner:
        """The table runner: its view and its observers."""

    @property
    def cycle(self) -> HandCycle:
        """The hand cycle: its fault's holds."""

    @property
    def hub(self) -> HubLink | None:
        """The hub link (None: results go to the log)."""

    @property
    def setup_problem(self) -> str:
        """Why the table cannot start ('' when it can)."""

    @property
    def mcu(self) -> LinkMcu:
        """The table MCU behind its port."""

    @property
    def hardware(self) -> TableParts:
        """The parts it runs on."""


def control_server(app: RunningTable, technician: Technician | None = None) -> ControlServer:
    """The control socket of `app` at `[control] socket`."""
    config = app.config
    feed = EventFeed()
    app.runner.observe(_TableLines(app, feed).seen)
    cycle = app.cycle
    status = replace(
        config_status(config),
        view=lambda: app.runner.view,
        holds=lambda: sorted(cycle.fault.holds) if cycle.fault else [],
        hub=app.hub,
        setup_problem=app.setup_problem,
    )
    panel = app.hardware.panel
    target = DiagTarget(
        mode="daemon",
        config=config,
        config_source="the running daemon",
        mcu=LinkBench(app.mcu.link, tag_reads=False),
        panel=PinBench(panel) if isinstance(panel, GpioPanel) else None,
        store=TileSetFiles(),
        tileset=app.hardware.tileset,
        status=status,
        technician=technician or NobodyAtTheTable(),
        feed=feed,
    )
    server = ControlServer(Path(config.control.socket), target, FEED_LOGGERS, config.control.idle_s)
    status.control_refused = lambda: server.refused.total()
    return server


class _TableLines:
    """The table's lines of the feed: each move the referee followed, in words, and each
    change of phase (not every change of the view)."""

    def __init__(self, app: RunningTable, feed: EventFeed) -> None:
        self.app = app
        self.feed = feed
        self.shown = 0
        """Moves of the hand in play already in the feed."""
        self.where: tuple[object, ...] = ()

    def seen(self, view: TableView) -> None:
        where = (view.phase, view.hand, view.fault)
        if where != self.where:
            self.where = where
            self.feed.add("table", _phase_words(view))
        if view.moves < self.shown:
            self.shown = 0  # a new hand
        if view.moves > self.shown:
            moves = _moves(self.app)[self.shown : view.moves]
            self.shown = view.moves
            for move in moves:
                self.feed.add("table", functools.partial(_move_words, move))


def _moves(app: RunningTable) -> tuple[Move, ...]:
    hand = getattr(app.cycle.stage, "hand", None)
    if not isinstance(hand, HandState) or hand.play is None:
        return ()
    return tuple(hand.play.referee.play.moves)


def _move_words(move: Move) -> str:
    source = "" if move.source is None else f" from seat {seat_name(move.source)}"
    return f"seat {seat_name(move.place)}: {move.kind.value} {format_tiles(move.tiles)}{source}"


def _phase_words(view: TableView) -> str:
    where = f" (hand {view.hand})" if view.hand else ""
    fault = f": {view.fault}" if view.fault else ""
    return f"now {view.phase.value.replace('_', ' ')}{where}{fault}"
