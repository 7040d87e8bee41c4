"""Black boxes on disk: one JSON-lines file per hand in a directory beside the outbox, kept
for a configured number of days. A disk problem is logged and counted; play never stops."""

import logging
import re
from pathlib import Path

log = logging.getLogger(__name__)
_SAFE = re.compile(r"[^A-Za-z0-9_.-]")


class BlackBoxFiles:
    """Appends each hand's lines to `<directory>/<hand>.jsonl`; prunes old files."""

    def __init__(self, directory: Path, keep_days: int) -> None:
        self.directory = directory
        self.keep_s = keep_days * 86_400.0
        self.failures = 0
        self._current = ""

    def path(self, name: str) -> Path:
        """The file of one hand's black box."""
        return self.directory / f"{_SAFE.sub('_', name)[:120]}.jsonl"

    def write(self, name: str, line: bytes, wall_time: float) -> None:
        """Append one line (a new hand first prunes boxes older than the kept days)."""
        try:
            if name != self._current:
                self._current = name
                self.directory.mkdir(parents=True, exist_ok=True)
                self.prune(wall_time)
            with self.path(name).open("ab") as file:
                file.write(line + b"\n")
        except OSError as error:
            self.failures += 1
            if self.failures == 1 or self.failures % 1000 == 0:
                log.warning("black box %s not written (%d so far): %s", name, self.failures, error)

    def prune(self, wall_time: float) -> int:
        """Delete black boxes last written more than the kept days ago; returns how many."""
        gone = 0
        for path in self.directory.glob("*.jsonl"):
            if wall_time - path.stat().st_mtime > self.keep_s:
                path.unlink(missing_ok=True)
                gone += 1
        return gone
