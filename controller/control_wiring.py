"""The control socket wired into the running daemon (part of the composition root): the
daemon's own MCU link, panel, view and hub link as the diag target, and its feed of events."""

import functools
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from controller.devices.bench import LinkBench, PinBench, TileSetFiles
from controller.devices.panel import GpioPanel
from controller.diag.events import EventFeed
from controller.diag.ports import NobodyAtTheTable, Technician
from controller.diag.server import ControlServer
from controller.diag.target import DiagTarget
from controller.diag_direct import config_status

if TYPE_CHECKING:
    from controller.app import TableApp

FEED_LOGGERS = ("controller.table", "controller.app")


def control_server(app: "TableApp", technician: Technician | None = None) -> ControlServer:
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
    server = ControlServer(Path(config.control.socket), target, FEED_LOGGERS, config.control.idle_s)
    status.control_refused = lambda: server.refused.total()
    return server


def _move_words(view: object) -> str:
    phase = getattr(view, "phase", None)
    hand = getattr(view, "hand", None)
    where = f" (hand {hand})" if hand else ""
    return f"now {phase.value if phase is not None else '?'}{where}"
