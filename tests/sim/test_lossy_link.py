"""A few hands on a line that loses 3 % of the frames and damages 0.5 % of the bytes: lost
MCU events delay decisions until the link has re-read the table's state, and never stop the
table with a motor or reader fault. Runs on loop time (looptime): retransmissions and timeouts
cost no wall time."""

import asyncio
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

from controller.app import Hardware, TableApp
from controller.config import (
    ControlSection,
    HandSection,
    OutboxSection,
    SessionSection,
    TableConfig,
    TableSection,
)
from controller.sim.hardware import SimulatedHardware
from controller.sim.players import Habits, SimulatedPlayers
from controller.systemd import SystemdNotifier
from controller.table.cycle import Phase
from controller.table.log_sink import LogSink
from firmware_bridge.sim.faults import Faults

NOISY = Faults(drop=0.03, corrupt=0.005)


class LoopClock:
    """The event loop's own (virtual, under looptime) time as the daemon's clock."""

    def monotonic(self) -> float:
        """Loop time."""
        return asyncio.get_running_loop().time()

    def wall(self) -> float:
        """Loop time from a fixed epoch origin."""
        return 1_700_000_000.0 + self.monotonic()


async def play_session(tmp_path: Path, hands: int, seed: int) -> tuple[TableApp, LogSink]:
    """A session of `hands` on the noisy simulated table, until it is over or a fault stops it."""
    sim = SimulatedHardware(tmp_path, seed=seed, speed=0, faults=NOISY)
    opener = await sim.start()
    players = SimulatedPlayers(sim.table, sim.buttons, Habits(think_s=0.0))
    services = (("simulated players", players.run),)
    hardware = Hardware(opener, sim.panel(), sim.write_tileset(), services, sim.stop)
    config = TableConfig(
        table=TableSection(ruleset="zung-jung"),
        session=SessionSection(hands=hands),
        hand=HandSection(zone_settle_s=0.1, zone_absence_s=0.1),
        outbox=OutboxSection(path=tmp_path / "outbox.sqlite3"),
        control=ControlSection(socket=tmp_path / "control.sock"),
    )
    sink = LogSink(keep=None)
    app = TableApp(
        config, hardware, clock=LoopClock(), notifier=SystemdNotifier({}), sink=sink, tick_s=0.02
    )
    task = asyncio.create_task(app.run())
    try:
        while app.runner.view.phase not in (Phase.SESSION_OVER, Phase.FAULT):
            await app.runner.changed(600)
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    return app, sink


@pytest.mark.looptime
@pytest.mark.parametrize("seed", [0, 1, 2])
async def test_lost_events_never_stop_the_table_with_a_false_fault(
    tmp_path: Path, pins: MockFactory, seed: int
) -> None:
    app, sink = await play_session(tmp_path, hands=5, seed=seed)
    view = app.runner.view
    assert view.phase is Phase.SESSION_OVER, view.fault
    assert [r.start.hand for r in sink.results] == [1, 2, 3, 4, 5]
    assert all(problems == () for _, problems in app.cycle.wall_checks)
    assert app.mcu.link.stats().event_gaps > 0, "the line did lose events"


@pytest.mark.slow
@pytest.mark.looptime
# 50 hands: about 25 s of CPU; starvable (looptime), so it may wait for other workers' CPU.
@pytest.mark.timeout(300)
async def test_fifty_hands_on_a_noisy_line_play_without_a_fault(
    tmp_path: Path, pins: MockFactory
) -> None:
    app, sink = await play_session(tmp_path, hands=50, seed=4)
    view = app.runner.view
    assert view.phase is Phase.SESSION_OVER, view.fault
    assert len(sink.results) == 50
    stats = app.mcu.link.stats()
    assert stats.event_gaps > 1000 and stats.reconnects == 0
