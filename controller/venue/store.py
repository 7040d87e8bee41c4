"""The recorder's store: hand results kept once each by id, wall commitments, refusals, the
outboxes each table has used, notices for the venue, and the latest status of every table with
when it was last heard. One set of queries (store_sql) and one schema (store_schema) over either
engine (store_engines): a SQLite file, or a league's PostgreSQL database.

These calls block: the recorder makes them on the store's own thread (`async_store`); the
command-line views make them directly.
"""

import contextlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from controller.errors import RuntimeFailure, UsageError
from controller.hub.contract.envelopes import MalformedMessage, ResultMessage, StatusMessage, decode
from controller.venue import store_sql as sql
from controller.venue.store_engines import (
    Answer,
    Cursor,
    Engine,
    PgEngine,
    SqliteEngine,
    StoreUnavailable,
)
from controller.venue.store_schema import LATEST, MIGRATIONS, VERSION_KEY, fill, found_version


@dataclass(frozen=True)
class StoredResult:
    """One recorded result as the export reads it."""

    id: str
    table: str
    seq: int
    audit: str
    payload: bytes


@dataclass(frozen=True)
class Notice:
    """Something the venue must know about a table, in plain words."""

    at: float
    table: str
    kind: str
    text: str


@dataclass(frozen=True)
class Presence:
    """When the recorder last heard a table, and when it saw it go offline (None: not seen)."""

    table: str
    heard: float | None
    offline_at: float | None
    by_will: bool
    status: bytes | None

    def last_status(self) -> StatusMessage | None:
        """The table's last status as stored, decoded (None: none, or unreadable)."""
        if self.status is None:
            return None
        try:
            return decode(self.status, StatusMessage)
        except MalformedMessage:
            return None


Hand = tuple[str, str, int]
"""(table, session, hand)."""
NewResult = tuple[ResultMessage, bytes, str]
"""A verified result to record: the message, its payload as received, the wall audit's verdict."""


def _first_gap(floor: int, rows: list[Any]) -> tuple[tuple[int, int] | None, int]:
    expected = floor + 1
    for (seq,) in rows:
        if seq > expected:
            return (expected, int(seq) - 1), int(seq)
        expected = int(seq) + 1
    return None, expected - 1


def is_postgres_url(spec: str) -> bool:
    """True when `--db` names a PostgreSQL database rather than a SQLite file."""
    return spec.startswith(("postgresql://", "postgres://"))


def engine_for(spec: str, application: str = "mahjong-table") -> Engine:
    """The engine `--db` names: a path, a `sqlite:///path` URL or a `postgresql://` URL."""
    if is_postgres_url(spec):
        return PgEngine(spec, application)
    if "://" in spec and not spec.startswith("sqlite://"):
        raise UsageError(
            f"--db {spec.split('://')[0]}:// is not supported: give a SQLite path "
            "or a postgresql:// URL"
        )
    return SqliteEngine(Path(spec.removeprefix("sqlite://")))


def open_store(spec: str, application: str = "mahjong-table") -> "ResultStore":
    """Open the store `--db` names, its schema brought up to date; RuntimeFailure names why
    it cannot be opened (a full disk as a full disk)."""
    store = ResultStore(engine_for(spec, application))
    try:
        store.open()
    except StoreUnavailable as exc:
        raise RuntimeFailure(f"cannot open the results store: {exc.fault.text}") from exc
    return store


class ResultStore:
    """Everything the recorder knows, in one database (its queries: store_sql)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.where = engine.where
        self.dialect = engine.dialect
        self._heard: dict[str, float] | None = None
        """Inside a transaction: the latest time each table was heard, not yet written."""

    def open(self) -> None:
        """Connect and apply the migrations the store lacks; StoreUnavailable if the engine
        fails, RuntimeFailure for a store made by a newer version."""
        self.engine.connect()
        try:
            self.migrate()
        except Exception as exc:
            fault = self.engine.fault(exc)
            if fault is None:
                raise
            raise StoreUnavailable(fault) from exc

    def migrate(self) -> int:
        """Apply the migrations this store lacks in one transaction; returns the version."""
        with self:
            tables = self.engine.tables()
            row = self._run(sql.COUNTER, (VERSION_KEY,)).fetchone() if "meta" in tables else None
            if row is not None:
                version = int(row[0])
            else:
                columns = self.engine.columns("results") if "results" in tables else set()
                version = found_version(tables, columns)
            if version > LATEST:
                raise RuntimeFailure(
                    f"results store {self.where} was made by a newer mahjong-table (schema "
                    f"{version}, this one knows {LATEST}): upgrade this machine"
                )
            for migration in MIGRATIONS[version:]:
                for statement in fill(migration, self.engine.types):
                    self.engine.execute(statement)
            if row is None or version < LATEST:
                self._run(sql.COUNTER_SET, (VERSION_KEY, LATEST))
        return LATEST

    def schema_version(self) -> int:
        """The migration the store is at."""
        return int(self._run(sql.COUNTER, (VERSION_KEY,)).fetchone()[0])

    def close(self) -> None:
        """Close the connection."""
        self.engine.close()

    def __enter__(self) -> "ResultStore":
        self.engine.begin()
        self._heard = {}
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        heard, self._heard = self._heard, None
        if kind is None:
            try:
                self._write_heard(heard)
            except BaseException:
                with contextlib.suppress(Exception):
                    self.engine.end(commit=False)
                raise
            self.engine.end(commit=True)
            return
        with contextlib.suppress(Exception):  # the failure that got us here is the one to tell
            self.engine.end(commit=False)

    def _run(self, query: str, params: Sequence[object] = ()) -> Cursor:
        """Run one of the store's queries (store_sql) on this engine."""
        return self.engine.execute(self.dialect.sql(query), params)

    def _many(self, query: str, rows: Sequence[Sequence[object]]) -> list[Answer]:
        """Run one of the store's queries once per row of parameters, in one round trip."""
        return self.engine.many(self.dialect.sql(query), rows)

    def bump(self, key: str) -> int:
        """Increase a counter (the hub's boot or its message sequence) and return it."""
        with self:
            return self.reserve(key, 1)

    def reserve(self, key: str, count: int) -> int:
        """Inside a transaction: take `count` numbers of a counter; returns the first."""
        self._run(sql.COUNTER_ADD, (key, count))
        return int(self._run(sql.COUNTER, (key,)).fetchone()[0]) - count + 1

    def add_result(self, message: ResultMessage, payload: bytes, audit: str, now: float) -> bool:
        """Record a verified result; False if its id is already recorded (a resend)."""
        return self.add_results([(message, payload, audit)], now)[0]

    def add_results(self, results: Sequence[NewResult], now: float) -> list[bool]:
        """Record verified results, each (message, payload, audit verdict), in one round trip;
        for each, False if its id is already recorded (a resend, or twice in `results`)."""
        rows = [
            (
                m.id, m.table, m.boot, m.seq, m.result.session, m.result.hand, m.result.ruleset,
                m.result.ended_at.isoformat(), audit, now, payload, m.outbox or "",
            )
            for m, payload, audit in results
        ]  # fmt: skip
        return [answer.changed == 1 for answer in self._many(sql.RESULT_ADD, rows)]

    def commitment(self, table: str, session: str, hand: int) -> str | None:
        """The wall commitment seen at the start of a hand, if it was seen."""
        return self.commitments([(table, session, hand)]).get((table, session, hand))

    def commitments(self, hands: Sequence[Hand]) -> dict[Hand, str]:
        """The wall commitments seen of these (table, session, hand), in one round trip."""
        answers = self._many(sql.COMMITMENT, hands)
        return {hand: str(a.rows[0][0]) for hand, a in zip(hands, answers, strict=True) if a.rows}

    def hands_without_result(self, table: str) -> list[tuple[str, int]]:
        """(session, hand) of every hand of `table` whose wall commitment was seen but whose
        result never arrived, in the order they started."""
        rows = self._run(sql.HANDS_WITHOUT_RESULT, (table,)).fetchall()
        return [(str(session), int(hand)) for session, hand in rows]

    def add_commitment(self, table: str, session: str, hand: int, value: str, now: float) -> bool:
        """Keep the first commitment of a hand; False if one was already kept."""
        cursor = self._run(sql.COMMITMENT_ADD, (table, session, hand, value, now))
        return cursor.rowcount == 1

    def hand_results(self, table: str, session: str, hand: int) -> list[tuple[str, bytes]]:
        """(id, payload) of the results recorded for one hand."""
        rows = self._run(sql.HAND_RESULTS, (table, session, hand)).fetchall()
        return [(str(i), bytes(p)) for i, p in rows]

    def set_audit(self, result_id: str, audit: str) -> None:
        """Change the audit verdict of a recorded result."""
        self._run(sql.AUDIT_SET, (audit, result_id))

    def add_refusal(
        self,
        table: str,
        result_id: str | None,
        reason: str,
        now: float,
        where: tuple[str, int] | None = None,
    ) -> None:
        """Remember a result that was refused and why (`where`: its outbox and seq if known)."""
        outbox, seq = where or (None, None)
        self._run(sql.REFUSAL_ADD, (now, table, result_id, reason, outbox, seq))

    def refusals(self) -> list[tuple[str, str | None, str]]:
        """(table, result id, reason) of every refusal, oldest first."""
        rows = self._run(sql.REFUSALS).fetchall()
        return [(str(t), i, str(r)) for t, i, r in rows]

    def set_status(self, table: str, payload: bytes, now: float) -> None:
        """Keep the latest status of a table."""
        self._run(sql.STATUS_SET, (table, payload, now))

    def status(self, table: str) -> bytes | None:
        """The latest status payload of a table, if one was seen."""
        found = self._run(sql.STATUS, (table,)).fetchone()
        return None if found is None else bytes(found[0])

    def add_reply(self, table: str, command: str | None, payload: bytes, now: float) -> None:
        """Keep a table's reply to a hub command."""
        self._run(sql.REPLY_ADD, (table, command, payload, now))

    def replies(self, command: str) -> list[bytes]:
        """Replies received to one command."""
        return [bytes(p) for (p,) in self._run(sql.REPLIES, (command,)).fetchall()]

    def first_gap(self, table: str, outbox: str, floor: int) -> tuple[tuple[int, int] | None, int]:
        """(first hole above `floor` as (first, last) missing seq, highest seq seen) among the
        results of one outbox; a refused result fills its place (it came, it was refused)."""
        return self.first_gaps([(table, outbox, floor)])[0]

    def first_gaps(
        self, sources: Sequence[tuple[str, str, int]]
    ) -> list[tuple[tuple[int, int] | None, int]]:
        """`first_gap` of each (table, outbox, floor), in one round trip."""
        answers = self._many(sql.SEQS_ABOVE, [source * 2 for source in sources])
        pairs = zip(sources, answers, strict=True)
        return [_first_gap(floor, answer.rows) for (_, _, floor), answer in pairs]

    def top_seq(self, table: str, outbox: str) -> int:
        """The highest result seq recorded from one outbox of a table (0: none)."""
        return int(self._run(sql.TOP_SEQ, (table, outbox)).fetchone()[0])

    def refused_seqs(self, table: str, outbox: str) -> list[int]:
        """Seqs of one outbox that were refused and are still not recorded."""
        rows = self._run(sql.REFUSED_SEQS, (table, outbox) * 2).fetchall()
        return [int(seq) for (seq,) in rows]

    def outboxes(self, table: str) -> list[str]:
        """The outbox ids a table has used, oldest first."""
        return [str(o) for (o,) in self._run(sql.OUTBOXES, (table,)).fetchall()]

    def add_source(self, table: str, outbox: str, now: float) -> None:
        """Remember an outbox a table uses."""
        self._run(sql.SOURCE_ADD, (table, outbox, now))

    def add_notice(self, table: str, kind: str, text: str, now: float) -> bool:
        """Keep a notice for the venue; False if the same one is already kept."""
        return self._run(sql.NOTICE_ADD, (now, table, kind, text)).rowcount == 1

    def notices(self) -> list[Notice]:
        """Every notice, oldest first."""
        rows = self._run(sql.NOTICES).fetchall()
        return [Notice(float(a), str(t), str(k), str(x)) for a, t, k, x in rows]

    def heard(self, table: str, now: float) -> None:
        """The table itself sent something just now: it is alive. Inside a transaction only
        the latest time of each table is written, once, when the transaction commits (or
        before its presence is read or changed otherwise): a batch of results costs one
        write per table, not one per result."""
        if self._heard is None:
            self._run(sql.HEARD, (table, now))
        else:
            self._heard.pop(table, None)
            self._heard[table] = now

    def _write_heard(self, heard: dict[str, float] | None, table: str | None = None) -> None:
        """Write the times heard held back (of one table, or of all)."""
        if not heard:
            return
        if table is None:
            rows = list(heard.items())
            heard.clear()
        else:
            rows = [(table, heard.pop(table))] if table in heard else []
        self._many(sql.HEARD, rows)

    def went_offline(self, table: str, at: float, by_will: bool) -> None:
        """The table said goodbye, or the broker published its will, at `at`."""
        self._write_heard(self._heard, table)  # what came before the goodbye
        self._run(sql.WENT_OFFLINE, (table, at, int(by_will)))

    def presence(self) -> list[Presence]:
        """Every table the recorder has a status or a sign of life from, by table id."""
        self._write_heard(self._heard)
        return [
            Presence(str(t), h, o, bool(w), None if p is None else bytes(p))
            for t, h, o, w, p in self._run(sql.PRESENCE).fetchall()
        ]

    def count(self) -> int:
        """How many results are recorded."""
        return int(self._run(sql.COUNT).fetchone()[0])

    def results(self) -> Iterator[StoredResult]:
        """Every recorded result, by table, session and hand."""
        for i, t, s, a, p in self._run(sql.RESULTS):
            yield StoredResult(str(i), str(t), int(s), str(a), bytes(p))

    # The tournament director's entries (forfeits, penalties, corrections, substitutes,
    # overrides): an append-only audit trail, each entry its JSON (tournament.entries).

    def add_director_entry(self, payload: bytes, operator: str, at: float) -> None:
        """Keep one entry (in its own transaction)."""
        with self:
            self._run(sql.DIRECTOR_ENTRY_ADD, (at, operator, payload.decode()))

    def director_entries(self) -> list[bytes]:
        """Every entry's JSON, in the order they were entered."""
        return [str(p).encode() for (p,) in self._run(sql.DIRECTOR_ENTRIES).fetchall()]
