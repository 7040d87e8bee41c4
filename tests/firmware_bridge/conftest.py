"""Fixtures of the firmware bridge tests: a simulated table (instant machine time) and links."""

import subprocess
import sys
from collections.abc import AsyncIterator, Iterator

import pytest

from firmware_bridge.link import Link, LinkSettings
from firmware_bridge.serial_port import serial_opener
from firmware_bridge.sim.table import SimulatedTable

FAST = LinkSettings(min_rto=0.01, max_rto=0.2, max_tries=6, connect_timeout=3.0)


@pytest.fixture
async def sim() -> AsyncIterator[SimulatedTable]:
    """A powered simulated table, instant machine time, no periodic zone reports."""
    table = SimulatedTable(seed=7, speed=0, inventory_period=None)
    async with table:
        yield table


@pytest.fixture
async def hardware_link(request: pytest.FixtureRequest) -> AsyncIterator[Link]:
    """A connected link: to the real MCU of `pytest --hardware PORT`, else to a simulated table
    (in memory). Tests using it only say what any table MCU does."""
    port = request.config.getoption("--hardware")
    if port is not None:
        async with Link(serial_opener(port), FAST) as connected:
            yield connected
        return
    table = SimulatedTable(seed=7, speed=0, inventory_period=None)
    async with table, Link(table.memory_opener(), FAST) as connected:
        yield connected


@pytest.fixture
async def link(sim: SimulatedTable) -> AsyncIterator[Link]:
    """A link to `sim` over an in-memory line, connected."""
    async with Link(sim.memory_opener(), FAST) as connected:
        yield connected


@pytest.fixture
def sim_process() -> Iterator[str]:
    """`python -m firmware_bridge.sim --pty` in its own process; yields the device path."""
    process = subprocess.Popen(
        [sys.executable, "-m", "firmware_bridge.sim", "--pty", "--speed", "0", "--seed", "5"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdout is not None
    path = process.stdout.readline().strip()
    yield path
    process.terminate()
    process.wait(timeout=5)
