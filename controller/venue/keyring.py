"""The hub's table keys: a TOML file, kept apart from the results database on purpose.

A copy of the results database (sent to a league, put on a laptop) then holds no secret that
would let anyone forge results. The file maps each table id to its key:

    [tables]
    table-01 = "3f1c...64 hex digits..."
"""

import logging
import stat
import tomllib
from pathlib import Path

from controller.errors import UsageError
from controller.hub.contract.signing import TableKey
from controller.ids import is_table_id

_log = logging.getLogger(__name__)


class KeyRing:
    """Table id -> key, for verifying results and signing acks and commands."""

    def __init__(self, keys: dict[str, TableKey]) -> None:
        self._keys = dict(keys)

    def get(self, table: str) -> TableKey | None:
        """The key of `table`, or None if the venue has not registered it."""
        return self._keys.get(table)

    @property
    def keys(self) -> dict[str, TableKey]:
        """Every table's key, by table id."""
        return dict(self._keys)

    @property
    def tables(self) -> list[str]:
        """Tables with a key, sorted."""
        return sorted(self._keys)

    @classmethod
    def load(cls, path: Path) -> "KeyRing":
        """Read a keys file; a bad file is a UsageError naming it."""
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise UsageError(f"keys file {path}: cannot read: {exc.strerror or exc}") from exc
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise UsageError(f"keys file {path}: {exc}") from exc
        _warn_if_readable(path)
        tables = data.get("tables")
        if not isinstance(tables, dict) or set(data) - {"tables"}:
            raise UsageError(f"keys file {path}: expected one [tables] section of id = key lines")
        return cls({table: _key(path, table, secret) for table, secret in tables.items()})


def _key(path: Path, table: str, secret: object) -> TableKey:
    if not is_table_id(table):
        raise UsageError(f"keys file {path}: {table!r} is not a table id")
    if not isinstance(secret, str):
        raise UsageError(f"keys file {path}: the key of {table} must be a string")
    try:
        return TableKey(secret)
    except UsageError as exc:
        raise UsageError(f"keys file {path}: {table}: {exc}") from exc


def _warn_if_readable(path: Path) -> None:
    mode = path.stat().st_mode
    if mode & (stat.S_IRGRP | stat.S_IROTH):
        _log.warning("keys file %s is readable by other users: chmod 600 it", path)
