"""Seat draws: which four players sit at which table, in wind order E S W N, each round.

`random` shuffles the field. `avoid_repeats` (as the World Mahjong Championship does) tries
many shuffles and keeps the one whose tables bring together the fewest pairs of players who
have already met; ties keep the first found. Both are reproducible from the seed.
"""

import itertools
import random
from collections import Counter
from collections.abc import Sequence

Seating = tuple[str, str, str, str]
Meetings = Counter[frozenset[str]]
_TRIES = 400


def meetings(rounds: Sequence[Sequence[Seating]]) -> Meetings:
    """How many times each pair of players has shared a table."""
    met: Meetings = Counter()
    for tables in rounds:
        for seating in tables:
            met.update(frozenset(pair) for pair in itertools.combinations(seating, 2))
    return met


def repeats(tables: Sequence[Seating], met: Meetings) -> int:
    """Pairs at these tables who have met before (counted once per earlier meeting)."""
    return sum(met[frozenset(p)] for s in tables for p in itertools.combinations(s, 2))


def draw_round(
    field: Sequence[str], method: str, rng: random.Random, met: Meetings
) -> list[Seating]:
    """Seat the whole field (a multiple of 4) at len(field) // 4 tables."""
    if len(field) % 4:
        raise ValueError(f"{len(field)} players cannot fill tables of four")
    best: list[Seating] | None = None
    best_repeats = -1
    for _ in range(1 if method == "random" else _TRIES):
        order = list(field)
        rng.shuffle(order)
        tables = [tuple(order[i : i + 4]) for i in range(0, len(order), 4)]
        score = repeats(tables, met)  # type: ignore[arg-type]
        if best is None or score < best_repeats:
            best, best_repeats = tables, score  # type: ignore[assignment]
        if best_repeats == 0:
            break
    assert best is not None
    return best


def draw_stage(field: Sequence[str], rounds: int, method: str, seed: int) -> list[list[Seating]]:
    """The seatings of every round of a stage, in order; the same inputs, the same draws."""
    rng = random.Random(seed)
    done: list[list[Seating]] = []
    for _ in range(rounds):
        done.append(draw_round(sorted(field), method, rng, meetings(done)))
    return done
