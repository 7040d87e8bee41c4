"""The diag target with the daemon stopped (diagnostics' composition root): the MCU opened
directly on its serial device (exclusively: if the daemon holds it, say so) and the panel on
the Pi's pins; or the parts the simulator makes of its table (`controller.sim.daemon_parts`)."""

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from gpiozero.exc import GPIOZeroError

from controller import __version__
from controller.config import TableConfig
from controller.devices.gpio import GpioUnavailable, ensure_gpio
from controller.devices.panel import GpioPanel
from controller.devices.pinout import load_pinout
from controller.diag.bench import LinkBench, PinBench, TileSetFiles
from controller.diag.events import EventFeed
from controller.diag.ports import NobodyAtTheTable, Technician
from controller.diag.status import StatusSources
from controller.diag.target import DiagTarget
from controller.errors import RuntimeFailure
from firmware_bridge.errors import LinkError, PortBusy
from firmware_bridge.link import Link, LinkSettings
from firmware_bridge.port import Port, PortOpener
from firmware_bridge.serial_port import serial_opener

log = logging.getLogger(__name__)
CONNECT_S = 5.0


@dataclass
class DirectParts:
    """What a direct check opens: the MCU's line, the panel (None: none), the tile-set file,
    who carries out prompts, and what to stop afterwards (the simulated table)."""

    opener: PortOpener
    panel: GpioPanel | None
    tileset: Path
    technician: Technician = field(default_factory=NobodyAtTheTable)
    stop: Callable[[], Awaitable[None]] | None = None


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


async def table_parts(config: TableConfig) -> DirectParts:
    """The real table's parts: the MCU on its serial device, the panel on the Pi's pins."""
    opener = serial_opener(config.serial.port, config.serial.baudrate, exclusive=True)
    await _probe(opener, config.serial.port)
    panel: GpioPanel | None = None
    try:
        ensure_gpio()  # quietly: off a Pi one line says why, not a warning per library
        panel = GpioPanel(load_pinout(config.gpio.pinout, config.gpio.pins))
    except (GPIOZeroError, GpioUnavailable) as error:
        log.warning("no GPIO panel: %s", error)
    return DirectParts(opener, panel, config.table.tileset)


@contextlib.asynccontextmanager
async def direct_target(
    config: TableConfig, source: str, parts: DirectParts
) -> AsyncIterator[DiagTarget]:
    """The parts, opened for one diag command and closed after it."""
    panel = parts.panel
    link = Link(parts.opener, LinkSettings(connect_timeout=CONNECT_S))
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
            tileset=parts.tileset,
            status=config_status(config),
            technician=parts.technician,
            feed=feed,
        )
    finally:
        unwatch()
        await link.close()
        if panel is not None:
            panel.close()
        if parts.stop is not None:
            await parts.stop()


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
