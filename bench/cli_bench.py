"""Cold start of the `mahjong-table` command against a bare Python start from the same venv.

    .venv/bin/python bench/cli_bench.py [--runs N]

Prints the median wall time of `python -c pass` (the baseline), `mahjong-table --version`,
`mahjong-table rules score ...`, `mahjong-table diag --help` and `mahjong-table diag status`
(asking a simulated table's daemon, started for the bench, over its control socket), each as
absolute ms and as a ratio to the baseline, with the spread of the runs (the middle half, as
ratios to the baseline's median); the goals are 3x, 3x, 4x and 4x. All run from the
interpreter this script runs under, in one run.
"""

import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

SCORE = ["rules", "score", "--ruleset", "zung-jung", "123m345m567m555z99m", "--win", "self-draw"]
GOALS = {"--version": 3.0, "rules score": 3.0, "diag --help": 4.0, "diag status": 4.0}


def _console_script() -> list[str]:
    """The installed `mahjong-table` beside this interpreter (else `python -m controller`)."""
    script = Path(sys.executable).parent / "mahjong-table"
    if script.exists():
        return [str(script)]
    found = shutil.which("mahjong-table")
    return [found] if found else [sys.executable, "-m", "controller"]


def _times_ms(commands: list[list[str]], runs: int) -> list[list[float]]:
    """Each command's wall times, sorted; the commands take turns, so a busy moment of the
    machine weighs on all of them alike."""
    for command in commands:  # warm the file cache and write the .pyc files
        if subprocess.run(command, stdout=subprocess.DEVNULL).returncode > 1:  # 1: a problem
            raise SystemExit(f"{' '.join(command)} failed")
    times: list[list[float]] = [[] for _ in commands]
    for _ in range(runs):
        for command, seen in zip(commands, times, strict=True):
            start = time.perf_counter()
            subprocess.run(command, stdout=subprocess.DEVNULL)
            seen.append((time.perf_counter() - start) * 1000)
    return [sorted(seen) for seen in times]


@contextmanager
def _daemon(cli: list[str]) -> Iterator[list[str]]:
    """A simulated table's daemon; yields the `diag status` arguments that ask it."""
    with tempfile.TemporaryDirectory(prefix="mahjong-cli-bench-") as scratch:
        config, sock = Path(scratch) / "table.toml", Path(scratch) / "control.sock"
        config.write_text(
            f'[outbox]\npath = "{scratch}/outbox.sqlite3"\n[control]\nsocket = "{sock}"\n'
        )
        command = [*cli, "run", "--config", str(config), "--sim", "--sim-think", "600"]
        env = {**os.environ, "MAHJONG_TABLE_RUN_DIR": scratch}
        daemon = subprocess.Popen(command, stderr=subprocess.PIPE, text=True, env=env)
        assert daemon.stderr is not None
        for line in daemon.stderr:  # the daemon says when its socket listens
            if f"control socket {sock}" in line:
                break
        try:
            yield ["diag", "status", "--config", str(config)]
        finally:
            daemon.send_signal(signal.SIGTERM)
            daemon.communicate(timeout=30)


def main() -> None:
    """Measure and print the table of figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21, help="runs per command (21)")
    runs = parser.parse_args().runs
    # As installed, every module is compiled (pip compiles at install): the warm-up run writes
    # the .pyc files, which PYTHONDONTWRITEBYTECODE would forbid (each run compiling again).
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    cli = _console_script()
    with _daemon(cli) as status:
        times = _times_ms(
            [
                [sys.executable, "-c", "pass"],
                [*cli, "--version"],
                [*cli, *SCORE],
                [*cli, "diag", "--help"],
                [*cli, *status],
            ],
            runs,
        )
    names = ["python -c pass", "--version", "rules score", "diag --help", "diag status"]
    base = statistics.median(times[0])
    print(f"cold start, median of {runs} runs, {' '.join(cli)}")
    print(f"{'command':<16} {'ms':>8} {'x baseline':>11} {'middle half':>14} {'goal':>6}")
    for name, seen in zip(names, times, strict=True):
        median = statistics.median(seen)
        low, high = seen[len(seen) // 4] / base, seen[(3 * len(seen)) // 4] / base
        goal = GOALS.get(name)
        goal_text = f"{goal:.0f}x" if goal else ""
        spread = f"{low:.2f}-{high:.2f}x"
        print(f"{name:<16} {median:8.1f} {median / base:10.2f}x {spread:>14} {goal_text:>6}")


if __name__ == "__main__":
    main()
