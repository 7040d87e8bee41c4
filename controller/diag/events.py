"""`diag events`: the daemon's live feed of MCU events, table moves and incidents, kept in a
short ring and fanned out to followers over the socket (a slow follower loses its oldest)."""

import asyncio
import logging
import threading
import time
from collections import deque

import msgspec

RECENT = 200
FOLLOWER_QUEUE = 1000


class EventLine(msgspec.Struct, frozen=True):
    """One line of the feed."""

    at: float
    source: str
    """mcu (an MCU event or link notice), table (a move, a state change) or log."""
    text: str


class EventsReport(msgspec.Struct, frozen=True):
    """`diag events` without --follow: the recent lines."""

    lines: list[EventLine]

    @property
    def healthy(self) -> bool:
        """A feed is never a problem in itself."""
        return True


class EventFeed:
    """The recent lines and the followers' queues."""

    def __init__(self) -> None:
        self.recent: deque[EventLine] = deque(maxlen=RECENT)
        self._followers: set[asyncio.Queue[EventLine]] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread = threading.get_ident()

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        """The loop followers wait on (lines from other threads are handed over to it)."""
        self._loop = loop
        self._thread = threading.get_ident()

    def add(self, source: str, text: str) -> None:
        """A new line (from any thread)."""
        line = EventLine(round(time.time(), 3), source, text)
        if self._loop is not None and threading.get_ident() != self._thread:
            self._loop.call_soon_threadsafe(self._add, line)
        else:
            self._add(line)

    def _add(self, line: EventLine) -> None:
        self.recent.append(line)
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


class FeedHandler(logging.Handler):
    """Log records of the table (moves, incidents, faults) as feed lines."""

    def __init__(self, feed: EventFeed) -> None:
        super().__init__(logging.INFO)
        self.feed = feed

    def emit(self, record: logging.LogRecord) -> None:
        """Add the record's message."""
        self.feed.add("table", f"{record.levelname.lower()}: {record.getMessage()}")
