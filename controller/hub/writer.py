"""The one thread that writes the outbox file, so an fsync never stalls the table's event loop.

Jobs run in the order they were given. Small writes (queued events and status, acks, refusals)
are handed over with `later` and share one transaction, so one fsync per batch rather than one
per write: whatever arrives while the disk is busy goes into the next batch. A job the caller
must see on disk (a new result) is run with `wait` (blocking) or `call` (awaitable).
"""

import asyncio
import contextlib
import logging
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TypeVar

_log = logging.getLogger(__name__)
T = TypeVar("T")


@dataclass
class WriterStats:
    """How much the writer has done (for the bench and diag)."""

    batches: int = 0
    batched_writes: int = 0
    jobs: int = 0
    failed_batches: int = 0


class DurableWriter:
    """A single worker thread in front of one SQLite connection."""

    def __init__(
        self,
        transaction: Callable[[], AbstractContextManager[None]],
        name: str = "outbox-writer",
    ) -> None:
        self._transaction = transaction
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=name)
        self._lock = threading.Lock()
        self._batch: list[Callable[[], None]] = []
        self._scheduled = False
        self._closed = False
        self.after_batch: Callable[[], None] = _nothing
        self.stats = WriterStats()

    def later(self, write: Callable[[], None]) -> None:
        """Queue a small write; it reaches the disk with the next batch, in order."""
        with self._lock:
            if self._closed:
                _log.warning("the outbox is closed: a late write was not stored")
                return
            self._batch.append(write)
            if self._scheduled:
                return
            self._scheduled = True
        self._executor.submit(self._commit_batch)

    def wait(self, job: Callable[[], T]) -> T:
        """Run a job after everything queued before it and block until it is done."""
        self.stats.jobs += 1
        return self._executor.submit(job).result()

    async def call(self, job: Callable[[], T]) -> T:
        """Run a job after everything queued before it; the event loop keeps running."""
        self.stats.jobs += 1
        return await asyncio.wrap_future(self._executor.submit(job))

    async def flushed(self) -> None:
        """Return once everything queued so far is on disk."""
        await self.call(_nothing)

    def close(self) -> None:
        """Write what is queued, then stop the thread."""
        with self._lock:
            self._closed = True
        self._executor.shutdown(wait=True)

    def _commit_batch(self) -> None:
        with self._lock:
            writes, self._batch, self._scheduled = self._batch, [], False
        try:
            with self._transaction():
                for write in writes:
                    write()
        except Exception:
            self.stats.failed_batches += 1
            _log.exception("the outbox could not store %d queued changes", len(writes))
        finally:
            self.stats.batches += 1
            self.stats.batched_writes += len(writes)
            with contextlib.suppress(RuntimeError):  # the event loop is already gone
                self.after_batch()


def _nothing() -> None:
    return None
