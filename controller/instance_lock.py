"""One daemon per table: an exclusive lock that names the process holding it.

`InstanceLock(path)` is a lock file (`<outbox>.lock` beside the outbox): `acquire()` takes it
or raises `InstanceBusy` naming the holder's pid, and it is released when the process ends,
however it ends (flock(2) locks die with their file descriptor). The serial port is locked by
the same kind of lock (pyserial's `exclusive=True`); `busy(path)` says who holds such a lock on
any file or device, from /proc/locks.
"""

import contextlib
import errno
import fcntl
import os
from pathlib import Path
from types import TracebackType

from controller.errors import UsageError

PROC_LOCKS = Path("/proc/locks")


class InstanceBusy(UsageError):
    """Another process holds the table's lock (two daemons on one table, or `diag` while the
    daemon runs): an operator error, exit 2."""

    def __init__(self, path: Path | str, pid: int | None) -> None:
        self.path = str(path)
        self.pid = pid
        who = f"another mahjong-table run (pid {pid})" if pid else "another program"
        super().__init__(f"{who} holds {path}: stop it first (systemctl stop mahjong-table)")


def lock_path_for(outbox: Path) -> Path:
    """The lock file of the table whose outbox is `outbox`."""
    return outbox.with_name(outbox.name + ".lock")


class InstanceLock:
    """An exclusive, non-blocking lock on a lock file that holds the owner's pid."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    def acquire(self) -> None:
        """Take the lock, or raise InstanceBusy (someone has it) or UsageError (no such place)."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            raise UsageError(
                f"cannot make the lock file {self.path}: {(exc.strerror or '').lower()} "
                "(it lives beside [outbox] path)"
            ) from exc
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            pid = _pid_in(fd)
            os.close(fd)
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                raise InstanceBusy(self.path, pid or holder_pid(self.path)) from None
            raise
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._fd = fd

    def release(self) -> None:
        """Let go of the lock (the file stays: removing it would race with the next owner)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> "InstanceLock":
        self.acquire()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.release()


def _pid_in(fd: int) -> int | None:
    with contextlib.suppress(OSError, ValueError):
        text = os.pread(fd, 32, 0).decode("ascii").strip()
        return int(text) if text else None
    return None


def holder_pid(path: Path | str) -> int | None:
    """The pid holding a flock(2) lock on `path` (a file or a device), if /proc/locks says."""
    try:
        info = Path(path).stat()
        lines = PROC_LOCKS.read_text().splitlines()
    except OSError:
        return None
    wanted = f"{os.major(info.st_dev):02x}:{os.minor(info.st_dev):02x}:{info.st_ino}"
    for line in lines:
        fields = line.split()
        # "1: FLOCK  ADVISORY  WRITE 1234 00:1a:5 0 EOF" (a "->" marks a waiter)
        if fields[1:2] == ["FLOCK"] and fields[2:3] != ["->"] and fields[5:6] == [wanted]:
            return int(fields[4]) if fields[4].isdigit() else None
    return None


def busy(path: Path | str) -> InstanceBusy:
    """The error for a file or device someone else holds locked."""
    return InstanceBusy(path, holder_pid(path))


def refuse_if_held(port: str) -> None:
    """Raise InstanceBusy if another process holds the serial device `port` (URLs: no check).
    `diag` calls this before it opens the port, so it never takes it from the daemon."""
    if "://" not in port and holder_pid(port) is not None:
        raise busy(port)
