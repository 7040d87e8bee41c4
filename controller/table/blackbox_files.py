"""Black boxes on disk: one JSON-lines file per hand in a directory beside the outbox, kept
for a configured number of days. A disk problem is logged and counted; play never stops.

Lines are buffered and reach the operating system at each `flush()`: the table runner flushes
at every tick (four times a second), so a crash loses at most the lines of the last quarter
second; a hand's file is flushed whole when the next hand starts, before it is sent and when
the store closes."""

import contextlib
import logging
import re
import zlib
from pathlib import Path
from typing import BinaryIO

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

    def __init__(self, directory: Path, keep_days: int) -> None:
        self.directory = directory
        self.keep_s = keep_days * 86_400.0
        self.failures = 0
        self._current = ""
        self._pruned_at: float | None = None
        self._file: BinaryIO | None = None
        """The current hand's file, open for appending (buffered until `flush`), so that a
        line costs no system call of its own and the file is not opened per line."""

    def path(self, name: str) -> Path:
        """The file of one hand's black box."""
        return self.directory / f"{_SAFE.sub('_', name)[:120]}.jsonl"

    def compressed(self, name: str, limit: int) -> bytes:
        """One hand's black box, zlib-compressed, at most `limit` bytes; BlackBoxMissing
        says why not."""
        path = self.path(name)
        if name == self._current:
            self.flush()
        try:
            with path.open("rb") as file:
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

    def write(self, name: str, line: bytes, wall_time: float) -> None:
        """Append one line (a new hand first prunes boxes older than the kept days, at most
        hourly); it reaches the operating system at the next `flush`."""
        try:
            if name != self._current:
                self.close()
                self._current = name
                self.directory.mkdir(parents=True, exist_ok=True)
                if self._pruned_at is None or wall_time - self._pruned_at >= PRUNE_EVERY_S:
                    self._pruned_at = wall_time
                    self.prune(wall_time)
            if self._file is None:
                self._file = self.path(name).open("ab")
            self._file.write(line + b"\n")
        except OSError as error:
            self._failed(error)

    def flush(self) -> None:
        """Hand the lines written so far to the operating system."""
        if self._file is not None:
            try:
                self._file.flush()
            except OSError as error:
                self._failed(error)

    def close(self) -> None:
        """Flush and close the current hand's file (the next line opens it again)."""
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

    def prune(self, wall_time: float) -> int:
        """Delete black boxes last written more than the kept days ago; returns how many."""
        gone = 0
        for path in self.directory.glob("*.jsonl"):
            if wall_time - path.stat().st_mtime > self.keep_s:
                path.unlink(missing_ok=True)
                gone += 1
        return gone
