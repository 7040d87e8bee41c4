"""Rules engine benchmark: win check and scoring against peer libraries, on the same hands.

    .venv/bin/python bench/rules_bench.py [--hands 3000] [--seed 7] [--repeat 3]

Peers (the `bench` extra): `mahjong` (riichi: Agari.is_agari, HandCalculator) and, if it
is installed, PyMahjongGB (Chinese Official fan calculator, C++). Different rules, comparable
work: a full score of every arrangement. Each figure is the best of --repeat runs.
"""

import argparse
import contextlib
import random
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence

from controller.rules import (
    RULESET_NAMES,
    Form,
    Win,
    arrangements,
    format_tiles,
    get_ruleset,
    is_win,
)
from controller.rules.shapes import count_tiles

Hand = list[int]


def winning_hand(rng: random.Random) -> Hand:
    """Four random sets (half sequences, half triplets) and a pair; the pair's tile wins."""
    while True:
        tiles: Hand = []
        for _ in range(4):
            if rng.random() < 0.5:
                low = 9 * rng.randrange(3) + rng.randrange(7)
                tiles += [low, low + 1, low + 2]
            else:
                tiles += [rng.randrange(34)] * 3
        pair = rng.randrange(34)
        tiles += [pair, pair]
        if max(Counter(tiles).values()) <= 4:
            return tiles


def random_hand(rng: random.Random) -> Hand:
    """Fourteen tiles drawn from a shuffled 136-tile set (rarely a win)."""
    wall = [kind for kind in range(34) for _ in range(4)]
    return rng.sample(wall, 14)


def best_time(run: Callable[[], object], repeat: int) -> float:
    """The best wall time of `repeat` runs, in seconds."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


def to_136(tiles: Sequence[int]) -> list[int]:
    """Physical-tile numbers (kind * 4 + copy) as the `mahjong` library wants them."""
    used: Counter[int] = Counter()
    result = []
    for kind in tiles:
        result.append(kind * 4 + used[kind])
        used[kind] += 1
    return result


GB_NAMES = [f"W{n}" for n in range(1, 10)] + [f"B{n}" for n in range(1, 10)]
GB_NAMES += [f"T{n}" for n in range(1, 10)] + ["F1", "F2", "F3", "F4", "J1", "J2", "J3"]


def peers(wins: list[Hand]) -> dict[str, Callable[[], object]]:
    """Runnable peer scorers over the same winning hands (those that are installed)."""
    runs: dict[str, Callable[[], object]] = {}
    try:
        from mahjong.hand_calculating.hand import HandCalculator
    except ImportError:
        return runs
    calculator = HandCalculator()
    physical = [(to_136(hand), to_136(hand)[-1]) for hand in wins]

    def hc_run() -> None:
        for tiles, tile in physical:
            calculator.estimate_hand_value(tiles, tile)

    runs["mahjong HandCalculator"] = hc_run
    try:
        import MahjongGB
    except ImportError:
        return runs
    gb = [(tuple(GB_NAMES[t] for t in hand[:-1]), GB_NAMES[hand[-1]]) for hand in wins]

    def gb_run() -> None:
        for hand, tile in gb:
            with contextlib.suppress(TypeError, ValueError):  # not a GB win: still worked out
                MahjongGB.MahjongFanCalculator((), hand, tile, 0, False, False, False, False, 0, 0)

    runs["PyMahjongGB fan calculator (C++)"] = gb_run
    return runs


def import_cost() -> tuple[float, float]:
    """Import time (ms) and memory (MiB) of controller.rules with zung-jung loaded.

    Measured in a fresh interpreter after `import controller` (whose version lookup is not
    the rules engine's cost); memory is what tracemalloc saw allocated, in a second run.
    """
    load = "import controller.rules as r; r.get_ruleset('zung-jung')"
    timing = f"import controller, time; t = time.perf_counter(); {load}; "
    timing += "print(time.perf_counter() - t)"
    memory = f"import controller, tracemalloc; tracemalloc.start(); {load}; "
    memory += "print(tracemalloc.get_traced_memory()[0])"
    seconds = min(float(_python(timing)) for _ in range(3))
    return seconds * 1000, int(_python(memory)) / 2**20


def _python(code: str) -> str:
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return run.stdout.strip()


def worst_case(hands: list[Hand]) -> tuple[Hand, int]:
    """The hand with the most readings (arrangements) among these and a known hard one."""
    hard = [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4]  # 11122233344455m
    best, most = hard, 0
    for hand in [hard, *hands]:
        found = len(arrangements(count_tiles(hand), (), hand[-1], True))
        if found > most:
            best, most = hand, found
    return best, most


def table(rows: list[tuple[str, ...]]) -> str:
    """Rows as an aligned text table (first row is the header)."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)) for row in rows]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(lines)


Job = tuple[Callable[[], object], int]
"""A measured run and how many hands it handles."""


def measure(jobs: dict[str, Job], repeat: int) -> dict[str, float]:
    """Seconds per hand of each job: the best of `repeat` rounds, jobs interleaved per round
    so that a busy machine slows every job alike."""
    best = dict.fromkeys(jobs, float("inf"))
    for _ in range(repeat):
        for name, (run, count) in jobs.items():
            best[name] = min(best[name], best_time(run, 1) / count)
    return best


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--hands", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    wins = [winning_hand(rng) for _ in range(args.hands)]
    mixed = wins[: args.hands // 2] + [
        random_hand(rng) for _ in range(args.hands - args.hands // 2)
    ]
    checks, agreement = check_jobs(mixed)
    scores = score_jobs(wins)
    timed = measure(checks | scores, args.repeat)
    print(f"{args.hands} hands, seed {args.seed}, best of {args.repeat} interleaved rounds")
    print("win check: half random winning hands, half random 14-tile draws")
    print("score: random winning hands (four sets and a pair) won on a discard; a ruleset")
    print("without honours is timed on the hands it can play. Ratio > 1: ours is faster.\n")
    print(table(rows(timed, checks, scores)))
    print(f"win check agreement with Agari.is_agari: {agreement}")
    print(worst_case_line(wins, args.repeat))
    milliseconds, mebibytes = import_cost()
    print(f"import controller.rules + load zung-jung: {milliseconds:.0f} ms, {mebibytes:.1f} MiB")
    return 0


def rows(
    timed: dict[str, float], checks: dict[str, Job], scores: dict[str, Job]
) -> list[tuple[str, ...]]:
    """The result table: speed of each job and its ratio to each peer."""
    header = ("measure", "hands/s", "us/hand", "vs mahjong", "vs PyMahjongGB")
    result: list[tuple[str, ...]] = [header]
    for group in (checks, scores):
        peers_here = [name for name in group if name.startswith("peer")]
        for name in group:
            seconds = timed[name]
            ratios = [
                f"{timed[p] / seconds:.2f}x" if not name.startswith("peer") else ""
                for p in peers_here
            ]
            ratios += [""] * (2 - len(ratios))
            result.append(
                (
                    name.removeprefix("peer: "),
                    f"{1 / seconds:,.0f}",
                    f"{seconds * 1e6:.1f}",
                    *ratios,
                )
            )
    return result


def worst_case_line(wins: list[Hand], repeat: int) -> str:
    """The hand with the most readings and the time to score it."""
    hand, readings = worst_case(wins)
    zj = get_ruleset("zung-jung")
    worst = Win(tuple(hand))

    def run_worst() -> None:
        for _ in range(200):
            zj.score(worst)

    one = best_time(run_worst, repeat) / 200 * 1e6
    return f"worst case: {readings} readings for {format_tiles(hand)}, scored in {one:.0f} us"


def check_jobs(hands: list[Hand]) -> tuple[dict[str, Job], str]:
    """Win check: ours against Agari.is_agari on the same 34-count arrays."""
    counts = [count_tiles(hand) for hand in hands]

    def run_ours() -> None:
        for c in counts:
            is_win(c)

    jobs: dict[str, Job] = {"win check: controller.rules is_win": (run_ours, len(hands))}
    try:
        from mahjong.agari import Agari
    except ImportError:
        return jobs, "mahjong not installed"
    agari = Agari()

    def run_theirs() -> None:
        for c in counts:
            agari.is_agari(c)

    jobs["peer: win check: mahjong Agari.is_agari"] = (run_theirs, len(hands))
    agree = sum(is_win(c, frozenset(Form)) == agari.is_agari(c) for c in counts)
    return jobs, f"{agree}/{len(hands)} hands"


def score_jobs(wins: list[Hand]) -> dict[str, Job]:
    """Full scoring per available ruleset, then the peers (as `peer: ...`)."""
    hands = [Win(tuple(hand)) for hand in wins]
    jobs: dict[str, Job] = {}
    for name in RULESET_NAMES:
        ruleset = get_ruleset(name)
        playable = [w for w in hands if set(w.concealed) <= ruleset.tiles.kinds]

        def run(score: Callable[[Win], object] = ruleset.score, part: list[Win] = playable) -> None:
            for win in part:
                score(win)

        shown = "" if len(playable) == len(hands) else f" ({len(playable)} hands)"
        jobs[f"score: {name}{shown}"] = (run, len(playable))
    for label, run in peers(wins).items():
        jobs[f"peer: score: {label}"] = (run, len(wins))
    return jobs


if __name__ == "__main__":
    sys.exit(main())
