"""One active recorder per venue: a recorder takes its venue's lock on the store before it goes
on the broker. Two recorders of one name would share one MQTT client id and knock each other off
the broker; the second one either stops, naming the one that runs, or waits as a hot standby
(store open, keys loaded) and takes over the moment the lock is free.

- SQLite: an exclusive `flock` on a file beside the database (`hub.sqlite3.NAME.lock`), which
  holds who has it. The kernel lets go when the process dies, however it dies.
- PostgreSQL: a session advisory lock keyed by the recorder's name, on a connection of its own
  whose application name says who holds it. The server lets go when that connection closes. If
  the connection breaks (the server restarted), the holder takes the lock again at once; should
  a standby have taken it first, the holder stops (`LockLost`) rather than run beside it.

The waits block a thread of their own (a daemon: a stopped recorder never waits for it).
"""

import asyncio
import contextlib
import fcntl
import os
import socket
import threading
import time
import zlib
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import Any, Protocol

from controller.clock import Clock, SystemClock
from controller.errors import RuntimeFailure
from controller.hub.mqtt.transport import first_failure
from controller.venue.store import engine_for, is_postgres_url
from controller.venue.store_engines import PgEngine, SqliteEngine, StoreUnavailable

_LOCK_CLASS = 0x6D6A6872  # "mjhr": the advisory lock space of recorder names
WATCH_EVERY_S = 1.0
"""How often the PostgreSQL holder checks its lock connection."""
STANDBY_RETRY_S = 3.0
"""A standby's wait before asking again when PostgreSQL is out of reach (longer than the
holder's, so a holder whose connection broke takes its lock back first)."""


class LockLost(RuntimeFailure):
    """Another recorder took this venue's lock while ours was broken: this one must stop."""


class RecorderLock(Protocol):
    """The venue's lock for one recorder name."""

    def try_take(self) -> str | None:
        """Take the lock if it is free: None when taken, else who holds it."""

    def wait_take(self) -> None:
        """Block until the lock is ours (a standby's wait)."""

    def watch(self) -> str:
        """Block while the lock is ours; return who took it if another did."""

    def release(self) -> None:
        """Let go (the process ending does the same)."""


def whoami(name: str, clock: Clock) -> str:
    """How a recorder names itself to a standby."""
    started = time.strftime("%Y-%m-%d %H:%M", time.localtime(clock.wall()))
    return f"recorder {name} on {socket.gethostname()} pid {os.getpid()} since {started}"


def lock_for(spec: str, name: str, clock: Clock | None = None) -> RecorderLock:
    """The lock of recorder `name` on the store `--db` names."""
    me = whoami(name, clock or SystemClock())
    if is_postgres_url(spec):
        engine = engine_for(spec, me[:63])
        assert isinstance(engine, PgEngine)
        return PgLock(engine, name)
    engine = engine_for(spec)
    assert isinstance(engine, SqliteEngine)
    return FileLock(Path(f"{engine.path}.{name}.lock"), me)


class FileLock:
    """An exclusive flock on a file beside the SQLite store."""

    def __init__(self, path: Path, me: str) -> None:
        self.path = path
        self.me = me
        self._fd: int | None = None

    def _open(self) -> int:
        if self._fd is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        return self._fd

    def try_take(self) -> str | None:
        fd = self._open()
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return self._holder()
        self._mark()
        return None

    def wait_take(self) -> None:
        fcntl.flock(self._open(), fcntl.LOCK_EX)
        self._mark()

    def watch(self) -> str:
        threading.Event().wait()  # a flock stays ours until the process lets go
        return ""

    def _mark(self) -> None:
        fd = self._open()
        os.ftruncate(fd, 0)
        os.pwrite(fd, self.me.encode(), 0)

    def _holder(self) -> str:
        try:
            return self.path.read_text(encoding="utf-8").strip() or "another recorder"
        except OSError:
            return "another recorder"

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


class PgLock:
    """A session advisory lock keyed by the recorder's name, on its own connection."""

    def __init__(self, engine: PgEngine, name: str) -> None:
        self.engine = engine
        self.key = zlib.crc32(name.encode()) - 2**31  # a signed 32-bit key

    def _try(self) -> bool:
        row = self.engine.execute(
            "SELECT pg_try_advisory_lock(%s, %s)", (_LOCK_CLASS, self.key)
        ).fetchone()
        return bool(row[0])

    def try_take(self) -> str | None:
        self.engine.connect()
        if self._try():
            return None
        return self._holder()

    def wait_take(self) -> None:
        while True:
            try:
                self.engine.connect()
                self.engine.execute("SELECT pg_advisory_lock(%s, %s)", (_LOCK_CLASS, self.key))
                return
            except Exception as exc:
                if self.engine.fault(exc) is None and not isinstance(exc, StoreUnavailable):
                    raise
                time.sleep(STANDBY_RETRY_S)

    def watch(self) -> str:
        while True:
            time.sleep(WATCH_EVERY_S)
            try:
                self.engine.execute("SELECT 1")
                continue
            except Exception as exc:
                if self.engine.fault(exc) is None:
                    raise
            holder = self._take_back()
            if holder is not None:
                return holder

    def _take_back(self) -> str | None:
        """Take the lock again after the connection broke: None once ours, else who has it."""
        while True:
            try:
                self.engine.connect()
                return None if self._try() else self._holder()
            except Exception as exc:
                if self.engine.fault(exc) is None and not isinstance(exc, StoreUnavailable):
                    raise
                time.sleep(WATCH_EVERY_S)

    def _holder(self) -> str:
        row = self.engine.execute(
            "SELECT a.application_name, coalesce(host(a.client_addr), 'local') FROM pg_locks l "
            "JOIN pg_stat_activity a USING (pid) WHERE l.locktype = 'advisory' AND l.granted "
            "AND l.classid = %s::oid AND l.objid = %s::oid AND l.objsubid = 2",
            (_LOCK_CLASS, self.key & 0xFFFFFFFF),
        ).fetchone()
        if row is None:
            return "another recorder (it just let go)"
        return f"{row[0]} (connected from {row[1]})"

    def release(self) -> None:
        self.engine.close()


async def in_thread(job: Callable[[], Any]) -> Any:
    """Run a blocking wait on a daemon thread of its own; its result or exception."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[Any] = loop.create_future()

    def run() -> None:
        try:
            result = job()
        except BaseException as exc:
            with contextlib.suppress(RuntimeError):  # the loop is gone
                loop.call_soon_threadsafe(_settle, done, None, exc)
            return
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(_settle, done, result, None)

    threading.Thread(target=run, name="recorder-lock", daemon=True).start()
    return await done


def _settle(done: "asyncio.Future[Any]", result: Any, exc: BaseException | None) -> None:
    if done.done():
        return
    if exc is not None:
        done.set_exception(exc)
    else:
        done.set_result(result)


async def hold(lock: RecorderLock) -> None:
    """Run while the lock is ours; raise LockLost naming who took it."""
    holder = await in_thread(lock.watch)
    raise LockLost(f"{holder} took this venue's recorder lock while ours was broken: stopping")


async def run_as_active(
    lock: RecorderLock,
    standby: bool,
    job: Coroutine[Any, Any, None],
    active: Callable[[], Awaitable[None]],
) -> None:
    """Run `job` as the venue's active recorder (`active()` is told when it is): a standby
    first waits for the lock. The job stops if the lock is lost to another recorder."""
    if standby:
        await in_thread(lock.wait_take)
    await active()
    await first_failure(job, hold(lock))
