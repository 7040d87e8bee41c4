"""Referee benchmark: time per `Referee.handle` on a settled inventory change, and moves per
hand, over hands of random legal play in each ruleset (the property test's players).

    .venv/bin/python bench/referee_bench.py [--hands 30] [--seed 1]

Each hand is played once to record its black box, then replayed through a fresh referee with
every `handle` timed. Baseline in the same run: the zone board's update for the same reads
(the debouncing the hand cycle does on every read before the referee sees it).
"""

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests' scripted players

from controller.table.referee import Inventories, Referee
from controller.table.referee.blackbox import read
from controller.table.zones import ZoneBoard
from tests.table.scripted import Table
from tests.table.test_referee_property import dealt_hands, play_randomly

RULESETS = ("zung-jung", "sichuan", "shanghai")


def percentile(values: list[float], fraction: float) -> float:
    """The value below which `fraction` of the sorted values lie."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def measure(ruleset: str, hands: int, seed: int) -> tuple[list[float], list[float], list[int]]:
    """Per-handle times (µs) on inventory changes, board baseline times (µs), moves per hand."""
    handle_us: list[float] = []
    board_us: list[float] = []
    moves: list[int] = []
    for number in range(hands):
        rng = random.Random(seed * 1000 + number)
        table = Table(ruleset, dealt_hands(ruleset, rng))
        play_randomly(table, rng)
        setup, inputs = read(table.box.lines)
        referee = Referee(setup)
        board = ZoneBoard()
        for event, now in inputs:
            start = time.perf_counter_ns()
            referee.handle(event, now)
            spent = (time.perf_counter_ns() - start) / 1000
            if isinstance(event, Inventories):
                handle_us.append(spent)
                start = time.perf_counter_ns()
                for zone in event.zones:
                    board.update(zone.place, zone.zone, zone.uids, now.monotonic)
                board_us.append((time.perf_counter_ns() - start) / 1000)
        moves.append(len(referee.play.moves))
    return handle_us, board_us, moves


def main() -> None:
    """Print p50/p99 per ruleset."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"{'ruleset':<10} {'reads':>6} {'handle p50':>11} {'p99':>8} "
          f"{'board p50':>10} {'p99':>8} {'moves/hand':>11}")  # fmt: skip
    for ruleset in RULESETS:
        handle_us, board_us, moves = measure(ruleset, args.hands, args.seed)
        print(
            f"{ruleset:<10} {len(handle_us):>6} {percentile(handle_us, 0.5):>9.1f}µs "
            f"{percentile(handle_us, 0.99):>6.1f}µs {percentile(board_us, 0.5):>8.1f}µs "
            f"{percentile(board_us, 0.99):>6.1f}µs {statistics.mean(moves):>11.1f}"
        )


if __name__ == "__main__":
    main()
