"""The outbox's SQLite file (WAL, synchronous=FULL): results until the hub acks them, the
queued status and events, replies already given, and the counters that survive restarts.

Only one thread uses an OutboxFile at a time (the outbox's writer); the loop never waits on it
except where the table must know a result is on disk.
"""

import sqlite3
import uuid
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from controller.durable import add_columns, open_durable
from controller.errors import RuntimeFailure

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS identity (id TEXT NOT NULL, created REAL NOT NULL);
CREATE TABLE IF NOT EXISTS results (
    seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, payload BLOB NOT NULL,
    created REAL NOT NULL, acked REAL);
CREATE INDEX IF NOT EXISTS results_pending ON results (seq) WHERE acked IS NULL;
CREATE TABLE IF NOT EXISTS refusals (at REAL NOT NULL, seq INTEGER NOT NULL, reason TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS feed (
    n INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL, topic TEXT NOT NULL,
    retain INTEGER NOT NULL, payload BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS replies (
    command TEXT PRIMARY KEY, payload BLOB NOT NULL, expires REAL NOT NULL);
"""
_RESULT_COLUMNS = {"refused": "TEXT", "refused_at": "REAL"}
PAGE_CACHE_KIB = 512
"""SQLite's page cache for the outbox (its default is 2 MiB): the file only grows during a
day, and what the table reads back (the pending results, the feed's head) is recent, so a
small cache bounds the daemon's memory early in a session at no cost (the OS caches the file)."""


@dataclass(frozen=True)
class PendingResult:
    """A result not yet acknowledged by the hub."""

    seq: int
    id: str
    payload: bytes


@dataclass(frozen=True)
class RefusedResult:
    """A result the hub refused: kept on disk, not sent again until someone asks."""

    seq: int
    id: str
    payload: bytes
    reason: str
    at: float


class FeedKind(StrEnum):
    """What a feed entry is; the value is the text stored in the file's `kind` column."""

    STATUS = "status"
    EVENT = "event"
    REPLY = "reply"


@dataclass(frozen=True)
class FeedItem:
    """A status, event or reply waiting to be published; `n` is its feed sequence number."""

    n: int
    kind: FeedKind
    topic: str
    retain: bool
    payload: bytes


@dataclass(frozen=True)
class Contents:
    """Everything the outbox holds that is not yet done, as read at start."""

    pending: list[PendingResult]
    refused: list[RefusedResult]
    feed: list[FeedItem]
    feed_seq: int
    dropped: int


class OutboxFile:
    """SQL on one outbox file; every method that writes runs inside `transaction()`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self._db = open_durable(path, _SCHEMA, any_thread=True)
            self._db.execute(f"PRAGMA cache_size=-{PAGE_CACHE_KIB}")
            add_columns(self._db, "results", _RESULT_COLUMNS)
        except sqlite3.Error as exc:
            raise RuntimeFailure(f"outbox {path}: {exc}") from exc

    def close(self) -> None:
        """Close the file; everything committed is already on disk."""
        self._db.close()

    def trace(self, watch: Callable[[str], None] | None) -> None:
        """Show every SQL statement to `watch`, in the thread that runs it (None: stop)."""
        self._db.set_trace_callback(watch)

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """BEGIN IMMEDIATE ... COMMIT, or ROLLBACK when the block raises."""
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            if self._db.in_transaction:  # SQLite ends it itself on some errors (disk full)
                self._db.execute("ROLLBACK")
            raise
        try:
            self._db.execute("COMMIT")
        except BaseException:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            raise

    def get(self, key: str) -> int:
        """A counter (0 if never set)."""
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return int(row[0]) if row else 0

    def put(self, key: str, value: int) -> None:
        """Set a counter."""
        self._db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    def bump(self, key: str, by: int = 1) -> int:
        """Increase a counter and return its new value."""
        value = self.get(key) + by
        self.put(key, value)
        return value

    def has_identity(self) -> bool:
        """Whether the file already has its id (False: it was created just now)."""
        return self._db.execute("SELECT 1 FROM identity").fetchone() is not None

    def identity(self, now: float) -> str:
        """The outbox's random id, made when the file was created (a new file: a new id)."""
        row = self._db.execute("SELECT id FROM identity").fetchone()
        if row is not None:
            return str(row[0])
        made = uuid.uuid4().hex
        self._db.execute("INSERT INTO identity VALUES (?, ?)", (made, now))
        return made

    def contents(self) -> Contents:
        """Unacknowledged results, refused ones apart, and the queued feed."""
        rows = self._db.execute(
            "SELECT seq, id, payload, refused, refused_at FROM results WHERE acked IS NULL "
            "ORDER BY seq"
        ).fetchall()
        pending = [PendingResult(int(s), str(i), bytes(p)) for s, i, p, r, _ in rows if r is None]
        refused = [
            RefusedResult(int(s), str(i), bytes(p), str(r), float(a or 0))
            for s, i, p, r, a in rows
            if r is not None
        ]
        feed = [
            FeedItem(int(n), FeedKind(str(k)), str(t), bool(r), bytes(p))
            for n, k, t, r, p in self._db.execute(
                "SELECT n, kind, topic, retain, payload FROM feed ORDER BY n"
            )
        ]
        return Contents(pending, refused, feed, self.get("feed_seq"), self.get("dropped"))

    # --- results ------------------------------------------------------------------------------

    def insert_result(self, seq: int, result_id: str, payload: bytes, now: float) -> None:
        """Store a new result."""
        self._db.execute(
            "INSERT INTO results (seq, id, payload, created) VALUES (?, ?, ?, ?)",
            (seq, result_id, payload, now),
        )

    def mark_acked(self, ids: Iterable[str], now: float) -> int:
        """Record the hub's acknowledgement of these ids; returns how many were new."""
        return sum(
            self._db.execute(
                "UPDATE results SET acked = ?, refused = NULL WHERE id = ? AND acked IS NULL",
                (now, i),
            ).rowcount
            for i in ids
        )

    def prune_acked(self, keep: int) -> int:
        """Forget all but the newest `keep` acknowledged results; returns how many went."""
        return self._db.execute(
            "DELETE FROM results WHERE acked IS NOT NULL AND seq NOT IN "
            "(SELECT seq FROM results WHERE acked IS NOT NULL ORDER BY seq DESC LIMIT ?)",
            (keep,),
        ).rowcount

    def count_acked(self) -> int:
        """How many acknowledged results the file still holds."""
        return int(
            self._db.execute("SELECT count(*) FROM results WHERE acked IS NOT NULL").fetchone()[0]
        )

    def mark_refused(self, result_id: str, reason: str, now: float) -> None:
        """Keep the hub's refusal with the result, and in the refusal history."""
        self._db.execute(
            "UPDATE results SET refused = ?, refused_at = ? WHERE id = ? AND acked IS NULL",
            (reason, now, result_id),
        )
        self._db.execute(
            "INSERT INTO refusals SELECT ?, seq, ? FROM results WHERE id = ?",
            (now, reason, result_id),
        )

    def reopen_acked(self, since: int, until: int | None) -> list[PendingResult]:
        """Make acknowledged results in [since, until] pending again (the hub asked)."""
        where = "acked IS NOT NULL AND seq >= ? AND seq <= ?"
        span = (since, _top(until))
        rows = self._db.execute(
            f"SELECT seq, id, payload FROM results WHERE {where} ORDER BY seq", span
        ).fetchall()
        self._db.execute(f"UPDATE results SET acked = NULL WHERE {where}", span)
        return [PendingResult(int(s), str(i), bytes(p)) for s, i, p in rows]

    def retry_refused(
        self, since: int, until: int | None, resign: Callable[[bytes], bytes]
    ) -> list[PendingResult]:
        """Make refused results in [since, until] pending again, re-signed with `resign`."""
        rows = self._db.execute(
            "SELECT seq, id, payload FROM results WHERE refused IS NOT NULL AND acked IS NULL "
            "AND seq >= ? AND seq <= ? ORDER BY seq",
            (since, _top(until)),
        ).fetchall()
        retried = [PendingResult(int(s), str(i), resign(bytes(p))) for s, i, p in rows]
        for r in retried:
            self._db.execute(
                "UPDATE results SET refused = NULL, refused_at = NULL, payload = ? WHERE seq = ?",
                (r.payload, r.seq),
            )
        return retried

    def replace_payload(self, seq: int, payload: bytes) -> None:
        """Store a pending result's payload signed anew (same id, same contents)."""
        self._db.execute("UPDATE results SET payload = ? WHERE seq = ?", (payload, seq))

    def oldest_seq(self) -> int | None:
        """The oldest result sequence number still held."""
        found = self._db.execute("SELECT min(seq) FROM results").fetchone()[0]
        return None if found is None else int(found)

    # --- the feed and replies -----------------------------------------------------------------

    def insert_feed(self, item: FeedItem) -> None:
        """Queue a status, event or reply."""
        self._db.execute(
            "INSERT INTO feed (n, kind, topic, retain, payload) VALUES (?, ?, ?, ?, ?)",
            (item.n, item.kind, item.topic, int(item.retain), item.payload),
        )

    def delete_feed(self, ns: Iterable[int]) -> None:
        """Forget feed entries (published, replaced or dropped)."""
        self._db.executemany("DELETE FROM feed WHERE n = ?", [(n,) for n in ns])

    def remember_reply(self, command: str, payload: bytes, expires: float) -> None:
        """Keep the reply to a command until it expires."""
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
        self._db.execute("DELETE FROM replies WHERE expires < ?", (now,))


def _top(until: int | None) -> int:
    return until if until is not None else 2**62
