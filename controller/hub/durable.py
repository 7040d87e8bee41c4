"""Opening the SQLite files that must survive kill -9 and power cuts (outbox, results store)."""

import sqlite3
from pathlib import Path


def open_durable(path: Path, schema: str) -> sqlite3.Connection:
    """Open (creating) a WAL database that fsyncs every commit, with `schema` applied."""
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute("PRAGMA busy_timeout=5000")
    db.executescript(schema)
    return db
