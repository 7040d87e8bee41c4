"""The recorder's store in PostgreSQL (psycopg 3): the same tables and the same exactly-once
rules as the SQLite file, so several venues' recorders can write to one league database.

Every write transaction first takes one advisory lock: two recorders then commit their batches
one after the other (a batch is a few milliseconds), never deadlock on each other's rows, and a
result delivered to both is inserted by the first and seen as a resend by the second (its id is
the primary key either way).
"""

from collections.abc import Sequence
from pathlib import Path
from types import TracebackType

from controller.errors import RuntimeFailure, UsageError
from controller.venue.store import Cursor, ResultStore
from controller.venue.store_sql import POSTGRES

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
CREATE TABLE IF NOT EXISTS director_entries (
    n BIGSERIAL PRIMARY KEY, at DOUBLE PRECISION NOT NULL, operator TEXT NOT NULL,
    payload TEXT NOT NULL);
"""


def is_postgres_url(spec: str) -> bool:
    """True when `--db` names a PostgreSQL database rather than a SQLite file."""
    return spec.startswith(("postgresql://", "postgres://"))


class PgStore(ResultStore):
    """The recorder's store in one PostgreSQL database: the SQLite store's interface and
    queries (store_sql), its own schema, connection and transactions."""

    dialect = POSTGRES

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

    def _run(self, query: str, params: Sequence[object] = ()) -> Cursor:
        """Run one of the store's queries (store_sql) on PostgreSQL."""
        return self._pg.execute(self.dialect.sql(query), params)

    def _q(self, statement: str) -> None:
        self._pg.execute(statement)

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
