"""The store's one schema and its migrations: a store made by every earlier version (their
schemas copied here as those versions wrote them) opens with its results, refusals and counters
kept, and records on; the schema is the same on both engines; a newer store is refused."""

import sqlite3
from collections.abc import Callable
from pathlib import Path

import psycopg
import pytest

from controller.clock import ManualClock
from controller.errors import RuntimeFailure
from controller.hub.contract.envelopes import ResultMessage, encode, new_header
from controller.hub.contract.signing import TableKey
from controller.venue.store import ResultStore, open_store
from controller.venue.store_schema import LATEST, VERSION_KEY
from tests.hub.factories import KEY_TEXT, hand_result
from tests.venue.postgres import PgCluster

# The first store (until the outbox id came into every message): no outbox columns.
SQLITE_FIRST = """
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
# Outboxes, notices and presence, with columns added by hand when opened (no version number).
SQLITE_UNNUMBERED = (
    SQLITE_FIRST
    + """
CREATE TABLE IF NOT EXISTS sources (
    table_id TEXT NOT NULL, outbox TEXT NOT NULL, first_seen REAL NOT NULL,
    PRIMARY KEY (table_id, outbox));
CREATE TABLE IF NOT EXISTS notices (
    at REAL NOT NULL, table_id TEXT NOT NULL, kind TEXT NOT NULL, text TEXT NOT NULL,
    UNIQUE (table_id, kind, text));
CREATE TABLE IF NOT EXISTS presence (
    table_id TEXT PRIMARY KEY, heard REAL, offline_at REAL, by_will INTEGER NOT NULL DEFAULT 0);
ALTER TABLE results ADD COLUMN outbox TEXT NOT NULL DEFAULT '';
ALTER TABLE refusals ADD COLUMN outbox TEXT;
ALTER TABLE refusals ADD COLUMN seq INTEGER;
CREATE INDEX IF NOT EXISTS results_by_source ON results (table_id, outbox, seq);
CREATE INDEX IF NOT EXISTS refusals_by_source ON refusals (table_id, outbox, seq);
"""
)
# The PostgreSQL store as its first version wrote it (its own schema text, no version number).
PG_UNNUMBERED = """
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
OUTBOX = "cd" * 16


def _result(hand: int) -> tuple[ResultMessage, bytes]:
    head = new_header("t1", 1, hand, ManualClock(), OUTBOX)
    message = TableKey(KEY_TEXT).sign(ResultMessage(result=hand_result(hand), **head))
    return message, encode(message)


OLD_ROWS = [
    "INSERT INTO meta VALUES ('boot', 3)",
    "INSERT INTO meta VALUES ('seq', 40)",
    "INSERT INTO results (id, table_id, boot, seq, session, hand, ruleset, ended_at, audit, "
    "received, payload) VALUES ('old1', 't1', 1, 1, 's0', 1, 'zung-jung', '2026-01-01', 'ok', "
    "1.0, X'78')",
    "INSERT INTO refusals (at, table_id, id, reason) VALUES (2.0, 't1', 'bad1', 'bad signature')",
]


def _sqlite_store(schema: str) -> Callable[[Path], str]:
    def make(tmp_path: Path) -> str:
        path = tmp_path / "old.sqlite3"
        with sqlite3.connect(path) as db:
            db.executescript(schema)
            for row in OLD_ROWS:
                db.execute(row)
        return str(path)

    return make


def _pg_store(tmp_path: Path, pg: PgCluster) -> str:
    url = pg.new_database()
    with psycopg.connect(url, autocommit=True) as db:
        db.execute(PG_UNNUMBERED)
        for row in OLD_ROWS:
            db.execute(row.replace("X'78'", "'\\x78'::bytea"))
    return url


EARLIER = {
    "sqlite-first": _sqlite_store(SQLITE_FIRST),
    "sqlite-unnumbered": _sqlite_store(SQLITE_UNNUMBERED),
}


@pytest.fixture(params=[*EARLIER, "postgresql-unnumbered"])
def earlier_store(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param in EARLIER:
        return EARLIER[request.param](tmp_path)
    return _pg_store(tmp_path, request.getfixturevalue("pg_cluster"))


def test_a_store_of_every_earlier_version_opens_with_what_it_held(earlier_store: str) -> None:
    store = open_store(earlier_store)
    try:
        assert store.schema_version() == LATEST
        assert [s.id for s in store.results()] == ["old1"]
        assert store.refusals() == [("t1", "bad1", "bad signature")]
        assert store.bump("boot") == 4 and store.bump("seq") == 41
        message, payload = _result(2)
        with store:
            assert store.add_result(message, payload, "ok", 3.0)
            store.add_refusal("t1", "bad2", "bad signature", 4.0, (OUTBOX, 1))
            store.add_notice("t1", "outbox_reset", "new outbox", 4.0)
            store.add_source("t1", OUTBOX, 4.0)
        assert store.top_seq("t1", OUTBOX) == 2 and store.refused_seqs("t1", OUTBOX) == [1]
        assert store.first_gap("t1", OUTBOX, 0) == (None, 2)
        assert store.outboxes("t1") == [OUTBOX]
        assert store.count() == 2
    finally:
        store.close()
    again = open_store(earlier_store)  # opening again changes nothing
    assert again.schema_version() == LATEST and again.count() == 2
    again.close()


def _shape(store: ResultStore) -> dict[str, set[str]]:
    engine = store.engine
    return {t: engine.columns(t) - {"n"} for t in engine.tables()}


def test_both_engines_get_the_same_tables_and_columns(
    tmp_path: Path, pg_cluster: PgCluster
) -> None:
    sqlite, pg = open_store(str(tmp_path / "new.sqlite3")), open_store(pg_cluster.new_database())
    try:
        assert _shape(sqlite) == _shape(pg)
        assert sqlite.schema_version() == pg.schema_version() == LATEST
    finally:
        sqlite.close()
        pg.close()


def test_a_store_made_by_a_newer_version_is_refused(store_spec: str) -> None:
    store = open_store(store_spec)
    store.bump(VERSION_KEY)
    store.close()
    with pytest.raises(RuntimeFailure, match="made by a newer mahjong-table"):
        open_store(store_spec)
