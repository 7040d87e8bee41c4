"""Simulated-session benchmark: what a `simulate --fast` hand costs, per ruleset.

    .venv/bin/python bench/sim_bench.py [--hands 200] [--baseline-hands 20] [--faults none]

For each ruleset, one session of --hands hands on the virtual-time loop (`simulate --fast`:
controller/sim/virtual_time.py), and as the baseline in the same run one session of
--baseline-hands hands of the same plan on asyncio's ordinary loop (the table, the players
and the daemon waiting in real time, as `--fast` did before). Each session runs in its own
process so that its peak RSS is its own. Figures: hands/s (wall), CPU seconds per hand
(user+system, all threads) and hands per CPU second (hands/s on one free core), wall/CPU
ratio, peak RSS; then hands/s virtual vs ordinary, and for zung-jung the goal it must meet
(20 hands per CPU s).
The wall/CPU ratio counts time the process waited for a CPU too: read it beside the load
average printed at the top (the goal, within 1.3x, is for an otherwise idle core).
"""

import argparse
import asyncio
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RULESETS = ("zung-jung", "sichuan", "shanghai")
GOAL_PER_CPU_S = {"zung-jung": 20.0}
"""Hands per CPU second a `--fast` session must reach (on one core)."""


def one_session(ruleset: str, hands: int, virtual: bool, faults: str) -> dict[str, float]:
    """Play one session in this process and measure it."""
    import logging

    from gpiozero import Device
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    from controller.sim.demo import DemoPlan, DemoSession
    from controller.sim.fault_profiles import FaultProfile
    from controller.sim.virtual_time import run_virtual

    logging.disable(logging.CRITICAL)
    Device.pin_factory = MockFactory(pin_class=MockPWMPin)
    plan = DemoPlan(ruleset=ruleset, hands=hands, faults=FaultProfile(faults))
    with tempfile.TemporaryDirectory(prefix="sim-bench-") as tmp:
        wall, cpu = time.perf_counter(), time.process_time()
        session = DemoSession(plan, Path(tmp))
        outcome = run_virtual(session.run) if virtual else asyncio.run(session.run())
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    played = len(outcome.last.results)
    return {
        "hands": played,
        "wall_s": wall,
        "cpu_s": cpu,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "stopped": bool(outcome.stopped),
    }


def measure(ruleset: str, hands: int, virtual: bool, faults: str) -> dict[str, float]:
    """One session in a child process."""
    command = [sys.executable, __file__, "--one", ruleset, "--hands", str(hands)]
    command += ["--faults", faults] + (["--virtual"] if virtual else [])
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run(command, cwd=root, capture_output=True, text=True, check=True)
    figures: dict[str, float] = json.loads(done.stdout.splitlines()[-1])
    return figures


def row(name: str, f: dict[str, float]) -> str:
    """One line of figures."""
    hands = max(f["hands"], 1)
    return (
        f"  {name:<22} {f['hands']:>5.0f} hands  {f['hands'] / f['wall_s']:>7.1f} hands/s  "
        f"{f['cpu_s'] / hands * 1000:>7.1f} ms CPU/hand ({hands / f['cpu_s']:>5.1f} per CPU s)  "
        f"wall/CPU {f['wall_s'] / f['cpu_s']:>5.2f}"
        f"  peak RSS {f['peak_rss_mb']:>6.1f} MB" + ("  (stopped early)" if f["stopped"] else "")
    )


def main() -> None:
    """Run the benchmark (or, with --one, one measured session)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=200)
    parser.add_argument("--baseline-hands", type=int, default=20)
    parser.add_argument("--faults", default="none", choices=("none", "noisy", "hostile"))
    parser.add_argument("--one", help=argparse.SUPPRESS)
    parser.add_argument("--virtual", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one_session(args.one, args.hands, args.virtual, args.faults)))
        return
    load = os.getloadavg()
    print(f"simulated sessions, faults {args.faults}; {os.cpu_count()} CPUs, load {load[0]:.2f}")
    for ruleset in RULESETS:
        virtual = measure(ruleset, args.hands, True, args.faults)
        ordinary = measure(ruleset, args.baseline_hands, False, args.faults)
        print(ruleset)
        print(row("virtual time (--fast)", virtual))
        print(row("ordinary loop (before)", ordinary))
        speedup = (virtual["hands"] / virtual["wall_s"]) / (ordinary["hands"] / ordinary["wall_s"])
        print(f"  hands/s virtual / ordinary: {speedup:.1f}x")
        goal = GOAL_PER_CPU_S.get(ruleset)
        if goal is not None:
            per_cpu = max(virtual["hands"], 1) / virtual["cpu_s"]
            verdict = "met" if per_cpu >= goal else "not met"
            print(f"  goal: {goal:g} hands per CPU s on virtual time: {verdict} ({per_cpu:.1f})")


if __name__ == "__main__":
    main()
