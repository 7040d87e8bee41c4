"""`mahjong-table hub standings` and `hub draw`: a tournament's standings from the recorder's
store, and the seat draw of a round (printed, or sent to the tables as session starts)."""

import argparse
import csv
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol, TextIO

from controller.errors import RuntimeFailure, UsageError
from controller.hub.contract.envelopes import ReplyMessage
from controller.hub.contract.hub_commands import Action, StartSession
from controller.hub.contract.result import HandResult
from controller.venue.export import decoded
from controller.venue.store import ResultStore
from controller.venue.tournament.definition import Tournament, load_tournament
from controller.venue.tournament.draw import Seating, draw_stage
from controller.venue.tournament.entries import (
    AUDIT_COLUMNS,
    Entry,
    audit_row,
    decode_entry,
)
from controller.venue.tournament.makeup import makeup_seatings
from controller.venue.tournament.standings import FINAL_ORDER, Line, Report, standings

Options = Callable[[argparse.ArgumentParser], None]
Sender = Callable[[argparse.Namespace, str, Action], ReplyMessage]
OpenStore = Callable[[str], ResultStore]
STANDING_COLUMNS = [
    "stage",
    "rank",
    "player",
    "name",
    "hands",
    "points",
    "wins",
    "forfeits",
    "qualified",
    "prize",
    "adjusted",
    "override",
]


def register(
    actions: Any, connection: Options, db: Options, open_store: OpenStore, send: Sender
) -> None:
    """Add `standings` and `draw` to the `hub` group."""
    st = actions.add_parser(
        "standings",
        help="a tournament's standings: per stage, the cut, the final order and prizes",
        description="Rank the players of a tournament from the recorded results, with the "
        "forfeit rule and each stage's qualifying minimum.",
    )
    db(st)
    st.add_argument("--tournament", required=True, help="tournament definition file (TOML)")
    st.add_argument(
        "--stage", help=f"only this stage ('{FINAL_ORDER}': the final order and prizes)"
    )
    st.set_defaults(handler=lambda a: _run_standings(a, open_store))
    dr = actions.add_parser(
        "draw",
        help="the seat draw of one round; --send starts the sessions on the tables",
        description="Seat the stage's players at the tournament's tables for one round "
        "(reproducible from the seed); with --send, sign and send each table its session start.",
    )
    connection(dr)
    db(dr)
    dr.add_argument("--tournament", required=True, help="tournament definition file (TOML)")
    dr.add_argument("--stage", required=True, help="stage name")
    dr.add_argument(
        "--round", type=int, required=True,
        help="round number, from 1 (past the stage's rounds: a make-up round for the players "
        "under the qualifying minimum)",
    )  # fmt: skip
    dr.add_argument("--send", action="store_true", help="start the sessions on the tables")
    dr.add_argument("--wait", type=float, default=10.0, help="seconds to wait for each reply")
    dr.set_defaults(handler=lambda a: _run_draw(a, open_store, send))


class EntrySource(Protocol):
    """What keeps the director's entries: the store, or the dashboard's copy of it."""

    def director_entries(self) -> list[bytes]:
        """Every entry's JSON, in the order they were entered."""


def report_of(t: Tournament, store: ResultStore) -> Report:
    """The tournament's standings from everything recorded in `store` (results and the
    director's entries)."""
    return standings(t, (m.result for _, m in decoded(store.results())), entries_of(store))


def entries_of(store: "EntrySource") -> list[Entry]:
    """The director's entries in `store` (BadEntry if one cannot be read)."""
    return [decode_entry(payload) for payload in store.director_entries()]


def write_audit(entries: list[Entry], out: TextIO) -> int:
    """The director's entries as CSV (the audit trail); returns the number of entries."""
    writer = csv.writer(out)
    writer.writerow(AUDIT_COLUMNS)
    writer.writerows(audit_row(e) for e in entries)
    return len(entries)


def _load(
    args: argparse.Namespace, open_store: OpenStore
) -> tuple[Tournament, Report, list[HandResult]]:
    t = load_tournament(Path(args.tournament))
    store = open_store(args.db)
    try:
        played = [m.result for _, m in decoded(store.results())]
        return t, standings(t, played, entries_of(store)), played
    finally:
        store.close()


def _run_standings(args: argparse.Namespace, open_store: OpenStore) -> int:
    t, report, _ = _load(args, open_store)
    wanted = [args.stage] if args.stage else [*report.stages, FINAL_ORDER]
    for name in wanted:
        lines = report.final if name == FINAL_ORDER else report.stages.get(name)
        if lines is None:
            known = ", ".join([*report.stages, repr(FINAL_ORDER)])
            raise UsageError(f"--stage {name}: no such stage (stages: {known})")
        minimum = t.stage(name).qualifying_minimum if name != FINAL_ORDER else 0
        sys.stdout.write(
            f"{t.tournament.name} {name}"
            + (f" (ranked from {minimum} hands)" if minimum else "")
            + "\n"
        )
        sys.stdout.writelines(line_text(x) + "\n" for x in lines)
    return 0


def line_text(x: Line) -> str:
    """One standings line for a terminal."""
    rank = f"{x.rank:>4}" if x.rank is not None else "   -"
    rank += "=" if x.tie else " "
    note = "" if x.qualified else "  (under the qualifying minimum)"
    prize = f"  prize {x.prize}" if x.prize else ""
    if x.tie:
        prize += "  (tie: ordered by the drawn lot)"
    return (
        f"{rank}  {x.player:<12} {x.name:<20} {x.points:>7} pts  {x.hands:>4} hands  "
        f"{x.wins:>3} wins  {x.forfeits} forfeits{prize}{note}"
    )


def write_csv(report: Report, out: TextIO) -> int:
    """Every stage's standings and the final order as CSV; returns the number of lines."""
    writer = csv.writer(out)
    writer.writerow(STANDING_COLUMNS)
    count = 0
    for stage, lines in [*report.stages.items(), (FINAL_ORDER, report.final)]:
        for x in lines:
            writer.writerow(
                [
                    stage,
                    x.rank or "",
                    x.player,
                    x.name,
                    x.hands,
                    x.points,
                    x.wins,
                    x.forfeits,
                    int(x.qualified),
                    x.prize,
                    x.adjusted,
                    x.override,
                ]
            )
            count += 1
    return count


def round_starts(
    t: Tournament,
    report: Report,
    stage: str,
    round_: int,
    played: Sequence[HandResult] | None = None,
) -> list[StartSession]:
    """The session start of each table for one round, players in seat order E S W N. Rounds
    past the stage's `rounds` are make-up rounds (they need the stage's `played` results)."""
    try:
        s = t.stage(stage)
    except KeyError:
        raise UsageError(f"--stage {stage}: no such stage") from None
    if round_ < 1:
        raise UsageError("--round counts from 1")
    field = report.fields[stage]
    index = [x.name for x in t.stages].index(stage)
    if index:
        before = t.stages[index - 1]
        if len(field) < before.cut:
            raise UsageError(
                f"stage {stage} needs the {before.cut} players of {before.name}'s cut, but "
                f"only {len(field)} are ranked in {before.name} (the others are under its "
                f"qualifying minimum of {before.qualifying_minimum} hands): finish "
                f"{before.name}, or rank a player with an override"
            )
    seed = t.tournament.seed * 1000 + index
    hands = s.hands
    if round_ <= s.rounds:
        tables: list[Seating] = draw_stage(field, s.rounds, t.tournament.seat_draw, seed)[
            round_ - 1
        ]
    else:
        if played is None:
            raise UsageError(f"round {round_} of {stage} is a make-up round: it needs the results")
        tables, hands = makeup_seatings(t, s, report.stages[stage], played, round_)
    ruleset: Any = t.tournament.ruleset  # one of RULESETS: checked when the file was loaded
    return [
        StartSession(
            session=t.session_id(stage, round_, table),
            ruleset=ruleset,
            players=list(seating),
            hands=hands,
        )
        for table, seating in zip(t.tournament.tables, tables, strict=False)
    ]


def _run_draw(args: argparse.Namespace, open_store: OpenStore, send: Sender) -> int:
    t, report, played = _load(args, open_store)
    starts = round_starts(t, report, args.stage, args.round, played)
    failed: list[str] = []
    for table, start in zip(t.tournament.tables, starts, strict=False):
        sys.stdout.write(f"{table}: {start.session}  {' '.join(start.players)} (E S W N)\n")
        if args.send:
            try:
                reply = send(args, table, start)
            except (RuntimeFailure, OSError, TimeoutError) as exc:
                # One table that does not answer must not keep the others from starting.
                sys.stdout.write(f"  not started: {exc}\n")
                failed.append(table)
                continue
            sys.stdout.write(f"  {reply.code}: {reply.message}\n")
            if not reply.ok:
                failed.append(table)
    if failed:
        sys.stdout.write(f"not started: {' '.join(failed)} (send those again)\n")
    return 1 if failed else 0
