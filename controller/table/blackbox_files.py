"""Black boxes on disk: one JSON-lines file per hand in a directory beside the outbox, kept
for a configured number of days. A disk problem is logged and counted; play never stops.

The event loop only keeps lines in memory (`write`); every file operation (making the
directory, opening, appending, flushing, pruning, and reading and compressing a box for a
dispute) runs on the daemon's disk worker. The table runner calls `flush` at every tick (four
times a second): the lines so far go to the worker, one batch at a time, so a slow card delays
the file, never the table, and a crash loses at most the lines of the last batches."""

import asyncio
import contextlib
import logging
import re
import zlib
from pathlib import Path
from typing import BinaryIO

from controller.disk import Disk, DiskWorker, LocalDisk

log = logging.getLogger(__name__)
_SAFE = re.compile(r"[^A-Za-z0-9_.-]")
PRUNE_EVERY_S = 3600.0
"""Old boxes are looked for at a new hand, at most this often (a directory of a month's
hands is not read at every hand)."""
MAX_FILE = 32 * 1024 * 1024
"""Largest black box sent for a dispute (one hand's inputs are far below this)."""


class BlackBoxMissing(LookupError):
    """No black box by that name can be sent (never written, pruned, unreadable, too big)."""


class BlackBoxFiles:
    """Appends each hand's lines to `<directory>/<hand>.jsonl`; prunes old files."""

    def __init__(
        self, directory: Path, keep_days: int, worker: DiskWorker, disk: Disk | None = None
    ) -> None:
        self.directory = directory
        self.keep_s = keep_days * 86_400.0
        self.worker = worker
        self.disk: Disk = disk or LocalDisk()
        self.failures = 0
        self._lines: list[tuple[str, bytes, float]] = []
        """Lines written and not yet handed to the worker."""
        self._batch: asyncio.Future[None] | None = None
        # The rest is touched by the worker thread only.
        self._current = ""
        self._pruned_at: float | None = None
        self._file: BinaryIO | None = None

    def path(self, name: str) -> Path:
        """The file of one hand's black box."""
        return self.directory / f"{_SAFE.sub('_', name)[:120]}.jsonl"

    # ---- on the event loop -------------------------------------------------------------------

    def write(self, name: str, line: bytes, wall_time: float) -> None:
        """Keep one line for the hand `name`; it goes to the disk with the next `flush`."""
        self._lines.append((name, line, wall_time))

    def flush(self) -> None:
        """Hand the lines so far to the worker (unless the last batch is still being written:
        then they go with the next flush, together)."""
        if self._lines and (self._batch is None or self._batch.done()):
            lines, self._lines = self._lines, []
            self._batch = self.worker.post(lambda: self._append(lines))

    async def flushed(self) -> None:
        """Return once every line written so far is in its file (flushed to the system)."""
        lines, self._lines = self._lines, []
        await self.worker.call(lambda: self._append(lines))

    async def compressed(self, name: str, limit: int) -> bytes:
        """One hand's black box, zlib-compressed, at most `limit` bytes; BlackBoxMissing
        says why not. The file is read and compressed on the worker."""
        await self.flushed()
        return await self.worker.call(lambda: self._compress(name, limit))

    async def close(self) -> None:
        """Write what is kept and close the current hand's file."""
        await self.flushed()
        await self.worker.call(self._close)

    # ---- on the worker -----------------------------------------------------------------------

    def _append(self, lines: list[tuple[str, bytes, float]]) -> None:
        for name, line, wall_time in lines:
            try:
                if name != self._current:
                    self._start(name, wall_time)
                if self._file is None:
                    self._file = self.disk.open(self.path(name), "ab")
                self._file.write(line + b"\n")
            except OSError as error:
                self._failed(error)
        if self._file is not None:
            try:
                self._file.flush()
            except OSError as error:
                self._failed(error)

    def _start(self, name: str, wall_time: float) -> None:
        """A new hand: close the last file, prune boxes older than the kept days (hourly)."""
        self._close()
        self._current = name
        self.disk.mkdir(self.directory)
        if self._pruned_at is None or wall_time - self._pruned_at >= PRUNE_EVERY_S:
            self._pruned_at = wall_time
            self._prune(wall_time)

    def _compress(self, name: str, limit: int) -> bytes:
        path = self.path(name)
        try:
            size = self.disk.size(path)
            if size > MAX_FILE:
                raise BlackBoxMissing(f"black box {name} is too large to send ({size} bytes)")
            with self.disk.open(path, "rb") as file:
                content = file.read(MAX_FILE + 1)
        except FileNotFoundError:
            kept = f"kept {self.keep_s / 86_400:g} days"
            raise BlackBoxMissing(f"no black box {name} ({kept})") from None
        except OSError as error:
            raise BlackBoxMissing(f"black box {name} cannot be read: {error.strerror}") from None
        packed = zlib.compress(content, 9)
        if len(content) > MAX_FILE or len(packed) > limit:
            raise BlackBoxMissing(f"black box {name} is too large to send ({len(content)} bytes)")
        return packed

    def _close(self) -> None:
        if self._file is not None:
            file, self._file = self._file, None
            try:
                file.close()
            except OSError as error:
                self._count(error)

    def _failed(self, error: OSError) -> None:
        file, self._file = self._file, None
        if file is not None:  # opened again for the next line; what it still held is lost
            with contextlib.suppress(OSError):
                file.close()
        self._count(error)

    def _count(self, error: OSError) -> None:
        self.failures += 1
        if self.failures == 1 or self.failures % 1000 == 0:
            name = self._current
            log.warning("black box %s not written (%d so far): %s", name, self.failures, error)

    def _prune(self, wall_time: float) -> int:
        """Delete black boxes last written more than the kept days ago; returns how many."""
        gone = 0
        for path in self.disk.files(self.directory, "*.jsonl"):
            if wall_time - self.disk.mtime(path) > self.keep_s:
                self.disk.unlink(path)
                gone += 1
        return gone
