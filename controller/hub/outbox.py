"""The durable outbox: results wait here (SQLite, WAL, synchronous=FULL) until the hub acks
their id; status, events and replies wait in a bounded feed that drops its oldest entries.

Sequence numbers and the boot counter live in the same file, so they survive restarts, and a
result, its sequence number and its payload are written in one transaction.
"""

import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from controller.errors import RuntimeFailure
from controller.hub.durable import open_durable

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS results (
    seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, payload BLOB NOT NULL,
    created REAL NOT NULL, acked REAL);
CREATE INDEX IF NOT EXISTS results_pending ON results (seq) WHERE acked IS NULL;
CREATE TABLE IF NOT EXISTS feed (
    n INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL, topic TEXT NOT NULL,
    retain INTEGER NOT NULL, payload BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS replies (
    command TEXT PRIMARY KEY, payload BLOB NOT NULL, expires REAL NOT NULL);
"""


@dataclass(frozen=True)
class PendingResult:
    """A result not yet acknowledged by the hub."""

    seq: int
    id: str
    payload: bytes


@dataclass(frozen=True)
class FeedItem:
    """A status, event or reply waiting to be published."""

    n: int
    kind: str
    topic: str
    retain: bool
    payload: bytes


class Outbox:
    """One table's outbox file; opening it starts a new boot."""

    def __init__(self, path: Path, *, max_feed: int = 1000, keep_acked: int = 10_000) -> None:
        self.path = path
        self.max_feed = max_feed
        self.keep_acked = keep_acked
        try:
            self._db = open_durable(path, _SCHEMA)
            with self._write():
                self.boot = self._bump("boot")
            self._acked = self._count("acked IS NOT NULL")
        except sqlite3.Error as exc:
            raise RuntimeFailure(f"outbox {path}: {exc}") from exc

    def close(self) -> None:
        """Close the file; everything committed is already on disk."""
        self._db.close()

    def _write(self) -> "_Transaction":
        return _Transaction(self._db)

    def _get(self, key: str) -> int:
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return int(row[0]) if row else 0

    def _bump(self, key: str, by: int = 1) -> int:
        value = self._get(key) + by
        self._db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))
        return value

    def add_result(self, build: Callable[[int], tuple[str, bytes]], now: float) -> int:
        """Give the next result sequence number to `build(seq) -> (id, payload)` and store the
        result durably; returns the sequence number once it is on disk."""
        with self._write():
            seq = self._bump("result_seq")
            result_id, payload = build(seq)
            self._db.execute(
                "INSERT INTO results (seq, id, payload, created) VALUES (?, ?, ?, ?)",
                (seq, result_id, payload, now),
            )
        return seq

    def pending_results(self, limit: int, after_seq: int = 0) -> list[PendingResult]:
        """Unacknowledged results in sequence order."""
        rows = self._db.execute(
            "SELECT seq, id, payload FROM results WHERE acked IS NULL AND seq > ? "
            "ORDER BY seq LIMIT ?",
            (after_seq, limit),
        ).fetchall()
        return [PendingResult(int(s), str(i), bytes(p)) for s, i, p in rows]

    def pending_count(self) -> int:
        """How many results the hub has not acknowledged yet."""
        return self._count("acked IS NULL")

    def _count(self, condition: str) -> int:
        query = f"SELECT count(*) FROM results WHERE {condition}"
        return int(self._db.execute(query).fetchone()[0])

    def mark_acked(self, ids: Iterable[str], now: float) -> int:
        """Record the hub's acknowledgement of these result ids; returns how many were new."""
        id_list = list(ids)
        with self._write():
            changed = sum(
                self._db.execute(
                    "UPDATE results SET acked = ? WHERE id = ? AND acked IS NULL", (now, i)
                ).rowcount
                for i in id_list
            )
            self._acked += changed
            self._prune_acked()
        return changed

    def _prune_acked(self) -> None:
        # Pruning scans the acked results, so it runs only once they exceed the limit by 10%.
        if self._acked <= self.keep_acked + self.keep_acked // 10:
            return
        self._acked -= self._db.execute(
            "DELETE FROM results WHERE acked IS NOT NULL AND seq NOT IN "
            "(SELECT seq FROM results WHERE acked IS NOT NULL ORDER BY seq DESC LIMIT ?)",
            (self.keep_acked,),
        ).rowcount

    def reopen_since(self, seq: int) -> tuple[int, int | None]:
        """Make acknowledged results from `seq` on pending again (the hub asked for them);
        returns how many, and the oldest sequence number still held."""
        with self._write():
            reopened = self._db.execute(
                "UPDATE results SET acked = NULL WHERE seq >= ? AND acked IS NOT NULL", (seq,)
            ).rowcount
            self._acked -= reopened
        oldest = self._db.execute("SELECT min(seq) FROM results").fetchone()[0]
        return reopened, None if oldest is None else int(oldest)

    def add_feed(
        self, kind: str, topic: str, build: Callable[[int], bytes], *, retain: bool = False
    ) -> None:
        """Queue a status, event or reply; a new status replaces any status still queued, and
        past `max_feed` entries the oldest are dropped and counted."""
        with self._write():
            payload = build(self._bump("feed_seq"))
            if kind == "status":
                self._db.execute("DELETE FROM feed WHERE kind = 'status'")
            self._db.execute(
                "INSERT INTO feed (kind, topic, retain, payload) VALUES (?, ?, ?, ?)",
                (kind, topic, int(retain), payload),
            )
            self._drop_over_limit()

    def _drop_over_limit(self) -> None:
        excess = int(self._db.execute("SELECT count(*) FROM feed").fetchone()[0]) - self.max_feed
        if excess > 0:
            self._db.execute(
                "DELETE FROM feed WHERE n IN (SELECT n FROM feed ORDER BY n LIMIT ?)", (excess,)
            )
            self._bump("dropped", excess)

    def next_feed_seq(self) -> int:
        """Take a feed sequence number for a message that is not queued (the last will)."""
        with self._write():
            return self._bump("feed_seq")

    def feed_head(self, limit: int) -> list[FeedItem]:
        """The oldest queued feed entries."""
        rows = self._db.execute(
            "SELECT n, kind, topic, retain, payload FROM feed ORDER BY n LIMIT ?", (limit,)
        ).fetchall()
        return [FeedItem(int(n), str(k), str(t), bool(r), bytes(p)) for n, k, t, r, p in rows]

    def remove_feed(self, n: int) -> None:
        """Forget a feed entry once the broker has it."""
        with self._write():
            self._db.execute("DELETE FROM feed WHERE n = ?", (n,))

    @property
    def dropped(self) -> int:
        """Feed entries dropped since the outbox was created."""
        return self._get("dropped")

    def remember_reply(self, command: str, payload: bytes, expires: float) -> None:
        """Keep the reply to a command until it expires, so a repeat gets the same answer."""
        with self._write():
            self._db.execute(
                "INSERT OR REPLACE INTO replies VALUES (?, ?, ?)", (command, payload, expires)
            )

    def recall_reply(self, command: str) -> bytes | None:
        """The reply already given to `command`, if any."""
        row = self._db.execute(
            "SELECT payload FROM replies WHERE command = ?", (command,)
        ).fetchone()
        return None if row is None else bytes(row[0])

    def forget_replies(self, now: float) -> None:
        """Forget replies to commands that have expired."""
        with self._write():
            self._db.execute("DELETE FROM replies WHERE expires < ?", (now,))


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT, or ROLLBACK when the block raises."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def __enter__(self) -> None:
        self._db.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: object, value: object, tb: object) -> None:
        self._db.execute("ROLLBACK" if kind else "COMMIT")
