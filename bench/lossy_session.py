"""A session on a noisy line: `python bench/lossy_session.py [--hands 50] [--seed 0]`.

The daemon, the simulated table (3 % of frames lost, 0.5 % of bytes damaged) and the players
run on loop time (looptime), so the session costs only its CPU time. Prints hands played,
faults (each acknowledged with the dice button 5 s later, as a technician would, so the session
goes on), event gaps and the wall time. The players pause `--think` seconds between moves (on
loop time this costs no wall time).
"""

import argparse
import asyncio
import logging
import sys
import tempfile
import time
from pathlib import Path

import looptime
from gpiozero import Device
from gpiozero.pins.mock import MockFactory, MockPWMPin

from controller.app import Hardware, TableApp
from controller.config import (
    HandSection,
    OutboxSection,
    SessionSection,
    TableConfig,
    TableSection,
)
from controller.sim.hardware import SimulatedHardware
from controller.sim.players import Habits, SimulatedPlayers
from controller.systemd import SystemdNotifier
from controller.table.cycle import Phase, TableView
from controller.table.log_sink import LogSink
from controller.table.ports import McuEvent, McuEventsLost
from firmware_bridge.sim.faults import Faults


class LoopClock:
    """The event loop's (virtual) time as the daemon's clock."""

    def monotonic(self) -> float:
        """Loop time."""
        return asyncio.get_running_loop().time()

    def wall(self) -> float:
        """Loop time from a fixed epoch origin."""
        return 1_700_000_000.0 + self.monotonic()


async def session(
    hands: int, seed: int, faults: Faults, scratch: Path, think_s: float = 0.0
) -> None:
    """Play the session and print its figures."""
    Device.pin_factory = MockFactory(pin_class=MockPWMPin)
    sim = SimulatedHardware(scratch, seed=seed, speed=0, faults=faults)
    opener = await sim.start()
    players = SimulatedPlayers(sim.table, sim.buttons, Habits(think_s=think_s))
    hardware = Hardware(
        opener, sim.panel(), sim.write_tileset(), (("simulated players", players.run),), sim.stop
    )
    config = TableConfig(
        table=TableSection(ruleset="zung-jung"),
        session=SessionSection(hands=hands),
        hand=HandSection(zone_settle_s=0.1, zone_absence_s=0.1),
        outbox=OutboxSection(path=scratch / "outbox.sqlite3"),
    )
    sink = LogSink()
    app = TableApp(
        config, hardware, clock=LoopClock(), notifier=SystemdNotifier({}), sink=sink, tick_s=0.02
    )
    faults_seen: list[str] = []
    last = [Phase.IDLE]

    def on_view(view: TableView) -> None:
        fresh = view.phase is Phase.FAULT and last[0] is not Phase.FAULT
        last[0] = view.phase
        if fresh and len(faults_seen) < 20:
            faults_seen.append(f"hand {view.hand}: {view.fault}")
            asyncio.get_running_loop().call_later(5.0, sim.buttons.press_dice)

    app.runner.observe(on_view)
    missed = [0]

    def count_lost(event: McuEvent) -> None:
        if isinstance(event, McuEventsLost):
            missed[0] += event.missed

    app.mcu.subscribe(count_lost)
    started = time.perf_counter()
    task = asyncio.create_task(app.run())
    with_limit = asyncio.timeout(120.0 * hands)
    try:
        async with with_limit:
            while app.runner.view.phase is not Phase.SESSION_OVER:
                await app.runner.changed(60)
    except TimeoutError:
        faults_seen.append(f"the session did not end: {app.runner.view.fault}")
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    stats = app.mcu.link.stats()
    print(f"hands played {sink.recorded} of {hands}, faults {len(faults_seen)}")
    print(f"events lost {missed[0]} in {stats.event_gaps} gaps, recovered by re-reading the state")
    print(f"retransmits {stats.retransmits}, ", end="")
    print(f"reconnects {stats.reconnects}, damaged frames {stats.crc_errors + stats.frame_errors}")
    print(f"wall time {time.perf_counter() - started:.1f} s for {LoopClock().monotonic():.0f} s")
    for fault in faults_seen:
        print(f"  fault: {fault}")


def main() -> int:
    """Entry point."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--drop", type=float, default=0.03)
    parser.add_argument("--corrupt", type=float, default=0.005)
    parser.add_argument(
        "--think",
        type=float,
        default=0.0,
        help="players' pause between moves (0)",
    )
    parser.add_argument("--debug", action="store_true", help="log the link at INFO")
    args = parser.parse_args()
    logging.basicConfig(level=logging.CRITICAL)
    if args.debug:
        logging.getLogger("firmware_bridge.link").setLevel(logging.INFO)
        logging.getLogger().setLevel(logging.INFO)
    faults = Faults(drop=args.drop, corrupt=args.corrupt)
    loop = looptime.new_event_loop(start=0)
    with tempfile.TemporaryDirectory() as scratch:
        loop.run_until_complete(session(args.hands, args.seed, faults, Path(scratch), args.think))
    return 0


if __name__ == "__main__":
    sys.exit(main())
