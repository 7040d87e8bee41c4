"""Zone reads that come one after the other (a discard leaves the hand and reaches the river:
two antennas report) are one look at the table for the referee: the runner hands queued reads
to the cycle as one input, and the cycle tells the referee both zones at once."""

import asyncio
import json

from gpiozero.pins.mock import MockFactory

from controller.clock import ManualClock
from controller.devices.mcu import LinkMcu
from controller.devices.panel import GpioPanel
from controller.devices.pinout import load_pinout
from controller.sim.virtual_time import run_virtual
from controller.table import effects as fx
from controller.table import inputs as ev
from controller.table.log_sink import LogSink
from controller.table.ports import Zone, ZoneRead
from controller.table.runner import TableRunner
from firmware_bridge.link import Link
from firmware_bridge.serial_port import serial_opener
from tests.table.driver import Driver


def _discard_reads(driver: Driver) -> tuple[ZoneRead, ZoneRead]:
    """The dealer's HAND without one tile, and its river with it."""
    hand = driver.cycle.hand
    assert hand is not None and hand.dealt is not None
    held = hand.dealt.expected.hands[0]
    thrown = min(held)
    return ZoneRead(0, Zone.HAND, held - {thrown}), ZoneRead(0, Zone.DISCARD, frozenset({thrown}))


def test_reads_that_came_together_reach_the_referee_as_one_look() -> None:
    driver = Driver()
    driver.to_playing()
    out = driver.feed(ev.ZoneReads(_discard_reads(driver)), after=1.0)
    lines = [json.loads(e.line) for e in out if isinstance(e, fx.KeepInput)]
    assert [line["kind"] for line in lines] == ["zones"]
    assert sorted((p, z) for p, z, _ in lines[0]["zones"]) == [(0, "discard"), (0, "hand")]
    assert driver.view().moves == 1 and driver.view().turn == 1, "East threw; South's turn"


def test_the_runner_hands_queued_reads_to_the_cycle_as_one_input(pins: MockFactory) -> None:
    driver = Driver()
    driver.to_playing()
    pinout = load_pinout()
    pins.pin(pinout["estop"]).drive_low()

    async def queued_then_run() -> TableRunner:
        panel = GpioPanel(pinout)
        mcu = LinkMcu(Link(serial_opener("/dev/null")))
        runner = TableRunner(driver.cycle, mcu, panel, ManualClock(start=driver.t + 1), LogSink())
        for read in _discard_reads(driver):
            runner.submit(read)
        task = asyncio.create_task(runner.run(tick_s=60.0))
        await asyncio.sleep(1.0)
        task.cancel()
        panel.close()
        return runner

    runner = run_virtual(queued_then_run)
    assert runner.handled == 1, "two reads, one input"
    assert runner.view.moves == 1 and runner.view.turn == 1
