"""The link outlives its own bugs: a port driver that raises something no one expected is
logged with its traceback and counted, and the link connects again; its reconnect pauses
follow the jitter it is given; waiting for it wakes on the handshake itself."""

import asyncio
import logging

import pytest

from firmware_bridge.errors import LinkDown, PortUnavailable
from firmware_bridge.link import Link, LinkSettings
from firmware_bridge.port import Port, PortListener
from firmware_bridge.sim.table import SimulatedTable


class BuggyPort:
    """A port whose driver fails on its first write with an error of no known kind."""

    def __init__(self, port: Port) -> None:
        self.port = port
        self.failed = False

    def write(self, data: bytes) -> None:
        if not self.failed:
            self.failed = True
            raise RuntimeError("a bug in the port driver")
        self.port.write(data)

    def close(self) -> None:
        self.port.close()


async def test_a_bug_while_connecting_is_logged_counted_and_survived(
    caplog: pytest.LogCaptureFixture,
) -> None:
    sim = SimulatedTable(seed=3, speed=0, inventory_period=None)
    opened: list[BuggyPort] = []

    async def opener(listener: PortListener) -> Port:
        port = await sim.memory_opener()(listener)
        if opened:
            return port
        opened.append(BuggyPort(port))
        return opened[0]

    async with sim:
        link = Link(opener, LinkSettings(reconnect_min=0.001), jitter=lambda low, high: low)
        await link.start(wait=False)
        try:
            await link.wait_connected(within=5)
            assert link.connected
            assert link.stats().bugs == 1
            bug = next(r for r in caplog.records if r.getMessage().startswith("bug in the"))
            assert bug.levelno == logging.ERROR
            assert bug.exc_info is not None and "a bug in the port driver" in str(bug.exc_info[1])
        finally:
            await link.close()
    with pytest.raises(LinkDown, match="closed"):
        await link.wait_connected(within=1)


async def test_reconnect_pauses_double_up_to_the_cap_within_the_given_jitter() -> None:
    asked: list[tuple[float, float]] = []
    enough = asyncio.Event()

    def jitter(low: float, high: float) -> float:
        asked.append((low, high))
        if len(asked) == 5:
            enough.set()
        return 0.0

    async def nowhere(listener: PortListener) -> Port:
        raise PortUnavailable("/dev/ttyNOTHING: no such device")

    link = Link(nowhere, LinkSettings(reconnect_min=0.1, reconnect_max=1.0), jitter=jitter)
    await link.start(wait=False)
    try:
        async with asyncio.timeout(5):
            await enough.wait()
    finally:
        await link.close()
    assert asked[:5] == [(0.1, 0.2), (0.2, 0.4), (0.4, 0.8), (0.5, 1.0), (0.5, 1.0)]
    assert link.stats().bugs == 0  # a missing device is no bug
