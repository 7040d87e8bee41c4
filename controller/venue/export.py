"""CSV exports of the recorder's store: every result, and per-player standings."""

import csv
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TextIO

from controller.hub.contract.envelopes import ResultMessage, decode
from controller.hub.contract.result import HandResult
from controller.venue.store import StoredResult

RESULT_COLUMNS = [
    "result_id", "table", "seq", "session", "hand", "ruleset", "round_wind", "dealer",
    "started_at", "ended_at", "draw", "winners", "patterns",
    *[f"{wind}_{what}" for wind in "ESWN" for what in ("player", "payment", "penalty")],
    "incidents", "audit", "penalty_detail", "win_types", "moves", "seating",
]  # fmt: skip
STANDING_COLUMNS = [
    "rank", "player", "hands", "wins", "self_drawn", "dealt_in", "payments", "penalties", "total",
]  # fmt: skip


@dataclass
class Standing:
    """One player's totals over the exported results."""

    player: str
    hands: int = 0
    wins: int = 0
    self_drawn: int = 0
    dealt_in: int = 0
    payments: int = 0
    penalties: int = 0

    @property
    def total(self) -> int:
        """Points after penalties."""
        return self.payments + self.penalties


def decoded(
    stored: Iterable[StoredResult], session: str | None = None
) -> list[tuple[StoredResult, ResultMessage]]:
    """The stored results with their decoded messages, optionally of one session only."""
    pairs = [(s, decode(s.payload, ResultMessage)) for s in stored]
    return [(s, m) for s, m in pairs if session is None or m.result.session == session]


def write_results(rows: list[tuple[StoredResult, ResultMessage]], out: TextIO) -> int:
    """One CSV line per result; returns the number of lines."""
    writer = csv.writer(out)
    writer.writerow(RESULT_COLUMNS)
    for stored, message in rows:
        writer.writerow(_result_row(stored, message))
    return len(rows)


def _result_row(stored: StoredResult, message: ResultMessage) -> list[object]:
    r = message.result
    by_wind = {s.wind: s for s in r.seats}
    seats: list[object] = []
    for wind in "ESWN":
        seat = by_wind[wind].seat  # type: ignore[index]
        seats += [by_wind[wind].player, r.payments[seat], r.penalties[seat]]  # type: ignore[index]
    winners = ";".join(r.player(w.seat) for w in r.wins)
    patterns = ";".join(
        f"{r.player(w.seat)}:" + "+".join(p.name for p in w.patterns) for w in r.wins
    )
    return [
        message.id, stored.table, stored.seq, r.session, r.hand, r.ruleset, r.round_wind,
        r.player(r.dealer), r.started_at.isoformat(), r.ended_at.isoformat(), int(r.draw),
        winners, patterns, *seats, len(r.incidents), stored.audit, _penalty_detail(r),
        ";".join(w.win_type or "" for w in r.wins), len(r.moves), _seating(r),
    ]  # fmt: skip


def _seating(r: HandResult) -> str:
    """The seating draw a session began with: 'ann:W;bo:E;cy:N;di:S dice 3+4+1+1' (who sat
    on chairs 0-3 while drawing and the wind each drew); empty in every other result."""
    seating = r.seating
    if seating is None:
        return ""
    pairs = zip(seating.players_at_draw, seating.drawn, strict=True)
    drawn = ";".join(f"{player}:{wind}" for player, wind in pairs)
    return f"{drawn} dice {'+'.join(str(d) for d in seating.dice)}"


def _penalty_detail(r: HandResult) -> str:
    """What each penalty was for: 'cy:turn_time -10;cy:hand_time -5', per player and kind."""
    lost: dict[tuple[int, str], int] = {}
    for incident in r.incidents:
        if incident.penalty and incident.seat is not None:
            key = (incident.seat, incident.kind)
            lost[key] = lost.get(key, 0) - incident.penalty
    return ";".join(f"{r.player(seat)}:{kind} {points}" for (seat, kind), points in lost.items())


def standings(rows: list[tuple[StoredResult, ResultMessage]]) -> list[Standing]:
    """Per-player totals, best total first (ties by more wins, then by name)."""
    table: dict[str, Standing] = {}
    for _, message in rows:
        r = message.result
        for seat in r.seats:
            entry = table.setdefault(seat.player, Standing(seat.player))
            entry.hands += 1
            entry.payments += r.payments[seat.seat]
            entry.penalties += r.penalties[seat.seat]
        for win in r.wins:
            table[r.player(win.seat)].wins += 1
            table[r.player(win.seat)].self_drawn += int(win.self_drawn)
            if win.discarder is not None:
                table[r.player(win.discarder)].dealt_in += 1
    return sorted(table.values(), key=lambda s: (-s.total, -s.wins, s.player))


def write_standings(entries: list[Standing], out: TextIO) -> int:
    """One CSV line per player, ranked (equal totals share a rank); returns the count."""
    writer = csv.writer(out)
    writer.writerow(STANDING_COLUMNS)
    rank = 0
    previous: int | None = None
    for position, s in enumerate(entries, start=1):
        if s.total != previous:
            rank, previous = position, s.total
        writer.writerow(
            [
                rank,
                s.player,
                s.hands,
                s.wins,
                s.self_drawn,
                s.dealt_in,
                s.payments,
                s.penalties,
                s.total,
            ]
        )
    return len(entries)
