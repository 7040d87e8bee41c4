"""The composition root: the daemon's services in one TaskGroup.

It picks the implementations of a real table (the MCU on its serial device, the panel on the
Pi's GPIO or none, the hub link or the log; the simulator makes its own parts from its side,
`controller.sim.daemon_parts`, and this module never loads it), starts the configured session
at power-on, and keeps running whatever happens: a typed failure of a service becomes a fault
the technician sees (LED, status, log) and the service restarts; a bug in a service ends the
process (and systemd restarts it). Readiness (once the control socket listens) and watchdog
pings go to systemd from the event loop, so a stuck loop gets the daemon restarted.
"""

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from controller import __version__
from controller.clock import Clock, SystemClock
from controller.config import TableConfig
from controller.devices.gpio import ensure_gpio
from controller.devices.mcu import LinkMcu
from controller.devices.no_panel import NoPanel
from controller.devices.panel import GpioPanel
from controller.devices.pinout import load_pinout
from controller.diag.control_wiring import control_server
from controller.diag.ports import Technician
from controller.disk import Disk, DiskWorker
from controller.errors import TableError
from controller.hub.table_side.hub_link import HubLink
from controller.hub.table_side.runner_control import RunnerControl
from controller.hub.table_side.table_report import HubSink
from controller.hub.table_side.wiring import build_hub_link
from controller.rules import RulesError, Ruleset, get_ruleset
from controller.systemd import SystemdNotifier
from controller.table import inputs as ev
from controller.table.blackbox_files import BlackBoxFiles
from controller.table.cycle import CycleSettings, HandCycle, Phase, TableView
from controller.table.log_sink import LogSink
from controller.table.ports import EmergencyStop, Panel
from controller.table.runner import ResultSink, TableRunner
from controller.table.session import SessionPlan
from controller.table.tiles import TileMap, TileMapError
from firmware_bridge.errors import BridgeError
from firmware_bridge.link import Link, LinkSettings
from firmware_bridge.port import PortOpener
from firmware_bridge.serial_port import serial_opener
from firmware_bridge.tileset import TileSetFileError, read_tileset

log = logging.getLogger(__name__)
Service = Callable[["TableRunner"], Coroutine[Any, Any, None]]
RESTART_MAX_S = 30.0


@dataclass
class Hardware:
    """The parts the daemon runs on: the MCU's line, the panel, the tile-set file, and any
    extra services (the simulated players: the simulator makes these parts from its side, in
    `controller.sim.daemon_parts`)."""

    opener: PortOpener
    panel: Panel
    tileset: Path
    services: tuple[tuple[str, Service], ...] = ()
    shutdown: Callable[[], Awaitable[None]] | None = None
    technician: Technician | None = None
    """Who carries out diag prompts (the simulated table's; None: a person)."""


def load_tiles(path: Path) -> tuple[TileMap | None, str]:
    """The tile-set file as a TileMap, or why it cannot be used."""
    try:
        tileset = read_tileset(path)
        return TileMap.from_names(tileset.name, tileset.tile_of()), ""
    except (TileSetFileError, TileMapError) as error:
        return None, f"the tile-set file cannot be used ({error}): check [table] tileset"


def cycle_settings(config: TableConfig) -> CycleSettings:
    """The hand cycle's timing from [hand]."""
    hand = config.hand
    return CycleSettings(
        build_timeout_s=hand.build_timeout_s,
        settle_s=hand.zone_settle_s,
        absence_s=hand.zone_absence_s,
    )


def headline(view: TableView) -> str:
    """One line for `systemctl status`."""
    if view.fault:
        return f"fault: {view.fault}"
    if view.phase is Phase.SEATING:
        return f"seating: the seating draw of session {view.session}"
    where = f"hand {view.hand} of session {view.session}" if view.hand else "no hand"
    return f"{view.phase.value.replace('_', ' ')}: {where}"


def serial_hardware(config: TableConfig) -> Hardware:
    """The real table: the MCU on its serial device, the panel on the Pi's GPIO (none with
    `[gpio] enabled = false`). GpioUnavailable, in one line, off a Pi."""
    panel: Panel
    if config.gpio.enabled:
        ensure_gpio()
        panel = GpioPanel(load_pinout(config.gpio.pinout, config.gpio.pins))
    else:
        panel = NoPanel()
    return Hardware(
        opener=serial_opener(config.serial.port, config.serial.baudrate),
        panel=panel,
        tileset=config.table.tileset,
    )


class TableApp:
    """The daemon: MCU link, hand cycle, hub link and extra services, supervised."""

    def __init__(
        self,
        config: TableConfig,
        hardware: Hardware,
        *,
        clock: Clock | None = None,
        notifier: SystemdNotifier | None = None,
        sink: ResultSink | None = None,
        wrap_sink: Callable[[ResultSink], ResultSink] | None = None,
        link_settings: LinkSettings | None = None,
        tick_s: float = 0.25,
        restart_s: float = 0.5,
        disk: DiskWorker | None = None,
        files: Disk | None = None,
    ) -> None:
        self.config = config
        self.disk = disk or DiskWorker.single_thread()
        """The one thread every blocking file operation of the daemon runs on."""
        self._owns_disk = disk is None
        self.hardware = hardware
        self.clock = clock or SystemClock()
        self.notifier = notifier or SystemdNotifier()
        self.tick_s = tick_s
        self.restart_s = restart_s
        self.setup_problem = ""
        """Why the table cannot start (the tile-set file is read in `run`, not here)."""
        self.cycle = HandCycle(None, cycle_settings(config))
        settings = link_settings or LinkSettings(reconnect_max=config.serial.reconnect_max_s)
        self.mcu = LinkMcu(Link(hardware.opener, settings))
        margin = config.session.last_hand_margin_minutes * 60.0
        self.control = RunnerControl(self.ruleset, margin, __version__)
        self.hub: HubLink | None = None
        self._wrap_sink = wrap_sink
        self.sink = self._wrapped(sink or self._sink())
        self.blackboxes = BlackBoxFiles(
            config.outbox.path.parent / "blackbox", config.outbox.blackbox_days, self.disk, files
        )
        self.runner = TableRunner(
            self.cycle, self.mcu, hardware.panel, self.clock, self.sink, self.blackboxes
        )
        self.control.attach(self.runner, self.blackboxes)
        self._headline = ""
        self.runner.observe(self._tell_systemd)

    def _tell_systemd(self, view: TableView) -> None:
        line = headline(view)
        if line != self._headline:
            self._headline = line
            self.notifier.status(line)

    def ruleset(self, name: str) -> Ruleset:
        """A ruleset by name, with the venue's house rules laid over it if configured."""
        return get_ruleset(name, self.config.table.ruleset_file)

    def _wrapped(self, sink: ResultSink) -> ResultSink:
        """A watcher sees every report on its way (simulate's tally)."""
        return sink if self._wrap_sink is None else self._wrap_sink(sink)

    def _sink(self) -> ResultSink:
        if not self.config.mqtt.result_key:
            log.warning("no mqtt.result_key: hand results go to the log only, not to a hub")
            return LogSink()
        try:
            self.hub = build_hub_link(self.config, self.control, self.clock, self.disk.executor)
        except TableError as error:
            self.setup_problem = self.setup_problem or f"the hub link cannot start: {error}"
            return LogSink()
        return HubSink(self.hub, __version__)

    async def run(self) -> None:
        """Run every service until cancelled."""
        self.cycle.tiles, problem = load_tiles(self.hardware.tileset)
        self.setup_problem = problem or self.setup_problem
        try:
            await self._open_outbox()
            async with asyncio.TaskGroup() as group:
                group.create_task(self._supervise("table MCU link", self.mcu.run))
                group.create_task(self.runner.run(self.tick_s), name="table")
                if self.hub is not None:
                    group.create_task(self._supervise("hub link", self.hub.run))
                for name, service in self.hardware.services:
                    group.create_task(self._supervise(name, self._bind(service)))
                group.create_task(self._watchdog(), name="watchdog")
                control = control_server(self, self.hardware.technician)
                group.create_task(self._supervise("control socket", control.run))
                self._power_on()
                await control.settled.wait()  # ready means diag can talk to the daemon
                self.notifier.ready(headline(self.runner.view))
                log.info("table %s running", self.config.table.id)
        finally:
            self.notifier.stopping()
            await self._close()

    async def _open_outbox(self) -> None:
        """Open the hub link's outbox on the disk thread (a new boot), before anything is sent.
        An outbox that cannot be opened is a setup problem; results then go to the log."""
        if self.hub is None:
            return
        try:
            await self.disk.call(self.hub.outbox.open)
        except TableError as error:
            self.setup_problem = self.setup_problem or f"the hub link cannot start: {error}"
            self.hub.outbox.close()
            self.hub = None
            self.sink = self._wrapped(LogSink())
            self.runner.sink = self.sink

    def _bind(self, service: Service) -> Callable[[], Coroutine[Any, Any, None]]:
        return lambda: service(self.runner)

    def _power_on(self) -> None:
        if self.setup_problem:
            self.runner.submit(ev.SetupFailed(self.setup_problem))
            return
        if self.hardware.panel.emergency_stop_engaged:
            self.runner.submit(EmergencyStop(engaged=True))
        if not self.config.session.at_power_on:
            return  # the hub starts each session
        try:
            self.runner.submit(
                ev.StartSession(self.configured_session(), self.ruleset(self.config.table.ruleset))
            )
        except RulesError as error:
            self.runner.submit(ev.SetupFailed(f"the ruleset cannot be used: {error}"))

    def configured_session(self) -> SessionPlan:
        """The session of [session], started at power-on."""
        session, now = self.config.session, datetime.fromtimestamp(self.clock.wall(), UTC)
        return SessionPlan(
            id=f"{self.config.table.id}-{now:%Y%m%dT%H%M%S}",
            ruleset=self.config.table.ruleset,
            players=tuple(session.players),
            hands=session.hands,
            rounds=session.rounds,
            deadline_s=session.deadline_minutes * 60.0,
            margin_s=session.last_hand_margin_minutes * 60.0,
            seating_draw=session.seating_draw,
        )

    async def _supervise(self, name: str, start: Callable[[], Coroutine[Any, Any, None]]) -> None:
        """Run a service; a typed failure is reported and the service restarts (bugs escape)."""
        attempt = 0
        while True:
            try:
                await start()
                return
            except (TableError, BridgeError, OSError) as error:
                attempt += 1
                log.error("%s failed: %s", name, error)
                self.runner.submit(ev.ServiceFailed(name, str(error)))
                await asyncio.sleep(min(RESTART_MAX_S, self.restart_s * 2**attempt))

    async def _watchdog(self) -> None:
        interval = self.notifier.watchdog_interval_s
        if interval is None:
            return
        while True:
            self.notifier.watchdog()
            await asyncio.sleep(interval)

    async def _close(self) -> None:
        self.hardware.panel.close()
        await self.blackboxes.close()
        if self.hub is not None:
            self.hub.outbox.close()
        if self._owns_disk:
            self.disk.shutdown()
        if self.hardware.shutdown is not None:
            await self.hardware.shutdown()
