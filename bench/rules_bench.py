"""Rules engine benchmark: win check and scoring against peer libraries, on the same hands,
cold (fresh hands in a new process, one pass, as a table sees them) and warm.

    .venv/bin/python bench/rules_bench.py [--hands 3000] [--cold-hands 1000] [--rounds 5]
                                          [--seed 7] [--window 0.2]

Peers (the `bench` extra): `mahjong` (riichi: Agari.is_agari, HandCalculator) and, if it
is installed, PyMahjongGB (Chinese Official fan calculator, C++). Different rules, comparable
work: a full score of every arrangement.

Cold: each round starts two new processes (one for the win check, one for scoring, so that
neither warms the other's memo) on hands of a seed no earlier round used; each process times
one pass of ours and one pass of each peer over the same hands, in an order that alternates
between rounds. Warm: in this process, every job goes over its hands again and again for at
least --window seconds; the jobs take turns, round after round. Each ratio (peer time / our
time: > 1 is ours faster) is worked out per round and printed as the median and the range
over the rounds, so a busy machine shows as a wide range rather than a wrong figure. Times are
this process's CPU time (time.process_time), not wall time: on a machine shared with other
work, time spent waiting for a core is nobody's cost.
"""

import argparse
import json
import random
import statistics
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

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
Job = tuple[Callable[[], object], int]
"""A measured run and how many hands it handles."""
PEER = "peer: "
ONCE = "once: "
COLD_GOALS = {
    "win check: controller.rules is_win": {"mahjong Agari.is_agari": 1.0},
    "score: zung-jung": {"mahjong HandCalculator": 3.0, "PyMahjongGB fan calculator (C++)": 0.33},
}


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


def hands_of(seed: int, count: int) -> tuple[list[Hand], list[Hand]]:
    """(winning hands, mixed hands: half of those wins, half random draws) of a seed."""
    rng = random.Random(seed)
    wins = [winning_hand(rng) for _ in range(count)]
    mixed = wins[: count // 2] + [random_hand(rng) for _ in range(count - count // 2)]
    return wins, mixed


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

    calculate = MahjongGB.MahjongFanCalculator

    def gb_run() -> None:
        # (try, not contextlib.suppress: a context manager per hand added about 1.5 us, 15% of
        # the peer's time, to its figure)
        for hand, tile in gb:
            try:
                calculate((), hand, tile, 0, False, False, False, False, 0, 0)
            except (TypeError, ValueError):  # not a GB win: still worked out
                continue

    runs["PyMahjongGB fan calculator (C++)"] = gb_run
    return runs


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

    jobs[PEER + "win check: mahjong Agari.is_agari"] = (run_theirs, len(hands))
    return jobs, ""


def agreement(hands: list[Hand]) -> str:
    """How many hands our win check (every form) and Agari.is_agari judge alike."""
    try:
        from mahjong.agari import Agari
    except ImportError:
        return "mahjong not installed"
    agari = Agari()
    counts = [count_tiles(hand) for hand in hands]
    agree = sum(is_win(c, frozenset(Form)) == agari.is_agari(c) for c in counts)
    return f"{agree}/{len(hands)} hands"


def score_jobs(wins: list[Hand], names: Sequence[str] = RULESET_NAMES) -> dict[str, Job]:
    """Full scoring per ruleset, then the peers (as `peer: ...`)."""
    hands = [Win(tuple(hand)) for hand in wins]
    jobs: dict[str, Job] = {}
    for name in names:
        ruleset = get_ruleset(name)
        playable = [w for w in hands if set(w.concealed) <= ruleset.tiles.kinds]

        def run(score: Callable[[Win], object] = ruleset.score, part: list[Win] = playable) -> None:
            for win in part:
                score(win)

        shown = "" if len(playable) == len(hands) else f" ({len(playable)} hands)"
        jobs[f"score: {name}{shown}"] = (run, len(playable))
    for label, peer in peers(wins).items():
        jobs[PEER + "score: " + label] = (peer, len(wins))
    return jobs


def one_pass(jobs: dict[str, Job], reverse: bool) -> dict[str, float]:
    """CPU seconds per hand of one pass of each job (in reverse order if asked)."""
    spent: dict[str, float] = {}
    for name in reversed(jobs) if reverse else jobs:
        run, count = jobs[name]
        start = time.process_time()
        run()
        spent[name] = (time.process_time() - start) / count
    return spent


def windowed(run: Callable[[], object], count: int, window: float) -> float:
    """CPU seconds per hand over as many passes as fill `window` CPU seconds."""
    passes, start = 0, time.process_time()
    while True:
        run()
        passes += 1
        elapsed = time.process_time() - start
        if elapsed >= window:
            return elapsed / (passes * count)


def cold_child(kind: str, seed: int, count: int, reverse: bool) -> None:
    """In a new process: one pass of ours and the peers over fresh hands; prints JSON."""
    wins, mixed = hands_of(seed, count)
    jobs = check_jobs(mixed)[0] if kind == "check" else score_jobs(wins, ["zung-jung"])
    once: dict[str, float] = {}
    if kind == "check":  # (whatever a first call sets up is paid once per process)
        start = time.process_time()
        is_win([0] * 34)
        once[ONCE + "first win check in a process"] = time.process_time() - start
    print(json.dumps(once | one_pass(jobs, reverse)))


def cold_rounds(seed: int, count: int, rounds: int) -> list[dict[str, float]]:
    """Each round's cold figures (seconds per hand per job), from new processes."""
    found = []
    for index in range(rounds):
        merged: dict[str, float] = {}
        for kind in ("check", "score"):
            command = [sys.executable, __file__, "--cold-child", kind]
            command += [str(seed + 1000 * (index + 1)), str(count), str(index % 2)]
            run = subprocess.run(command, capture_output=True, text=True, check=True)
            merged |= json.loads(run.stdout)
        found.append(merged)
    return found


def warm_rounds(jobs: dict[str, Job], rounds: int, window: float) -> list[dict[str, float]]:
    """Each round's warm figures (seconds per hand per job); the jobs take turns."""
    for run, _ in jobs.values():
        run()  # fill the memos: this is the warm figure
    found = []
    for index in range(rounds):
        names = list(jobs) if index % 2 == 0 else list(reversed(jobs))
        found.append({name: windowed(*jobs[name], window) for name in names})
    return found


def spread(values: list[float]) -> str:
    """Median and range of values, e.g. '1.52x (1.40-1.61)'."""
    return f"{statistics.median(values):.2f}x ({min(values):.2f}-{max(values):.2f})"


def report(title: str, per_round: list[dict[str, float]], goals: bool) -> list[str]:
    """Lines: speed of each of our jobs, its ratio to each peer of its group, the goals met."""
    names = [name for name in per_round[0] if not name.startswith(ONCE)]
    lines = [title]
    for name in per_round[0]:
        if name.startswith(ONCE):
            spent = statistics.median(r[name] for r in per_round)
            lines.append(f"  {name.removeprefix(ONCE)}: {spent * 1000:.1f} ms (not in the figures)")
    for group in ("win check", "score"):
        ours = [n for n in names if n.startswith(group)]
        theirs = [n for n in names if n.startswith(PEER + group)]
        for name in ours + theirs:
            seconds = statistics.median(r[name] for r in per_round)
            label = name.removeprefix(PEER)
            lines.append(f"  {label:44} {1 / seconds:10,.0f} hands/s {seconds * 1e6:8.1f} us/hand")
        for name in ours:
            for peer in theirs:
                ratios = [r[peer] / r[name] for r in per_round]
                peer_name = peer.removeprefix(PEER + group + ": ")
                goal = COLD_GOALS.get(name, {}).get(peer_name) if goals else None
                verdict = ""
                if goal is not None:
                    met = "met" if statistics.median(ratios) >= goal else "NOT met"
                    verdict = f"  goal >= {goal}x: {met}"
                lines.append(f"    {name} vs {peer_name}: {spread(ratios)}{verdict}")
    return lines


def import_cost() -> tuple[float, float]:
    """Import CPU time (ms) and memory (MiB) of controller.rules with zung-jung loaded.

    Measured in a fresh interpreter after `import controller` (whose version lookup is not
    the rules engine's cost); memory is what tracemalloc saw allocated, in a second run.
    """
    load = "import controller.rules as r; r.get_ruleset('zung-jung')"
    timing = f"import controller, time; t = time.process_time(); {load}; "
    timing += "print(time.process_time() - t)"
    memory = f"import controller, tracemalloc; tracemalloc.start(); {load}; "
    memory += "print(tracemalloc.get_traced_memory()[0])"
    seconds = min(float(_python(timing)) for _ in range(3))
    return seconds * 1000, int(_python(memory)) / 2**20


def _python(code: str) -> str:
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return run.stdout.strip()


def worst_case_line(wins: list[Hand], window: float) -> str:
    """The hand with the most readings among these and a known hard one, and its score time."""
    hard = [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4]  # 11122233344455m
    hand, readings = hard, 0
    for candidate in [hard, *wins]:
        found = len(arrangements(count_tiles(candidate), (), candidate[-1], True))
        if found > readings:
            hand, readings = candidate, found
    zj, worst = get_ruleset("zung-jung"), Win(tuple(hand))
    one = windowed(lambda: zj.score(worst), 1, window) * 1e6
    return f"worst case: {readings} readings for {format_tiles(hand)}, scored in {one:.0f} us"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--hands", type=int, default=3000, help="hands of the warm figures")
    parser.add_argument("--cold-hands", type=int, default=1000, help="fresh hands per cold pass")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds (both)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--window", type=float, default=0.2, help="seconds per warm window")
    parser.add_argument("--cold-child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.cold_child:
        kind, seed, count, reverse = args.cold_child
        cold_child(kind, int(seed), int(count), reverse == "1")
        return 0
    print(f"Ratio = peer time / our time (> 1: ours is faster), median (range) of {args.rounds}")
    print("rounds. Win check: half random winning hands, half random 14-tile draws. Score:")
    print("random winning hands (four sets and a pair) won on a discard; a ruleset without")
    print("honours is timed on the hands it can play.\n")
    cold = cold_rounds(args.seed, args.cold_hands, args.rounds)
    print("\n".join(report(f"COLD: {args.cold_hands} fresh hands, one pass in a new process "
                           "per round", cold, goals=True)))  # fmt: skip
    wins, mixed = hands_of(args.seed, args.hands)
    jobs = check_jobs(mixed)[0] | score_jobs(wins)
    warm = warm_rounds(jobs, args.rounds, args.window)
    title = f"WARM: the same {args.hands} hands again and again, >= {args.window * 1000:.0f} ms"
    print("\n".join(report(title + " windows", warm, goals=False)))
    print(f"win check agreement with Agari.is_agari: {agreement(mixed)}")
    print(worst_case_line(wins, args.window))
    milliseconds, mebibytes = import_cost()
    print(
        f"import controller.rules + load zung-jung: {milliseconds:.0f} ms CPU, {mebibytes:.1f} MiB"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
