"""`diag events`: the daemon's live feed of MCU events, table moves and incidents, kept in a
short ring and fanned out to followers over the socket (a slow follower loses its oldest).

A line's words may be given as a function that makes them: they are made only when someone
reads the feed (the table adds a line for every MCU event, and a feed nobody reads should
cost no formatting)."""

import asyncio
import logging
import threading
import time
from collections import deque
from collections.abc import Callable

import msgspec

RECENT = 200
FOLLOWER_QUEUE = 1000
Words = Callable[[], str]
"""Makes a line's words when the line is read."""


class EventLine(msgspec.Struct, frozen=True):
    """One line of the feed."""

    at: float
    source: str
    """mcu (an MCU event or link notice), table (a move, a state change) or log."""
    text: str


class EventsReport(msgspec.Struct, frozen=True):
    """`diag events` without --follow: the recent lines."""

    lines: list[EventLine]
    problem: str = ""
    """Why there are no MCU events to show (the MCU could not be opened)."""

    @property
    def healthy(self) -> bool:
        """The feed could be read (a quiet feed is not a problem)."""
        return not self.problem


class EventFeed:
    """The recent lines and the followers' queues."""

    def __init__(self) -> None:
        self._recent: deque[tuple[float, str, str | Words]] = deque(maxlen=RECENT)
        self._followers: set[asyncio.Queue[EventLine]] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread = threading.get_ident()

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        """The loop followers wait on (lines from other threads are handed over to it)."""
        self._loop = loop
        self._thread = threading.get_ident()

    @property
    def recent(self) -> list[EventLine]:
        """The recent lines, oldest first."""
        return [_line(*entry) for entry in self._recent]

    def add(self, source: str, text: str | Words) -> None:
        """A new line (from any thread); `text` its words, or the function that makes them."""
        entry = (time.time(), source, text)
        if self._loop is not None and threading.get_ident() != self._thread:
            self._loop.call_soon_threadsafe(self._add, entry)
        else:
            self._add(entry)

    def _add(self, entry: tuple[float, str, str | Words]) -> None:
        self._recent.append(entry)
        if not self._followers:
            return
        line = _line(*entry)
        for queue in self._followers:
            if queue.full():
                queue.get_nowait()
            queue.put_nowait(line)

    def follow(self) -> "asyncio.Queue[EventLine]":
        """A queue of every line from now on; `unfollow` it when done."""
        queue: asyncio.Queue[EventLine] = asyncio.Queue(FOLLOWER_QUEUE)
        self._followers.add(queue)
        return queue

    def unfollow(self, queue: "asyncio.Queue[EventLine]") -> None:
        """Stop feeding a queue."""
        self._followers.discard(queue)


def _line(at: float, source: str, text: str | Words) -> EventLine:
    return EventLine(round(at, 3), source, text if isinstance(text, str) else text())


class FeedHandler(logging.Handler):
    """Log records of the table (moves, incidents, faults) as feed lines."""

    def __init__(self, feed: EventFeed) -> None:
        super().__init__(logging.INFO)
        self.feed = feed

    def emit(self, record: logging.LogRecord) -> None:
        """Add the record's message."""
        self.feed.add("table", f"{record.levelname.lower()}: {record.getMessage()}")
