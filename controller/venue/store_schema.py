"""The recorder store's schema, written once for both engines, as a numbered list of migrations.

A store records the number of the last migration applied (`meta.schema_version`); opening it
applies the later ones in one transaction. Stores made before the numbering have no version:
their tables tell which migrations they already had (`found_version`).

In the text, `{int}`, `{real}` and `{blob}` are the engine's column types and `{arrival}` the
column that orders rows as they were added, where the engine needs one (PostgreSQL's serial
column `n`; SQLite has its rowid). `fill` puts them in.
"""

from dataclasses import dataclass

MIGRATIONS: tuple[str, ...] = (
    # 1: the first store (results, commitments, refusals, statuses, replies).
    """
    CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value {int} NOT NULL);
    CREATE TABLE IF NOT EXISTS results (
        id TEXT PRIMARY KEY, table_id TEXT NOT NULL, boot {int} NOT NULL, seq {int} NOT NULL,
        session TEXT NOT NULL, hand INTEGER NOT NULL, ruleset TEXT NOT NULL,
        ended_at TEXT NOT NULL, audit TEXT NOT NULL, received {real} NOT NULL,
        payload {blob} NOT NULL);
    CREATE INDEX IF NOT EXISTS results_by_seq ON results (table_id, seq);
    CREATE INDEX IF NOT EXISTS results_by_hand ON results (table_id, session, hand);
    CREATE TABLE IF NOT EXISTS commitments (
        table_id TEXT NOT NULL, session TEXT NOT NULL, hand INTEGER NOT NULL,
        commitment TEXT NOT NULL, seen {real} NOT NULL, PRIMARY KEY (table_id, session, hand));
    CREATE TABLE IF NOT EXISTS refusals (
        {arrival}at {real} NOT NULL, table_id TEXT NOT NULL, id TEXT, reason TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS statuses (
        table_id TEXT PRIMARY KEY, payload {blob} NOT NULL, updated {real} NOT NULL);
    CREATE TABLE IF NOT EXISTS replies (
        table_id TEXT NOT NULL, command TEXT, payload {blob} NOT NULL, received {real} NOT NULL);
    """,
    # 2: results and refusals name their outbox; outboxes, notices and presence per table.
    """
    ALTER TABLE results ADD COLUMN outbox TEXT NOT NULL DEFAULT '';
    ALTER TABLE refusals ADD COLUMN outbox TEXT;
    ALTER TABLE refusals ADD COLUMN seq {int};
    CREATE INDEX IF NOT EXISTS results_by_source ON results (table_id, outbox, seq);
    CREATE INDEX IF NOT EXISTS refusals_by_source ON refusals (table_id, outbox, seq);
    CREATE TABLE IF NOT EXISTS sources (
        {arrival}table_id TEXT NOT NULL, outbox TEXT NOT NULL, first_seen {real} NOT NULL,
        PRIMARY KEY (table_id, outbox));
    CREATE TABLE IF NOT EXISTS notices (
        {arrival}at {real} NOT NULL, table_id TEXT NOT NULL, kind TEXT NOT NULL,
        text TEXT NOT NULL, UNIQUE (table_id, kind, text));
    CREATE TABLE IF NOT EXISTS presence (
        table_id TEXT PRIMARY KEY, heard {real}, offline_at {real},
        by_will INTEGER NOT NULL DEFAULT 0);
    """,
    # 3: the tournament director's entries (forfeits, penalties, corrections, substitutes,
    # overrides): an append-only audit trail, each entry its JSON.
    """
    CREATE TABLE IF NOT EXISTS director_entries (
        {arrival}at {real} NOT NULL, operator TEXT NOT NULL, payload TEXT NOT NULL);
    """,
)
LATEST = len(MIGRATIONS)
VERSION_KEY = "schema_version"


@dataclass(frozen=True)
class SchemaTypes:
    """One engine's words for what the schema text leaves open."""

    int: str
    real: str
    blob: str
    arrival: str


def fill(migration: str, types: SchemaTypes) -> list[str]:
    """One migration as the engine's statements, one by one."""
    text = migration.format(int=types.int, real=types.real, blob=types.blob, arrival=types.arrival)
    return [s.strip() for s in text.split(";") if s.strip()]


def found_version(tables: set[str], result_columns: set[str]) -> int:
    """The migrations a store made before the numbering already had, from its tables."""
    if "results" not in tables:
        return 0
    return 2 if "outbox" in result_columns else 1
