"""The recorder's store in PostgreSQL (psycopg 3): the same tables and the same exactly-once
rules as the SQLite file, so several venues' recorders can write to one league database.

Every write transaction first takes one advisory lock: two recorders then commit their batches
one after the other (a batch is a few milliseconds), never deadlock on each other's rows, and a
result delivered to both is inserted by the first and seen as a resend by the second (its id is
the primary key either way).
"""

from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import Any

from controller.errors import RuntimeFailure, UsageError
from controller.hub.contract.envelopes import ResultMessage
from controller.hub.venue.store import Notice, Presence, ResultStore, StoredResult

# One lock id for every recorder writing to this database ("mjtb" in ASCII).
_WRITE_LOCK = 0x6D6A7462

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value BIGINT NOT NULL);
CREATE TABLE IF NOT EXISTS results (
    id TEXT PRIMARY KEY, table_id TEXT NOT NULL, boot BIGINT NOT NULL, seq BIGINT NOT NULL,
    session TEXT NOT NULL, hand INTEGER NOT NULL, ruleset TEXT NOT NULL,
    ended_at TEXT NOT NULL, audit TEXT NOT NULL, received DOUBLE PRECISION NOT NULL,
    payload BYTEA NOT NULL, outbox TEXT NOT NULL DEFAULT '');
CREATE INDEX IF NOT EXISTS results_by_seq ON results (table_id, seq);
CREATE INDEX IF NOT EXISTS results_by_hand ON results (table_id, session, hand);
CREATE INDEX IF NOT EXISTS results_by_source ON results (table_id, outbox, seq);
CREATE TABLE IF NOT EXISTS commitments (
    table_id TEXT NOT NULL, session TEXT NOT NULL, hand INTEGER NOT NULL,
    commitment TEXT NOT NULL, seen DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (table_id, session, hand));
CREATE TABLE IF NOT EXISTS refusals (
    n BIGSERIAL PRIMARY KEY, at DOUBLE PRECISION NOT NULL, table_id TEXT NOT NULL, id TEXT,
    reason TEXT NOT NULL, outbox TEXT, seq BIGINT);
CREATE INDEX IF NOT EXISTS refusals_by_source ON refusals (table_id, outbox, seq);
CREATE TABLE IF NOT EXISTS statuses (
    table_id TEXT PRIMARY KEY, payload BYTEA NOT NULL, updated DOUBLE PRECISION NOT NULL);
CREATE TABLE IF NOT EXISTS replies (
    table_id TEXT NOT NULL, command TEXT, payload BYTEA NOT NULL,
    received DOUBLE PRECISION NOT NULL);
CREATE TABLE IF NOT EXISTS sources (
    n BIGSERIAL, table_id TEXT NOT NULL, outbox TEXT NOT NULL,
    first_seen DOUBLE PRECISION NOT NULL, PRIMARY KEY (table_id, outbox));
CREATE TABLE IF NOT EXISTS notices (
    n BIGSERIAL, at DOUBLE PRECISION NOT NULL, table_id TEXT NOT NULL, kind TEXT NOT NULL,
    text TEXT NOT NULL, UNIQUE (table_id, kind, text));
CREATE TABLE IF NOT EXISTS presence (
    table_id TEXT PRIMARY KEY, heard DOUBLE PRECISION, offline_at DOUBLE PRECISION,
    by_will INTEGER NOT NULL DEFAULT 0);
"""


def is_postgres_url(spec: str) -> bool:
    """True when `--db` names a PostgreSQL database rather than a SQLite file."""
    return spec.startswith(("postgresql://", "postgres://"))


class PgStore(ResultStore):
    """The recorder's store in one PostgreSQL database (the SQLite store's interface)."""

    def __init__(self, url: str) -> None:
        try:
            import psycopg  # only a league database needs it
        except ImportError as exc:
            raise UsageError(
                "a PostgreSQL store needs psycopg 3: pip install 'mahjong-table[venue]'"
            ) from exc
        self.path = Path(url.split("@")[-1])  # where, without the password
        self._depth = 0
        try:
            self._pg = psycopg.connect(url, autocommit=True)
            self._pg.execute(f"SELECT pg_advisory_lock({_WRITE_LOCK})")
            try:
                self._pg.execute(_SCHEMA)
            finally:
                self._pg.execute(f"SELECT pg_advisory_unlock({_WRITE_LOCK})")
        except psycopg.Error as exc:
            raise RuntimeFailure(f"results store {self.path}: {exc}") from exc

    def _q(self, sql: str, params: Any = ()) -> Any:
        return self._pg.execute(sql, params)

    def close(self) -> None:
        """Close the connection."""
        self._pg.close()

    def __enter__(self) -> "PgStore":
        self._q("BEGIN")
        self._q(f"SELECT pg_advisory_xact_lock({_WRITE_LOCK})")
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._q("ROLLBACK" if kind else "COMMIT")

    def reserve(self, key: str, count: int) -> int:
        """Inside a transaction: take `count` numbers of a counter; returns the first."""
        row = self._q(
            "INSERT INTO meta VALUES (%s, %s) ON CONFLICT (key) "
            "DO UPDATE SET value = meta.value + excluded.value RETURNING value",
            (key, count),
        ).fetchone()
        return int(row[0]) - count + 1

    def add_result(self, message: ResultMessage, payload: bytes, audit: str, now: float) -> bool:
        """Record a verified result; False if its id is already recorded (a resend)."""
        r = message.result
        cursor = self._q(
            "INSERT INTO results (id, table_id, boot, seq, session, hand, ruleset, ended_at, "
            "audit, received, payload, outbox) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, "
            "%s, %s) ON CONFLICT (id) DO NOTHING",
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
                message.outbox or "",
            ),
        )
        return bool(cursor.rowcount == 1)

    def hands_without_result(self, table: str) -> list[tuple[str, int]]:
        """(session, hand) of every hand of `table` whose wall commitment was seen but whose
        result never arrived, in the order they started."""
        rows = self._q(
            "SELECT session, hand FROM commitments c WHERE table_id = %s AND NOT EXISTS "
            "(SELECT 1 FROM results r WHERE r.table_id = c.table_id AND r.session = c.session "
            "AND r.hand = c.hand) ORDER BY seen, session, hand",
            (table,),
        ).fetchall()
        return [(str(session), int(hand)) for session, hand in rows]

    def commitment(self, table: str, session: str, hand: int) -> str | None:
        """The wall commitment seen at the start of a hand, if it was seen."""
        row = self._q(
            "SELECT commitment FROM commitments WHERE table_id = %s AND session = %s AND hand = %s",
            (table, session, hand),
        ).fetchone()
        return None if row is None else str(row[0])

    def add_commitment(self, table: str, session: str, hand: int, value: str, now: float) -> bool:
        """Keep the first commitment of a hand; False if one was already kept."""
        cursor = self._q(
            "INSERT INTO commitments VALUES (%s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
            (table, session, hand, value, now),
        )
        return bool(cursor.rowcount == 1)

    def hand_results(self, table: str, session: str, hand: int) -> list[tuple[str, bytes]]:
        """(id, payload) of the results recorded for one hand."""
        rows = self._q(
            "SELECT id, payload FROM results WHERE table_id = %s AND session = %s AND hand = %s",
            (table, session, hand),
        ).fetchall()
        return [(str(i), bytes(p)) for i, p in rows]

    def set_audit(self, result_id: str, audit: str) -> None:
        """Change the audit verdict of a recorded result."""
        self._q("UPDATE results SET audit = %s WHERE id = %s", (audit, result_id))

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
        self._q(
            "INSERT INTO refusals (at, table_id, id, reason, outbox, seq) "
            "VALUES (%s, %s, %s, %s, %s, %s)",
            (now, table, result_id, reason, outbox, seq),
        )

    def refusals(self) -> list[tuple[str, str | None, str]]:
        """(table, result id, reason) of every refusal, oldest first."""
        rows = self._q("SELECT table_id, id, reason FROM refusals ORDER BY at, n").fetchall()
        return [(str(t), i, str(r)) for t, i, r in rows]

    def set_status(self, table: str, payload: bytes, now: float) -> None:
        """Keep the latest status of a table."""
        self._q(
            "INSERT INTO statuses VALUES (%s, %s, %s) ON CONFLICT (table_id) "
            "DO UPDATE SET payload = excluded.payload, updated = excluded.updated",
            (table, payload, now),
        )

    def status(self, table: str) -> bytes | None:
        """The latest status payload of a table, if one was seen."""
        found = self._q("SELECT payload FROM statuses WHERE table_id = %s", (table,)).fetchone()
        return None if found is None else bytes(found[0])

    def add_reply(self, table: str, command: str | None, payload: bytes, now: float) -> None:
        """Keep a table's reply to a hub command."""
        self._q("INSERT INTO replies VALUES (%s, %s, %s, %s)", (table, command, payload, now))

    def replies(self, command: str) -> list[bytes]:
        """Replies received to one command."""
        rows = self._q("SELECT payload FROM replies WHERE command = %s", (command,)).fetchall()
        return [bytes(p) for (p,) in rows]

    def first_gap(self, table: str, outbox: str, floor: int) -> tuple[tuple[int, int] | None, int]:
        """(first hole above `floor` as (first, last) missing seq, highest seq seen) among the
        results of one outbox; a refused result fills its place (it came, it was refused)."""
        rows = self._q(
            "SELECT seq FROM results WHERE table_id = %(t)s AND outbox = %(o)s AND seq > %(f)s "
            "UNION SELECT seq FROM refusals WHERE table_id = %(t)s AND outbox = %(o)s "
            "AND seq > %(f)s ORDER BY seq",
            {"t": table, "o": outbox, "f": floor},
        ).fetchall()
        expected = floor + 1
        for (seq,) in rows:
            if seq > expected:
                return (expected, int(seq) - 1), int(seq)
            expected = int(seq) + 1
        return None, expected - 1

    def top_seq(self, table: str, outbox: str) -> int:
        """The highest result seq recorded from one outbox of a table (0: none)."""
        row = self._q(
            "SELECT coalesce(max(seq), 0) FROM results WHERE table_id = %s AND outbox = %s",
            (table, outbox),
        ).fetchone()
        return int(row[0])

    def refused_seqs(self, table: str, outbox: str) -> list[int]:
        """Seqs of one outbox that were refused and are still not recorded."""
        rows = self._q(
            "SELECT DISTINCT seq FROM refusals WHERE table_id = %(t)s AND outbox = %(o)s "
            "AND seq IS NOT NULL AND seq NOT IN (SELECT seq FROM results WHERE "
            "table_id = %(t)s AND outbox = %(o)s) ORDER BY seq",
            {"t": table, "o": outbox},
        ).fetchall()
        return [int(seq) for (seq,) in rows]

    def outboxes(self, table: str) -> list[str]:
        """The outbox ids a table has used, oldest first."""
        rows = self._q(
            "SELECT outbox FROM sources WHERE table_id = %s ORDER BY first_seen, n", (table,)
        ).fetchall()
        return [str(o) for (o,) in rows]

    def add_source(self, table: str, outbox: str, now: float) -> None:
        """Remember an outbox a table uses."""
        self._q(
            "INSERT INTO sources (table_id, outbox, first_seen) VALUES (%s, %s, %s) "
            "ON CONFLICT DO NOTHING",
            (table, outbox, now),
        )

    def add_notice(self, table: str, kind: str, text: str, now: float) -> bool:
        """Keep a notice for the venue; False if the same one is already kept."""
        cursor = self._q(
            "INSERT INTO notices (at, table_id, kind, text) VALUES (%s, %s, %s, %s) "
            "ON CONFLICT DO NOTHING",
            (now, table, kind, text),
        )
        return bool(cursor.rowcount == 1)

    def notices(self) -> list[Notice]:
        """Every notice, oldest first."""
        rows = self._q("SELECT at, table_id, kind, text FROM notices ORDER BY at, n").fetchall()
        return [Notice(float(a), str(t), str(k), str(x)) for a, t, k, x in rows]

    def heard(self, table: str, now: float) -> None:
        """The table itself sent something just now: it is alive."""
        self._q(
            "INSERT INTO presence (table_id, heard) VALUES (%s, %s) ON CONFLICT (table_id) "
            "DO UPDATE SET heard = excluded.heard, offline_at = NULL",
            (table, now),
        )

    def went_offline(self, table: str, at: float, by_will: bool) -> None:
        """The table said goodbye, or the broker published its will, at `at`."""
        self._q(
            "INSERT INTO presence (table_id, offline_at, by_will) VALUES (%s, %s, %s) "
            "ON CONFLICT (table_id) DO UPDATE SET offline_at = excluded.offline_at, "
            "by_will = excluded.by_will",
            (table, at, int(by_will)),
        )

    def presence(self) -> list[Presence]:
        """Every table the recorder has a status or a sign of life from, by table id."""
        rows = self._q(
            "SELECT t.table_id, p.heard, p.offline_at, coalesce(p.by_will, 0), s.payload FROM "
            "(SELECT table_id FROM presence UNION SELECT table_id FROM statuses) t "
            "LEFT JOIN presence p USING (table_id) LEFT JOIN statuses s USING (table_id) "
            "ORDER BY t.table_id"
        ).fetchall()
        return [
            Presence(str(t), h, o, bool(w), None if p is None else bytes(p))
            for t, h, o, w, p in rows
        ]

    def count(self) -> int:
        """How many results are recorded."""
        return int(self._q("SELECT count(*) FROM results").fetchone()[0])

    def results(self) -> Iterator[StoredResult]:
        """Every recorded result, by table, session and hand."""
        rows = self._q(
            "SELECT id, table_id, seq, audit, payload FROM results "
            "ORDER BY table_id, session, hand, seq"
        ).fetchall()
        for i, t, s, a, p in rows:
            yield StoredResult(str(i), str(t), int(s), str(a), bytes(p))
