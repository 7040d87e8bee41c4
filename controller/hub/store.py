"""The recorder's store: hand results kept once each by id, wall commitments, refusals and the
latest status of every table, in one SQLite file (WAL, synchronous=FULL)."""

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from controller.errors import RuntimeFailure, UsageError
from controller.hub.durable import open_durable
from controller.hub.messages import ResultMessage

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS results (
    id TEXT PRIMARY KEY, table_id TEXT NOT NULL, boot INTEGER NOT NULL, seq INTEGER NOT NULL,
    session TEXT NOT NULL, hand INTEGER NOT NULL, ruleset TEXT NOT NULL,
    ended_at TEXT NOT NULL, audit TEXT NOT NULL, received REAL NOT NULL, payload BLOB NOT NULL);
CREATE INDEX IF NOT EXISTS results_by_seq ON results (table_id, seq);
CREATE INDEX IF NOT EXISTS results_by_hand ON results (table_id, session, hand);
CREATE TABLE IF NOT EXISTS commitments (
    table_id TEXT NOT NULL, session TEXT NOT NULL, hand INTEGER NOT NULL,
    commitment TEXT NOT NULL, seen REAL NOT NULL, PRIMARY KEY (table_id, session, hand));
CREATE TABLE IF NOT EXISTS refusals (
    at REAL NOT NULL, table_id TEXT NOT NULL, id TEXT, reason TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS statuses (
    table_id TEXT PRIMARY KEY, payload BLOB NOT NULL, updated REAL NOT NULL);
CREATE TABLE IF NOT EXISTS replies (
    table_id TEXT NOT NULL, command TEXT, payload BLOB NOT NULL, received REAL NOT NULL);
"""


@dataclass(frozen=True)
class StoredResult:
    """One recorded result as the export reads it."""

    id: str
    table: str
    seq: int
    audit: str
    payload: bytes


def open_store(spec: str) -> "ResultStore":
    """Open the store named by a path or a `sqlite:///path` URL."""
    if spec.startswith(("postgresql:", "postgres:")):
        raise UsageError(
            "PostgreSQL stores are not built yet: give --db a SQLite file path "
            "(the recorder keeps everything in one SQLite file)"
        )
    if "://" in spec and not spec.startswith("sqlite://"):
        raise UsageError(f"--db {spec.split('://')[0]}:// is not supported: give a SQLite path")
    return ResultStore(Path(spec.removeprefix("sqlite://")))


class ResultStore:
    """One SQLite file holding everything the recorder knows."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self._db = open_durable(path, _SCHEMA)
        except sqlite3.Error as exc:
            raise RuntimeFailure(f"results store {path}: {exc}") from exc

    def close(self) -> None:
        """Close the file."""
        self._db.close()

    def __enter__(self) -> "ResultStore":
        self._db.execute("BEGIN IMMEDIATE")
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._db.execute("ROLLBACK" if kind else "COMMIT")

    def bump(self, key: str) -> int:
        """Increase a counter (the hub's boot or its message sequence) and return it."""
        with self:
            return self.reserve(key, 1)

    def reserve(self, key: str, count: int) -> int:
        """Inside a transaction: take `count` numbers of a counter; returns the first."""
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        first = (int(row[0]) if row else 0) + 1
        self._db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, first + count - 1))
        return first

    def add_result(self, message: ResultMessage, payload: bytes, audit: str, now: float) -> bool:
        """Record a verified result; False if its id is already recorded (a resend)."""
        r = message.result
        cursor = self._db.execute(
            "INSERT OR IGNORE INTO results VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                message.id,
                message.table,
                message.boot,
                message.seq,
                r.session,
                r.hand,
                r.ruleset,
                r.ended_at.isoformat(),
                audit,
                now,
                payload,
            ),
        )
        return cursor.rowcount == 1

    def commitment(self, table: str, session: str, hand: int) -> str | None:
        """The wall commitment seen at the start of a hand, if it was seen."""
        row = self._db.execute(
            "SELECT commitment FROM commitments WHERE table_id = ? AND session = ? AND hand = ?",
            (table, session, hand),
        ).fetchone()
        return None if row is None else str(row[0])

    def add_commitment(self, table: str, session: str, hand: int, value: str, now: float) -> bool:
        """Keep the first commitment of a hand; False if one was already kept."""
        cursor = self._db.execute(
            "INSERT OR IGNORE INTO commitments VALUES (?, ?, ?, ?, ?)",
            (table, session, hand, value, now),
        )
        return cursor.rowcount == 1

    def hand_results(self, table: str, session: str, hand: int) -> list[tuple[str, bytes]]:
        """(id, payload) of the results recorded for one hand."""
        rows = self._db.execute(
            "SELECT id, payload FROM results WHERE table_id = ? AND session = ? AND hand = ?",
            (table, session, hand),
        ).fetchall()
        return [(str(i), bytes(p)) for i, p in rows]

    def set_audit(self, result_id: str, audit: str) -> None:
        """Change the audit verdict of a recorded result."""
        self._db.execute("UPDATE results SET audit = ? WHERE id = ?", (audit, result_id))

    def add_refusal(self, table: str, result_id: str | None, reason: str, now: float) -> None:
        """Remember a result that was refused and why."""
        self._db.execute(
            "INSERT INTO refusals VALUES (?, ?, ?, ?)", (now, table, result_id, reason)
        )

    def refusals(self) -> list[tuple[str, str | None, str]]:
        """(table, result id, reason) of every refusal, oldest first."""
        rows = self._db.execute("SELECT table_id, id, reason FROM refusals ORDER BY at").fetchall()
        return [(str(t), i, str(r)) for t, i, r in rows]

    def set_status(self, table: str, payload: bytes, now: float) -> None:
        """Keep the latest status of a table."""
        self._db.execute("INSERT OR REPLACE INTO statuses VALUES (?, ?, ?)", (table, payload, now))

    def status(self, table: str) -> bytes | None:
        """The latest status payload of a table, if one was seen."""
        row = self._db.execute("SELECT payload FROM statuses WHERE table_id = ?", (table,))
        found = row.fetchone()
        return None if found is None else bytes(found[0])

    def add_reply(self, table: str, command: str | None, payload: bytes, now: float) -> None:
        """Keep a table's reply to a hub command."""
        self._db.execute("INSERT INTO replies VALUES (?, ?, ?, ?)", (table, command, payload, now))

    def replies(self, command: str) -> list[bytes]:
        """Replies received to one command."""
        rows = self._db.execute("SELECT payload FROM replies WHERE command = ?", (command,))
        return [bytes(p) for (p,) in rows.fetchall()]

    def first_gap(self, table: str, floor: int) -> tuple[int | None, int]:
        """(first missing seq above `floor`, highest seq) of a table's recorded results."""
        top = self._db.execute(
            "SELECT coalesce(max(seq), 0) FROM results WHERE table_id = ?", (table,)
        ).fetchone()[0]
        row = self._db.execute(
            "SELECT r.seq + 1 FROM results r WHERE r.table_id = ?1 AND r.seq >= ?2 "
            "AND r.seq < ?3 AND NOT EXISTS (SELECT 1 FROM results s "
            "WHERE s.table_id = ?1 AND s.seq = r.seq + 1) ORDER BY r.seq LIMIT 1",
            (table, floor, top),
        ).fetchone()
        return (None if row is None else int(row[0])), int(top)

    def count(self) -> int:
        """How many results are recorded."""
        return int(self._db.execute("SELECT count(*) FROM results").fetchone()[0])

    def results(self) -> Iterator[StoredResult]:
        """Every recorded result, by table, session and hand."""
        rows = self._db.execute(
            "SELECT id, table_id, seq, audit, payload FROM results "
            "ORDER BY table_id, session, hand, seq"
        )
        for i, t, s, a, p in rows:
            yield StoredResult(str(i), str(t), int(s), str(a), bytes(p))
