"""The daemon's disk: the file operations it needs (`Disk`, the port a test replaces with a slow
or failing one) and the one worker thread every blocking file operation of the daemon runs on
(`DiskWorker`), so the event loop that keeps the MCU's heartbeat never waits for the SD card.

The worker is a single thread: jobs run one at a time in the order given, so the black box's
file, the outbox's SQLite connection and a black box being read for a dispute are never
touched by two threads at once. The daemon makes one worker and passes it to each part.
"""

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import Executor, ThreadPoolExecutor
from pathlib import Path
from typing import Any, BinaryIO, Protocol, TypeVar

T = TypeVar("T")


class Disk(Protocol):
    """The file operations of the daemon's black boxes (all blocking: run on the worker)."""

    def open(self, path: Path, mode: str) -> BinaryIO:
        """Open a file in binary `mode` ('rb' or 'ab')."""

    def mkdir(self, path: Path) -> None:
        """Make a directory and its parents (no error if it exists)."""

    def files(self, directory: Path, pattern: str) -> list[Path]:
        """The files in `directory` whose names match `pattern`."""

    def size(self, path: Path) -> int:
        """A file's size in bytes."""

    def mtime(self, path: Path) -> float:
        """When a file was last written (seconds since the epoch)."""

    def unlink(self, path: Path) -> None:
        """Delete a file (no error if it is gone)."""


class LocalDisk:
    """The real file system."""

    def open(self, path: Path, mode: str) -> BinaryIO:
        """As `Disk.open`."""
        file: BinaryIO = path.open(mode)  # type: ignore[assignment]
        return file

    def mkdir(self, path: Path) -> None:
        """As `Disk.mkdir`."""
        path.mkdir(parents=True, exist_ok=True)

    def files(self, directory: Path, pattern: str) -> list[Path]:
        """As `Disk.files`."""
        return list(directory.glob(pattern))

    def size(self, path: Path) -> int:
        """As `Disk.size`."""
        return path.stat().st_size

    def mtime(self, path: Path) -> float:
        """As `Disk.mtime`."""
        return path.stat().st_mtime

    def unlink(self, path: Path) -> None:
        """As `Disk.unlink`."""
        path.unlink(missing_ok=True)


class DiskWorker:
    """The one thread the daemon's blocking file work runs on, in order."""

    def __init__(self, executor: Executor) -> None:
        self.executor = executor
        self.in_flight = 0
        """Jobs given and not yet done (a virtual clock waits while any is)."""
        self._lock = threading.Lock()

    @classmethod
    def single_thread(cls) -> "DiskWorker":
        """A worker on a thread of its own (started with the first job)."""
        return cls(ThreadPoolExecutor(max_workers=1, thread_name_prefix="disk"))

    @property
    def busy(self) -> bool:
        """True while a job is queued or running."""
        return self.in_flight > 0

    def post(self, job: Callable[[], T]) -> "asyncio.Future[T]":
        """Queue a job after those given before it (from the event loop); its future says how
        it went. Given through the loop's `run_in_executor`, so a loop on virtual time counts
        it as real work in flight and does not jump its clock past it."""
        with self._lock:
            self.in_flight += 1
        future = asyncio.get_running_loop().run_in_executor(self.executor, job)
        future.add_done_callback(self._done)
        return future

    async def call(self, job: Callable[[], T]) -> T:
        """Run a job after those given before it; the event loop runs on meanwhile."""
        return await self.post(job)

    def _done(self, _: "asyncio.Future[Any]") -> None:
        with self._lock:
            self.in_flight -= 1

    def shutdown(self) -> None:
        """Finish the queued jobs and stop the thread."""
        self.executor.shutdown(wait=True)
