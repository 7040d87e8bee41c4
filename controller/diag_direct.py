"""The diag target with the daemon stopped (part of the composition root): the MCU opened
directly on its serial device (exclusively: if the daemon holds it, say so), the panel on the
Pi's pins, or the whole simulated table in this process."""

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

from gpiozero.exc import GPIOZeroError

from controller import __version__
from controller.config import TableConfig
from controller.devices.bench import LinkBench, PinBench, TileSetFiles
from controller.devices.gpio import GpioUnavailable, ensure_gpio
from controller.devices.panel import GpioPanel
from controller.devices.pinout import load_pinout
from controller.diag.events import EventFeed
from controller.diag.ports import NobodyAtTheTable, Technician
from controller.diag.status import StatusSources
from controller.diag.target import DiagTarget
from controller.errors import RuntimeFailure
from controller.sim.hardware import SimulatedHardware
from controller.sim.technician import SimTechnician
from firmware_bridge.errors import LinkError, PortBusy
from firmware_bridge.link import Link, LinkSettings
from firmware_bridge.port import Port, PortOpener
from firmware_bridge.serial_port import serial_opener
from firmware_bridge.sim.faults import Faults

log = logging.getLogger(__name__)
CONNECT_S = 5.0


@dataclass(frozen=True)
class SimBench:
    """Diagnose the simulated table (in this process) instead of real hardware."""

    seed: int = 0
    faults: Faults = field(default_factory=Faults)
    stuck: tuple[str, ...] = ()


class _Probe:
    def data_received(self, data: bytes) -> None:
        """Nothing: the probe only opens the port."""

    def connection_lost(self, exc: Exception | None) -> None:
        """Nothing."""


async def _probe(opener: PortOpener, url: str) -> None:
    """Open and close the port once, so a busy port is named before any handshake."""
    try:
        port: Port = await opener(_Probe())
    except PortBusy:
        raise RuntimeFailure(
            f"{url} is busy: the table daemon holds it; while it runs, diag talks to it "
            "through its control socket (is [control] socket, or --socket, right?)"
        ) from None
    except LinkError as error:  # not there: the status says so, the link keeps trying
        log.warning("cannot open the table MCU: %s", error)
        return
    port.close()


@contextlib.asynccontextmanager
async def direct_target(
    config: TableConfig, source: str, sim: SimBench | None, scratch: Path
) -> AsyncIterator[DiagTarget]:
    """The hardware, opened for one diag command and closed after it."""
    hardware: SimulatedHardware | None = None
    technician: Technician = NobodyAtTheTable()
    panel: GpioPanel | None = None
    if sim is not None:
        pinout = load_pinout(config.gpio.pinout, config.gpio.pins)
        hardware = SimulatedHardware(
            scratch, seed=sim.seed, speed=0.0, faults=sim.faults, pinout=pinout
        )
        opener = await hardware.start()
        panel = hardware.panel()
        for button in sim.stuck:
            hardware.buttons.stick(button)
        technician = SimTechnician(hardware.table, hardware.buttons)
        tileset = hardware.write_tileset()
    else:
        opener = serial_opener(config.serial.port, config.serial.baudrate, exclusive=True)
        await _probe(opener, config.serial.port)
        try:
            ensure_gpio()  # quietly: off a Pi one line says why, not a warning per library
            panel = GpioPanel(load_pinout(config.gpio.pinout, config.gpio.pins))
        except (GPIOZeroError, GpioUnavailable) as error:
            log.warning("no GPIO panel: %s", error)
        tileset = config.table.tileset
    link = Link(opener, LinkSettings(connect_timeout=CONNECT_S))
    feed = EventFeed()
    bench = LinkBench(link)
    unwatch = bench.watch(lambda text: feed.add("mcu", text))
    try:
        with contextlib.suppress(LinkError):
            await link.start()
        await asyncio.sleep(0)  # let the watcher take what the handshake brought
        yield DiagTarget(
            mode="direct",
            config=config,
            config_source=source,
            mcu=bench,
            panel=PinBench(panel) if panel is not None else None,
            store=TileSetFiles(),
            tileset=tileset,
            status=config_status(config),
            technician=technician,
            feed=feed,
        )
    finally:
        unwatch()
        await link.close()
        if panel is not None:
            panel.close()
        if hardware is not None:
            await hardware.stop()


def config_status(config: TableConfig) -> StatusSources:
    """What the status tells from the configuration alone (a direct check has no more; the
    running daemon adds its view, holds and hub link)."""
    return StatusSources(
        table=config.table.id,
        daemon_version=__version__,
        ruleset=config.table.ruleset,
        ruleset_file=config.table.ruleset_file,
        started=time.monotonic(),
        now=time.monotonic,
        hub_configured=bool(config.mqtt.result_key),
    )
