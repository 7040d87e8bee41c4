"""Fixtures of the firmware bridge tests: a simulated table (instant machine time) and links.

The table's MCU is either the software MCU or the C firmware's host build (hardware/firmware)
on its pty: the tests that take `sim`, `link` or `hardware_link` run against both."""

import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from firmware_bridge.link import Link, LinkSettings
from firmware_bridge.serial_port import serial_opener
from firmware_bridge.sim.firmware import FirmwareMcu
from firmware_bridge.sim.table import SimulatedTable

FAST = LinkSettings(min_rto=0.01, max_rto=0.2, max_tries=6, connect_timeout=3.0)
PATIENT = LinkSettings(min_rto=0.01, max_rto=0.3, max_tries=8, connect_timeout=5.0)
"""For the firmware's host build: another process behind a pty, which a busy machine may hold
up for longer than FAST's half second of resends (its 1.2 s stay within the 2 s of silence
that drop the link)."""


def settings_for(table: SimulatedTable) -> LinkSettings:
    """FAST for the software MCU in memory, PATIENT for the firmware on its pty."""
    return PATIENT if isinstance(table.mcu, FirmwareMcu) else FAST


MCUS = ["software", "firmware"]
"""The two MCUs a simulated table can have: the software MCU and the C firmware."""


@pytest.fixture(params=MCUS)
def mcu_firmware(request: pytest.FixtureRequest) -> Path | None:
    """The firmware binary the simulated table runs (None: the software MCU)."""
    if request.param == "software":
        return None
    if request.config.getoption("--hardware") is not None:
        pytest.skip("the real MCU of --hardware is on the line: one run is enough")
    binary: Path = request.getfixturevalue("firmware_host")
    return binary


@pytest.fixture
async def sim(mcu_firmware: Path | None) -> AsyncIterator[SimulatedTable]:
    """A powered simulated table, instant machine time, no periodic zone reports."""
    table = SimulatedTable(seed=7, speed=0, inventory_period=None, firmware=mcu_firmware)
    async with table:
        yield table


@pytest.fixture
async def software_sim() -> AsyncIterator[SimulatedTable]:
    """A simulated table with the software MCU (for what only it offers: unplugging the cable,
    a TCP line)."""
    table = SimulatedTable(seed=7, speed=0, inventory_period=None)
    async with table:
        yield table


@pytest.fixture
async def hardware_link(
    request: pytest.FixtureRequest, mcu_firmware: Path | None
) -> AsyncIterator[Link]:
    """A connected link: to the real MCU of `pytest --hardware PORT`, else to a simulated table
    (in memory). Tests using it only say what any table MCU does."""
    port = request.config.getoption("--hardware")
    if port is not None:
        async with Link(serial_opener(port), FAST) as connected:
            yield connected
        return
    table = SimulatedTable(seed=7, speed=0, inventory_period=None, firmware=mcu_firmware)
    async with table, Link(table.opener(), settings_for(table)) as connected:
        yield connected


@pytest.fixture
async def link(sim: SimulatedTable) -> AsyncIterator[Link]:
    """A link to `sim` (in memory, or over the firmware's pty), connected."""
    async with Link(sim.opener(), settings_for(sim)) as connected:
        yield connected


def sim_command(firmware: Path | None, *options: str) -> list[str]:
    """`python -m firmware_bridge.sim --pty --speed 0` with `options`, its MCU the firmware's
    host build if one is given."""
    command = [sys.executable, "-m", "firmware_bridge.sim", "--pty", "--speed", "0", *options]
    return command + (["--firmware", str(firmware)] if firmware is not None else [])


@pytest.fixture
def sim_process(mcu_firmware: Path | None) -> Iterator[str]:
    """`python -m firmware_bridge.sim --pty` in its own process; yields the device path."""
    process = subprocess.Popen(
        sim_command(mcu_firmware, "--seed", "5"),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdout is not None
    path = process.stdout.readline().strip()
    yield path
    process.terminate()
    process.wait(timeout=5)
