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
from controller.table.cycle import HandCycle
from controller.table.ports import Panel
from controller.table.runner import TableRunner

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
    app.runner.observe(lambda view: feed.add("table", functools.partial(_move_words, view)))
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
        mcu=LinkBench(app.mcu.link),
        panel=PinBench(panel) if isinstance(panel, GpioPanel) else None,
        store=TileSetFiles(),
        tileset=app.hardware.tileset,
        status=status,
        technician=technician or NobodyAtTheTable(),
        feed=feed,
    )
    server = ControlServer(Path(config.control.socket), target, feed_loggers=FEED_LOGGERS)
    status.control_refused = lambda: server.refused.total()
    return server


def _move_words(view: object) -> str:
    phase = getattr(view, "phase", None)
    hand = getattr(view, "hand", None)
    where = f" (hand {hand})" if hand else ""
    return f"now {phase.value if phase is not None else '?'}{where}"
