"""The two engines the recorder's store runs on: a SQLite file (WAL, synchronous=FULL) and a
league's PostgreSQL database (psycopg 3). Each connects, runs statements, brackets a
transaction, and names a failure for what it is (`StoreFault`): a full disk, a database out
of reach, a failing disk. The queries (store_sql) and the schema (store_schema) are shared.

A connection is used by one thread at a time (the store's worker, `async_store`), never by the
recorder's event loop.

Round trips to a PostgreSQL server are what a batch costs (not the server's work), so a
transaction there runs in psycopg's pipeline mode: a statement whose answer the store does not
read is sent without waiting, and `many` runs one statement for many rows of parameters in one
round trip. A SQLite file is in the recorder's own process: it has no round trips to save.
"""

import contextlib
import enum
import errno
import shutil
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, cast

from controller.durable import open_durable
from controller.errors import UsageError
from controller.venue.store_schema import SchemaTypes
from controller.venue.store_sql import POSTGRES, SQLITE, Dialect

# One lock id for every recorder writing to one PostgreSQL database ("mjtb" in ASCII): two
# recorders commit their batches one after the other and never deadlock on each other's rows.
WRITE_LOCK = 0x6D6A7462
LOW_SPACE = 1024 * 1024
"""Below this much free space on its folder, a SQLite file that cannot be written is on a full
disk (SQLite then often says only "disk I/O error")."""


class FaultKind(enum.Enum):
    """What kind of failure stopped the store."""

    DISK_FULL = "disk_full"
    UNREACHABLE = "unreachable"
    FAILING = "failing"


@dataclass(frozen=True)
class StoreFault:
    """A failure of the store's engine, in words for the venue, with what to do."""

    kind: FaultKind
    text: str


class StoreUnavailable(Exception):
    """The engine failed for a reason outside the recorder (disk, network, server)."""

    def __init__(self, fault: StoreFault) -> None:
        super().__init__(fault.text)
        self.fault = fault


@dataclass(frozen=True)
class Answer:
    """What one run of a statement changed (rows) and returned."""

    changed: int
    rows: list[Any]


class Cursor(Protocol):
    """What the store reads from a query it ran (sqlite3's and psycopg's cursors alike)."""

    @property
    def rowcount(self) -> int:
        """Rows the statement changed."""

    def fetchone(self) -> Any:
        """The next row, or None."""

    def fetchall(self) -> list[Any]:
        """The remaining rows."""

    def __iter__(self) -> Iterator[Any]:
        """The remaining rows, one by one."""


class Engine(Protocol):
    """One database the store's queries run on."""

    dialect: Dialect
    types: SchemaTypes
    where: str
    """The store as the venue names it (a file, or host/database without the password)."""

    def connect(self) -> None:
        """Open the connection (again, after a failure); StoreUnavailable if it cannot."""

    def close(self) -> None:
        """Close the connection, quietly if it is already broken."""

    def execute(self, query: str, params: Sequence[object] = ()) -> Cursor:
        """Run one statement (already in this engine's dialect)."""

    def many(self, query: str, rows: Sequence[Sequence[object]]) -> list[Answer]:
        """Run one statement once for each row of parameters, in one round trip: what each
        run changed and returned."""

    def begin(self) -> None:
        """Start a write transaction."""

    def end(self, commit: bool) -> None:
        """Commit or roll back the transaction."""

    def tables(self) -> set[str]:
        """The tables the database holds."""

    def columns(self, table: str) -> set[str]:
        """The columns of one table."""

    def fault(self, exc: BaseException) -> StoreFault | None:
        """What `exc` says about the store (None: not a store failure, a bug to report)."""


class SqliteEngine:
    """A SQLite file on the recorder's own disk."""

    dialect = SQLITE
    types = SchemaTypes(int="INTEGER", real="REAL", blob="BLOB", arrival="")

    def __init__(self, path: Path) -> None:
        self.path = path
        self.where = str(path)
        self._db: sqlite3.Connection | None = None

    def connect(self) -> None:
        self.close()
        try:
            self._db = open_durable(self.path, "", any_thread=True)
        except (sqlite3.Error, OSError) as exc:
            raise StoreUnavailable(self._named(exc)) from exc

    def close(self) -> None:
        if self._db is not None:
            with contextlib.suppress(sqlite3.Error):
                self._db.close()
            self._db = None

    def _conn(self) -> sqlite3.Connection:
        if self._db is None:
            raise sqlite3.OperationalError("the results store is not open")
        return self._db

    def execute(self, query: str, params: Sequence[object] = ()) -> Cursor:
        return self._conn().execute(query, params)

    def many(self, query: str, rows: Sequence[Sequence[object]]) -> list[Answer]:
        db = self._conn()
        answers = []
        for params in rows:
            cursor = db.execute(query, params)
            answers.append(Answer(cursor.rowcount, cursor.fetchall()))
        return answers

    def begin(self) -> None:
        self._conn().execute("BEGIN IMMEDIATE")

    def end(self, commit: bool) -> None:
        db = self._conn()
        if commit:
            db.execute("COMMIT")
        elif db.in_transaction:
            db.execute("ROLLBACK")

    def tables(self) -> set[str]:
        rows = self.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
        return {str(name) for (name,) in rows}

    def columns(self, table: str) -> set[str]:
        return {str(row[1]) for row in self.execute(f"PRAGMA table_info({table})").fetchall()}

    def fault(self, exc: BaseException) -> StoreFault | None:
        if isinstance(exc, sqlite3.OperationalError | OSError):
            return self._named(exc)
        return None

    def _named(self, exc: BaseException) -> StoreFault:
        folder = self.path.parent
        code = getattr(exc, "sqlite_errorcode", None)
        full = code == sqlite3.SQLITE_FULL or getattr(exc, "errno", None) == errno.ENOSPC
        if full or (code is not None and code & 0xFF in _DISK_CODES and _low_space(folder)):
            return StoreFault(
                FaultKind.DISK_FULL,
                f"the recorder's disk is full: free space on {_mount_of(folder)} "
                f"(results store {self.path})",
            )
        if code is not None and code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
            return StoreFault(
                FaultKind.FAILING,
                f"results store {self.path} is locked by another program (a backup, or a "
                "query left open): it must let go",
            )
        return StoreFault(
            FaultKind.FAILING,
            f"results store {self.path}: {exc}: check the recorder's disk",
        )


_DISK_CODES = {sqlite3.SQLITE_IOERR, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_FULL}


def _low_space(folder: Path) -> bool:
    try:
        return shutil.disk_usage(folder).free < LOW_SPACE
    except OSError:
        return False


def _mount_of(folder: Path) -> str:
    """The mount point holding `folder` (what the venue frees space on)."""
    try:
        path = folder.resolve()
        while not path.is_mount() and path != path.parent:
            path = path.parent
        return str(path)
    except OSError:
        return str(folder)


class PgEngine:
    """A PostgreSQL database (a league's, shared by its venues' recorders)."""

    dialect = POSTGRES
    types = SchemaTypes(
        int="BIGINT", real="DOUBLE PRECISION", blob="BYTEA", arrival="n BIGSERIAL, "
    )

    def __init__(self, url: str, application: str = "mahjong-table recorder") -> None:
        try:
            import psycopg  # only a league database needs it
        except ImportError as exc:
            raise UsageError(
                "a PostgreSQL store needs psycopg 3: pip install 'mahjong-table[venue]'"
            ) from exc
        self._psycopg = psycopg
        self.url = url
        self.application = application
        self.where = "postgresql://" + url.split("@")[-1].split("://")[-1]  # no password
        self._pg: Any = None
        self._pipelining: Any = None
        self._pipeline: Any = None
        """psycopg's pipeline while a transaction is open (and `_pipelining` its context)."""

    def connect(self) -> None:
        self.close()
        try:
            self._pg = self._psycopg.connect(
                self.url, autocommit=True, connect_timeout=5, application_name=self.application
            )
        except self._psycopg.Error as exc:
            raise StoreUnavailable(self._named(exc)) from exc

    def close(self) -> None:
        self._pipelining = self._pipeline = None
        if self._pg is not None:
            with contextlib.suppress(self._psycopg.Error):
                self._pg.close()
            self._pg = None

    def connection(self) -> Any:
        """The open psycopg connection (the standby lock takes its lock on it)."""
        if self._pg is None or self._pg.closed:
            raise self._psycopg.OperationalError("the connection to the results store is closed")
        return self._pg

    def execute(self, query: str, params: Sequence[object] = ()) -> Cursor:
        cursor = self.connection().execute(query, params)
        if self._pipeline is None:
            return cast(Cursor, cursor)
        return _Pipelined(cursor, self._pipeline)

    def many(self, query: str, rows: Sequence[Sequence[object]]) -> list[Answer]:
        if not rows:
            return []
        cursor = self.connection().cursor()
        cursor.executemany(query, rows, returning=True)  # pipelined: one round trip
        answers = []
        while True:
            returned = cursor.fetchall() if cursor.description is not None else []
            answers.append(Answer(cursor.rowcount, returned))
            if not cursor.nextset():
                return answers

    def begin(self) -> None:
        self._pipelining = self.connection().pipeline()
        self._pipeline = self._pipelining.__enter__()
        self.execute("BEGIN")
        self.execute(f"SELECT pg_advisory_xact_lock({WRITE_LOCK})")

    def end(self, commit: bool) -> None:
        pipeline, self._pipeline, self._pipelining = self._pipelining, None, None
        try:
            if commit:
                self.execute("COMMIT")
            if pipeline is not None:
                pipeline.__exit__(None, None, None)  # sends what is queued; raises its failure
        except self._psycopg.Error:
            if commit:  # a statement queued before the COMMIT failed: the COMMIT did not run
                self._roll_back()
                raise
        if not commit:
            self._roll_back()

    def _roll_back(self) -> None:
        if self._pg is None or self._pg.closed:
            return
        with contextlib.suppress(self._psycopg.Error):
            if self._pg.info.transaction_status != self._psycopg.pq.TransactionStatus.IDLE:
                self._pg.execute("ROLLBACK")

    def tables(self) -> set[str]:
        rows = self.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
        ).fetchall()
        return {str(name) for (name,) in rows}

    def columns(self, table: str) -> set[str]:
        rows = self.execute(
            "SELECT column_name FROM information_schema.columns "
            "WHERE table_schema = current_schema() AND table_name = %s",
            (table,),
        ).fetchall()
        return {str(name) for (name,) in rows}

    def fault(self, exc: BaseException) -> StoreFault | None:
        errors = self._psycopg.errors
        if isinstance(exc, errors.DiskFull | errors.InsufficientResources):
            return StoreFault(
                FaultKind.DISK_FULL,
                f"the PostgreSQL server's disk is full ({self.where}): {_first_line(exc)}; free "
                "space on the database server",
            )
        if isinstance(exc, self._psycopg.OperationalError | self._psycopg.InterfaceError):
            return self._named(exc)
        return None

    def _named(self, exc: BaseException) -> StoreFault:
        return StoreFault(
            FaultKind.UNREACHABLE,
            f"PostgreSQL {self.where} out of reach: {_first_line(exc)}",
        )


class _Pipelined:
    """A cursor of a pipelined statement: the rows it changed are known once the queue is sent
    (reading rows sends it by itself)."""

    def __init__(self, cursor: Any, pipeline: Any) -> None:
        self._cursor = cursor
        self._pipeline = pipeline

    @property
    def rowcount(self) -> int:
        self._pipeline.sync()
        return int(self._cursor.rowcount)

    def fetchone(self) -> Any:
        return self._cursor.fetchone()

    def fetchall(self) -> list[Any]:
        return list(self._cursor.fetchall())

    def __iter__(self) -> Iterator[Any]:
        return iter(self._cursor)


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]
