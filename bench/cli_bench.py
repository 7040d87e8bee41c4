"""Cold start of the `mahjong-table` command against a bare Python start from the same venv.

    .venv/bin/python bench/cli_bench.py [--runs N]

Prints the median wall time of `python -c pass` (the baseline), `mahjong-table --version` and
`mahjong-table rules score ...`, each as absolute ms and as a ratio to the baseline; the goals
are 3x and 6x. All three run from the interpreter this script runs under, in one run.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

SCORE = ["rules", "score", "--ruleset", "zung-jung", "123m345m567m555z99m", "--win", "self-draw"]
GOALS = {"--version": 3.0, "rules score": 6.0}


def _console_script() -> list[str]:
    """The installed `mahjong-table` beside this interpreter (else `python -m controller`)."""
    script = Path(sys.executable).parent / "mahjong-table"
    if script.exists():
        return [str(script)]
    found = shutil.which("mahjong-table")
    return [found] if found else [sys.executable, "-m", "controller"]


def _median_ms(command: list[str], runs: int) -> float:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "0"}
    subprocess.run(command, stdout=subprocess.DEVNULL, check=True, env=env)  # warm the caches
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, stdout=subprocess.DEVNULL, check=True, env=env)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main() -> None:
    """Measure and print the table of figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21, help="runs per command (21)")
    runs = parser.parse_args().runs
    cli = _console_script()
    base = _median_ms([sys.executable, "-c", "pass"], runs)
    rows = [
        ("python -c pass", base, None),
        ("--version", _median_ms([*cli, "--version"], runs), GOALS["--version"]),
        ("rules score", _median_ms([*cli, *SCORE], runs), GOALS["rules score"]),
    ]
    print(f"cold start, median of {runs} runs, {' '.join(cli)}")
    print(f"{'command':<16} {'ms':>8} {'x baseline':>11} {'goal':>6}")
    for name, ms, goal in rows:
        goal_text = f"{goal:.0f}x" if goal else ""
        print(f"{name:<16} {ms:8.1f} {ms / base:10.2f}x {goal_text:>6}")


if __name__ == "__main__":
    main()
