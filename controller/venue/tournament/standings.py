"""Standings of a tournament from the recorded hand results (pure: results in, ranks out).

Per stage: each hand counts for the four players and scores their payments plus penalties,
except a forfeited hand (an incident of a forfeit kind against a seat, from the table or
entered by the director): it counts as a hand for the forfeiting player only, who loses the
forfeit points; the other three neither score nor count it. A forfeit the director enters for
a hand no table recorded (the player left and the session was ended) counts the same way.
The director's penalties and corrections change a player's points in a stage. Players with
fewer hands than the stage's qualifying minimum are listed but not ranked, unless the director
overrode that with a reason. The top `cut` ranked players make the next stage's field. The
final order ranks the last stage's field by its standings, then everyone else by the stage
they went out in.
"""

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass

from controller.hub.contract.result import HandResult
from controller.venue.tournament.definition import Stage, Tournament
from controller.venue.tournament.entries import Entry


@dataclass
class Line:
    """One player's line in one stage."""

    player: str
    name: str
    hands: int = 0
    points: int = 0
    wins: int = 0
    forfeits: int = 0
    adjusted: int = 0
    """Points the director's penalties and corrections added (negative: took)."""
    qualified: bool = False
    rank: int | None = None
    prize: str = ""
    tie: bool = False
    """Level on merit with another ranked player (same rank; ordered by the lot)."""
    override: str = ""
    """Why the director ranked this player under the qualifying minimum ('' : no override)."""


def forfeiters(result: HandResult, kinds: Iterable[str], marked: Iterable[str] = ()) -> set[int]:
    """Seats that forfeited this hand: by an incident of a forfeit kind, or marked by the
    director (player ids in `marked`)."""
    named = set(marked)
    found = {i.seat for i in result.incidents if i.seat is not None and i.kind in kinds}
    return found | {s.seat for s in result.seats if s.player in named}


def stage_standings(
    t: Tournament,
    stage: Stage,
    field: Iterable[str],
    results: Iterable[HandResult],
    entries: Iterable[Entry] = (),
) -> list[Line]:
    """Ranked lines of a stage's field: ranked players by points (then more wins, fewer hands,
    then id), then those under the qualifying minimum (rank None)."""
    names = {p.id: p.name for p in t.players}
    lines = {p: Line(p, names.get(p, p)) for p in field}
    prefix = t.session_prefix(stage.name)
    mine = [e for e in entries if e.stage == stage.name or e.session.startswith(prefix)]
    marked: dict[tuple[str, int], set[str]] = {}
    for e in mine:
        if e.kind == "forfeit":
            marked.setdefault((e.session, e.hand), set()).add(e.player)
    for r in results:
        if not r.session.startswith(prefix):
            continue
        lost = forfeiters(r, t.forfeit.incidents, marked.pop((r.session, r.hand), ()))
        totals = r.totals()
        for seat in r.seats:
            line = lines.get(seat.player)
            if line is None or (lost and seat.seat not in lost):
                continue
            line.hands += 1
            if seat.seat in lost:
                line.forfeits += 1
                line.points -= t.forfeit.points
            else:
                line.points += totals[seat.seat]
                line.wins += any(w.seat == seat.seat for w in r.wins)
    _unrecorded_forfeits(t, lines, marked)
    for e in mine:
        line = lines.get(e.player)
        if line is not None and e.kind in ("penalty", "correction"):
            change = -e.points if e.kind == "penalty" else e.points
            line.points += change
            line.adjusted += change
        elif line is not None and e.kind == "override":
            line.override = e.reason
    for line in lines.values():
        line.qualified = line.hands >= stage.qualifying_minimum or bool(line.override)
    ranked = sorted(
        (x for x in lines.values() if x.qualified),
        key=lambda x: (*_merit(x), lot(t.tournament.seed, x.player)),
    )
    for position, line in enumerate(ranked, start=1):
        before = ranked[position - 2] if position > 1 else None
        if before is not None and _merit(before) == _merit(line):
            line.rank, line.tie, before.tie = before.rank, True, True
        else:
            line.rank = position
    rest = sorted((x for x in lines.values() if not x.qualified), key=lambda x: x.player)
    return ranked + rest


def _merit(x: Line) -> tuple[int, int, int]:
    """What ranks a player: more points, then more wins, then fewer hands."""
    return (-x.points, -x.wins, x.hands)


def lot(seed: int, player: str) -> str:
    """The drawn lot that orders players level on merit: the same for a tournament's seed
    every time, unrelated to the player id's order."""
    return hashlib.sha256(f"{seed}:{player}".encode()).hexdigest()


def _unrecorded_forfeits(
    t: Tournament, lines: dict[str, Line], marked: dict[tuple[str, int], set[str]]
) -> None:
    """Forfeits the director entered for hands no table recorded: one lost hand each."""
    for players in marked.values():
        for player in players:
            line = lines.get(player)
            if line is not None:
                line.hands += 1
                line.forfeits += 1
                line.points -= t.forfeit.points


FINAL_ORDER = "final order"
"""The name of the final order in listings and exports (no stage name has a space)."""


@dataclass
class Report:
    """Every stage's standings, each stage's field, and the final order with prizes."""

    stages: dict[str, list[Line]]
    fields: dict[str, list[str]]
    final: list[Line]


def standings(
    t: Tournament, results: Iterable[HandResult], entries: Iterable[Entry] = ()
) -> Report:
    """All standings of the tournament as far as it has been played."""
    hands = list(results)
    entered = list(entries)
    field = [p.id for p in t.players]
    stages: dict[str, list[Line]] = {}
    fields: dict[str, list[str]] = {}
    for stage in t.stages:
        fields[stage.name] = field
        stages[stage.name] = stage_standings(t, stage, field, hands, entered)
        if stage.cut:
            ranked = [x.player for x in stages[stage.name] if x.rank is not None]
            field = ranked[: stage.cut]
    return Report(stages, fields, _final(t, stages))


def _final(t: Tournament, stages: dict[str, list[Line]]) -> list[Line]:
    """Players by the last stage they reached, in that stage's order; a player unranked in
    the stage they went out in gets no final rank and no prize."""
    order: list[Line] = []
    placed: set[str] = set()
    bands = t.prize_bands()
    position = 0
    for stage in reversed(t.stages):
        previous: Line | None = None  # the last ranked line placed from this stage
        for line in stages[stage.name]:
            if line.player in placed:
                continue
            placed.add(line.player)
            final = Line(
                line.player,
                line.name,
                line.hands,
                line.points,
                line.wins,
                line.forfeits,
                line.adjusted,
                line.qualified,
                override=line.override,
            )
            if line.rank is not None:
                position += 1
                tied = previous is not None and previous.rank == line.rank
                final.rank = order[-1].rank if tied else position
                final.tie = line.tie
                previous = line
                final.prize = next((b for lo, hi, b in bands if lo <= position <= hi), "")
            order.append(final)
    return order
