"""Seat draws: which four players sit at which table, in seat order E S W N, each round.

`random` shuffles the field (the Shanghai rules' random matching). `avoid_repeats` (the
default, as the World Mahjong Championship seats players) searches, round by round, for the
grouping with the fewest pairs who have already met, and among those the best-balanced seats:
from several random groupings it swaps players between tables while a swap lowers the cost.
A repeated pair costs more than any seat imbalance; a seat costs how often the player has
already had it. Each table then takes the seat order that best evens out its players' seats.
Both methods are reproducible from the seed.
"""

import itertools
import random
from collections import Counter, defaultdict
from collections.abc import Sequence

Seating = tuple[str, str, str, str]
Meetings = Counter[frozenset[str]]
Seats = defaultdict[str, Counter[int]]
"""How often each player has had each seat (0 = East)."""
RESTARTS = 16
"""Random starts of the search for one round's grouping (it stops at the first without a
repeated pair)."""
ATTEMPTS = 8
_GF4_TIMES = ((0, 0, 0, 0), (0, 1, 2, 3), (0, 2, 3, 1), (0, 3, 1, 2))
"""Multiplication in the field of four elements (addition is exclusive or)."""
"""Whole-stage searches (from different seeds) when a stage is left with repeated pairs."""
_ORDERS = list(itertools.permutations(range(4)))


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


def _pairs_cost(table: Sequence[str], met: Meetings) -> int:
    return sum(met[frozenset(p)] for p in itertools.combinations(table, 2))


def _improve(tables: list[list[str]], met: Meetings) -> int:
    """Swap players between tables while a swap lowers the repeats; returns what is left."""
    improved = True
    while improved:
        improved = False
        for i, j in itertools.combinations(range(len(tables)), 2):
            for a, b in itertools.product(range(4), range(4)):
                before = _pairs_cost(tables[i], met) + _pairs_cost(tables[j], met)
                if not before:
                    break
                tables[i][a], tables[j][b] = tables[j][b], tables[i][a]
                if _pairs_cost(tables[i], met) + _pairs_cost(tables[j], met) < before:
                    improved = True
                else:
                    tables[i][a], tables[j][b] = tables[j][b], tables[i][a]
    return sum(_pairs_cost(t, met) for t in tables)


def group_round(
    field: Sequence[str], method: str, rng: random.Random, met: Meetings
) -> list[list[str]]:
    """Group the whole field (a multiple of 4) into len(field) // 4 tables of four."""
    if len(field) % 4:
        raise ValueError(f"{len(field)} players cannot fill tables of four")
    best: tuple[int, list[list[str]]] | None = None
    for _ in range(1 if method == "random" else RESTARTS):
        order = list(field)
        rng.shuffle(order)
        tables = [order[i : i + 4] for i in range(0, len(order), 4)]
        left = 0 if method == "random" else _improve(tables, met)
        if best is None or left < best[0]:
            best = (left, tables)
        if best[0] == 0:
            break
    assert best is not None
    return best[1]


def affine_rounds(field: Sequence[str], rng: random.Random) -> list[list[list[str]]]:
    """Sixteen players in five rounds in which no two meet twice: the five parallel classes
    of the affine plane of order 4 (players are its points, tables its lines), the players
    placed on the points and the rounds ordered by `rng`."""
    players = list(field)
    rng.shuffle(players)

    def at(x: int, y: int) -> str:
        return players[4 * x + y]

    classes = [[[at(c, y) for y in range(4)] for c in range(4)]]
    for m in range(4):
        classes.append([[at(x, _GF4_TIMES[m][x] ^ c) for x in range(4)] for c in range(4)])
    rng.shuffle(classes)
    return classes


def _group_stage(field: list[str], rounds: int, method: str, seed: int) -> list[list[list[str]]]:
    """Every round's tables; a stage whose search left repeats is searched again from
    another seed (ATTEMPTS in all), keeping the grouping with the fewest repeats. Sixteen
    players start from the affine plane (five rounds without a repeated pair, which a
    round-by-round search often misses)."""
    best: tuple[int, list[list[list[str]]]] | None = None
    for attempt in range(1 if method == "random" else ATTEMPTS):
        rng = random.Random(seed * 7919 + attempt)
        done: list[list[list[str]]] = []
        if method != "random" and len(field) == 16:
            done = affine_rounds(field, rng)[:rounds]
        left = 0
        for _ in range(rounds - len(done)):
            met = meetings(done)  # type: ignore[arg-type]
            tables = group_round(field, method, rng, met)
            left += sum(_pairs_cost(t, met) for t in tables)
            done.append(tables)
        if best is None or left < best[0]:
            best = (left, done)
        if best[0] == 0:
            break
    assert best is not None
    return best[1]


def _balance(stage: list[list[list[str]]]) -> list[list[Seating]]:
    """A seat order for every table of every round such that each player has each seat as
    evenly as can be: an edge colouring of the bipartite graph (a player's block of up to
    four of their tables) -- (a table in a round), colours being seats. Every vertex has at
    most four edges, so four colours always suffice (Konig); each edge is coloured in turn,
    flipping an alternating path of two colours where needed. Within a block of four rounds
    a player has every seat once; over more rounds no seat twice more than another."""
    used: _Colours = defaultdict(dict)
    rounds_of: Counter[str] = Counter()
    for r, tables in enumerate(stage):
        for t, table in enumerate(tables):
            for player in table:
                _colour(used, ("player", player, rounds_of[player] // 4), ("table", r, t))
                rounds_of[player] += 1
    seated: list[list[Seating]] = []
    for r, tables in enumerate(stage):
        row = []
        for t in range(len(tables)):
            at = used[("table", r, t)]
            players = [str(at[seat][1]) for seat in range(4)]
            row.append((players[0], players[1], players[2], players[3]))
        seated.append(row)
    return seated


_Node = tuple[str, object, int]
_Colours = defaultdict[_Node, dict[int, _Node]]


def _colour(used: _Colours, u: _Node, v: _Node) -> None:
    a = next(c for c in range(4) if c not in used[u])
    b = next(c for c in range(4) if c not in used[v])
    if a in used[v]:
        path, x, c = [], v, a
        while c in used[x]:
            y = used[x][c]
            path.append((x, y, c))
            x, c = y, (b if c == a else a)
        for x, y, c in path:
            del used[x][c], used[y][c]
        for x, y, c in path:
            flipped = b if c == a else a
            used[x][flipped], used[y][flipped] = y, x
    used[u][a], used[v][a] = v, u


def draw_one_round(field: Sequence[str], rng: random.Random, met: Meetings) -> list[Seating]:
    """One round on its own (a make-up round): grouped avoiding pairs in `met`, seated."""
    return _balance([group_round(sorted(field), "avoid_repeats", rng, met)])[0]


def draw_stage(field: Sequence[str], rounds: int, method: str, seed: int) -> list[list[Seating]]:
    """The seatings of every round of a stage, in order; the same inputs, the same draws."""
    stage = _group_stage(sorted(field), rounds, method, seed)
    if method == "random":
        return [[(t[0], t[1], t[2], t[3]) for t in tables] for tables in stage]
    return _balance(stage)
