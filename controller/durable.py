"""Opening the SQLite files that must survive kill -9 and power cuts (the table's outbox, the
venue's results store)."""

import sqlite3
from pathlib import Path


def open_durable(path: Path, schema: str, *, any_thread: bool = False) -> sqlite3.Connection:
    """Open (creating) a WAL database that fsyncs every commit, with `schema` applied.

    `any_thread`: the connection is made here but used by one other thread (the outbox's writer).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path, isolation_level=None, check_same_thread=not any_thread)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute("PRAGMA busy_timeout=5000")
    db.executescript(schema)
    return db


def add_columns(db: sqlite3.Connection, table: str, columns: dict[str, str]) -> None:
    """Add columns a file made by an older version lacks (name -> SQL declaration)."""
    have = {str(row[1]) for row in db.execute(f"PRAGMA table_info({table})")}
    for name, declaration in columns.items():
        if name not in have:
            db.execute(f"ALTER TABLE {table} ADD COLUMN {name} {declaration}")
