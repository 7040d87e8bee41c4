"""The log lines of a child process (a daemon, the recorder), read as they come and waited on.

A thread reads the stream into a list; waiting blocks on a condition until a matching line
arrives, the stream ends or the time is up. (A selector on a buffered text stream misses lines
already read into the buffer when the process then goes quiet.)"""

import threading
from typing import IO


class Lines:
    """Every line `stream` has given so far, in order, with a way to wait for one."""

    def __init__(self, stream: IO[str]) -> None:
        self.said: list[str] = []
        self.ended = False
        self._changed = threading.Condition()
        self._seen = 0
        self._reader = threading.Thread(target=self._read, args=(stream,), daemon=True)

    def start(self) -> "Lines":
        """Begin reading (in a daemon thread); returns self."""
        self._reader.start()
        return self

    def finish(self, within: float = 10.0) -> None:
        """After the process has ended: take its last lines (until the stream's end)."""
        self._reader.join(within)

    def _read(self, stream: IO[str]) -> None:
        try:
            for line in stream:
                with self._changed:
                    self.said.append(line.rstrip())
                    self._changed.notify_all()
        except ValueError:
            pass  # the stream was closed under us: the process is gone
        finally:
            with self._changed:
                self.ended = True
                self._changed.notify_all()

    def wait_for(self, text: str, within: float) -> str:
        """The first line after the last one waited for that contains `text`; AssertionError
        with all that was said if none comes within `within` s or the stream ends first."""
        with self._changed:
            self._changed.wait_for(lambda: self._find(text) is not None or self.ended, within)
            index = self._find(text)
            if index is not None:
                self._seen = index + 1
                return self.said[index]
        raise AssertionError(f"no '{text}' within {within} s:\n" + self.text())

    def _find(self, text: str) -> int | None:
        for index in range(self._seen, len(self.said)):
            if text in self.said[index]:
                return index
        return None

    def seen(self, text: str) -> bool:
        """Whether any line so far contains `text`."""
        with self._changed:
            return any(text in line for line in self.said)

    def text(self) -> str:
        """All lines so far, one per line."""
        with self._changed:
            return "\n".join(self.said)
