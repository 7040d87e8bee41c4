"""Soak per ruleset: 200 hands on virtual time under the `hostile` profile, sending to a real
mosquitto and a venue recorder that are both restarted during the session. Every hand ends in
a result, the recorder holds each result exactly once (audit ok), every hand's payments sum to
zero, every fault is cleared and the planned faults were all injected, nothing raised
unhandled, and the process's memory is flat (RSS after hand 200 within 5% of after hand 50).

`test_soak_on_a_quiet_line` runs the hostile profile's jam, MCU resets and broker and recorder
restarts on a clean line. `test_soak_hostile` adds the profile's noisy line (3% frame loss,
0.5% byte corruption, RFID misses).
"""

import logging
from collections import Counter
from dataclasses import replace
from pathlib import Path

import msgspec
import pytest
from gpiozero.pins.mock import MockFactory

from controller.sim.demo import FAST, DemoPlan, Pace
from controller.sim.fault_profiles import FaultKind, FaultProfile
from controller.sim.virtual_time import run_virtual
from controller.venue.store import open_store
from devsupport.mosquitto import Broker
from firmware_bridge.sim.faults import Faults
from tests.sim.soak import KEY, RecorderInProcess, SoakRun, soak

HANDS = 200
pytestmark = [
    pytest.mark.broker,
    pytest.mark.slow,
    pytest.mark.starvable,
    pytest.mark.timeout(900),
]
"""A soak plays 200 hands: 1-3 minutes of CPU time each; on virtual time, it is starvable (runs
at a lower CPU priority, tests/conftest.py)."""
RULESETS = ["shanghai", "sichuan", "zung-jung"]
"""Slowest first (the hostile soaks before the quiet ones, too): with several workers the
longest start first."""
QUIET = Faults()
"""No line or reader faults (in place of the profile's noisy line)."""
SOAK_PACE = replace(FAST, hand_budget_s=15.0)
"""Virtual seconds per hand the session may take (a played hand, claims and kongs followed by
the referee, takes a few; fault clearing included): a session that cannot play ends within
CI time."""


HOSTILE_PACE = replace(FAST, hand_budget_s=40.0)
"""On the noisy line a hand takes 15-27 virtual s (lost events are found at the next
heartbeat, the players wait until the table has followed each move, zones are read again)."""


def play_soak(
    tmp_path: Path, broker: Broker, ruleset: str, line: Faults | None, pace: Pace = SOAK_PACE
) -> SoakRun:
    """One soak session against a recorder in process; the recorder is stopped afterwards."""
    recorder = RecorderInProcess(broker, tmp_path)

    async def main() -> SoakRun:
        await recorder.start()
        try:
            plan = DemoPlan(
                ruleset=ruleset,
                hands=HANDS,
                seed=13,
                pace=pace,
                mqtt_url=broker.url,
                key=KEY,
                faults=FaultProfile.HOSTILE,
                line=line,
                hub_restarts=recorder,
                json_results=tmp_path / "results.jsonl",
            )
            return await soak(plan, tmp_path / "table", recorder)
        finally:
            await recorder.stop()

    (tmp_path / "table").mkdir()
    return run_virtual(main)


def check_soak(run: SoakRun, tmp_path: Path) -> str:
    """What every soak must show; returns its figures in a line."""
    outcome = run.outcome
    # An exception behind a stop says more than the stop: asked first.
    assert run.unhandled == []
    assert [tracebacks(record) for record in run.errors] == []
    assert outcome.stopped == ""
    assert outcome.problems == ()
    assert len(outcome.last.results) == HANDS
    assert outcome.last.hub is not None and outcome.last.hub.acked >= HANDS

    kinds = {planned.injection.kind for planned in outcome.injected}
    assert kinds == set(FaultKind)
    assert all(planned.done for planned in outcome.injected)
    assert outcome.cleared, "the injected jams must show as faults"
    assert all(record.cleared for record in outcome.cleared), outcome.cleared

    with open_store(str(tmp_path / "hub.sqlite3")) as store:
        stored = list(store.results())
    hands = [msgspec.json.decode(r.payload)["result"] for r in stored]
    assert len(stored) == HANDS
    assert len({(h["session"], h["hand"]) for h in hands}) == HANDS
    # A wall commitment travels with the events, which a broker restart may drop: such a hand
    # is "unverified"; a revealed wall that contradicts its commitment never passes.
    audits = [r.audit for r in stored]
    assert "mismatch" not in audits and audits.count("ok") >= HANDS - 8, audits
    assert all(sum(h["payments"]) == 0 for h in hands)
    lines = (tmp_path / "results.jsonl").read_bytes().splitlines()
    assert sorted(lines) == sorted(r.payload for r in stored)

    injected = Counter(planned.injection.kind.value for planned in outcome.injected)
    return (
        f"{HANDS} hands, {sum(injected.values())} faults injected ({dict(injected)}), "
        f"{len(outcome.cleared)} faults seen, all cleared by the technician, "
        f"{len(stored)} results recorded once each ({audits.count('ok')} audited ok)"
    )


def tracebacks(record: logging.LogRecord) -> str:
    """A log record with its traceback, as the log would show it."""
    return logging.Formatter("%(levelname)s %(name)s: %(message)s").format(record)


def memory_stays_flat(run: SoakRun) -> str:
    """RSS after the last hand within 5% of RSS after hand 50; returns the figures."""
    grown = run.rss_after[HANDS] / run.rss_after[50] - 1
    assert grown <= 0.05, f"RSS grew {grown:.1%} from hand 50 to hand {HANDS}"
    return f"RSS {run.rss_after[50] / 2**20:.1f} MiB after hand 50, {grown:+.1%} by {HANDS}"


@pytest.mark.parametrize("ruleset", RULESETS)
def test_soak_hostile(tmp_path: Path, broker: Broker, pins: MockFactory, ruleset: str) -> None:
    run = play_soak(tmp_path, broker, ruleset, None, HOSTILE_PACE)
    figures = check_soak(run, tmp_path)
    print(f"{ruleset} on the hostile line: {figures}; {memory_stays_flat(run)}")


@pytest.mark.parametrize("ruleset", RULESETS)
def test_soak_on_a_quiet_line(
    tmp_path: Path, broker: Broker, pins: MockFactory, ruleset: str
) -> None:
    run = play_soak(tmp_path, broker, ruleset, QUIET)
    figures = check_soak(run, tmp_path)
    print(f"{ruleset} on a quiet line: {figures}; {memory_stays_flat(run)}")
