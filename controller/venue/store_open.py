"""Opening the recorder's store by what `--db` names: a SQLite path or `sqlite:///path` URL, or a
`postgresql://` URL (the PostgreSQL store, whose driver is the `venue` extra)."""

from pathlib import Path

from controller.errors import UsageError
from controller.venue.pg_store import PgStore
from controller.venue.store import ResultStore


def open_store(spec: str) -> ResultStore:
    """Open the store named by a path, a `sqlite:///path` URL or a `postgresql://` URL."""
    if spec.startswith(("postgresql://", "postgres://")):
        return PgStore(spec)
    if "://" in spec and not spec.startswith("sqlite://"):
        raise UsageError(
            f"--db {spec.split('://')[0]}:// is not supported: give a SQLite path "
            "or a postgresql:// URL"
        )
    return ResultStore(Path(spec.removeprefix("sqlite://")))
