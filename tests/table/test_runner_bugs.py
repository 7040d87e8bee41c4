"""A bug while the runner handles one input (here a panel driver that raises something no one
expected) is logged with its traceback and counted; the table goes on with the next input and
the effects after the failed one, rather than the daemon ending."""

import asyncio
import contextlib
import logging

import pytest

from controller.clock import ManualClock
from controller.devices.mcu import LinkMcu
from controller.devices.no_panel import NoPanel
from controller.rules import get_ruleset
from controller.table import inputs as ev
from controller.table.cycle import HandCycle, Phase
from controller.table.log_sink import LogSink
from controller.table.ports import Beep, McuOnline, StatusPattern
from controller.table.runner import TableRunner
from controller.table.session import SessionPlan
from firmware_bridge.link import Link
from firmware_bridge.serial_port import serial_opener
from tests.table.helpers import tile_map

WMC = get_ruleset("zung-jung")


class BuggyPanel(NoPanel):
    """A panel whose status light driver fails once with an error of no known kind."""

    def __init__(self) -> None:
        self.shown: list[StatusPattern] = []
        self.beeps: list[Beep] = []
        self.failed = False

    def show_status(self, pattern: StatusPattern) -> None:
        if not self.failed:
            self.failed = True
            raise RuntimeError("a bug in the status light driver")
        self.shown.append(pattern)

    def beep(self, sound: Beep) -> None:
        self.beeps.append(sound)


async def test_a_bug_in_one_input_is_logged_counted_and_the_table_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    panel = BuggyPanel()
    mcu = LinkMcu(Link(serial_opener("/dev/null")))  # never opened: every movement fails
    runner = TableRunner(HandCycle(tile_map(WMC)), mcu, panel, ManualClock(), LogSink())
    task = asyncio.create_task(runner.run(tick_s=3600))
    try:
        runner.submit(McuOnline())
        session = SessionPlan("s-1", WMC.name, ("ann", "bo", "cy", "di"), 1, seating_draw=False)
        runner.submit(ev.StartSession(session, WMC))
        while runner.view.phase is not Phase.FAULT:  # the build cannot be sent: a fault
            assert await runner.changed(5), runner.view
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    assert runner.bugs == 1
    bug = next(r for r in caplog.records if r.getMessage().startswith("bug carrying out"))
    assert bug.levelno == logging.ERROR and bug.exc_info is not None
    assert "ShowStatus" in bug.getMessage()
    assert panel.shown[-1] is StatusPattern.FAULT  # later inputs were shown
    assert Beep.ALARM in panel.beeps
