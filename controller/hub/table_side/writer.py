"""The one thread that writes the outbox file, so an fsync never stalls the table's event loop.

Jobs run in the order they were given. Small writes (queued events and status, acks, refusals)
are handed over with `later` and share one transaction, so one fsync per batch rather than one
per write: whatever arrives while the disk is busy goes into the next batch. A job the caller
must see on disk (a new result) is run with `wait` (blocking) or `call` (awaitable); an
`urgent` one (a new result, which nothing queued depends on) goes ahead of the batch that is
still waiting, so a caller blocked on it waits for at most the batch being written and its own.
A batch the disk refuses (full) is kept and tried again with the next one.
"""

import asyncio
import contextlib
import logging
import sqlite3
import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, TypeVar

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
        executor: Executor | None = None,
    ) -> None:
        self._transaction = transaction
        self._owns_executor = executor is None
        """The daemon passes its one disk thread (kept running when the outbox closes)."""
        self._executor = executor or ThreadPoolExecutor(max_workers=1, thread_name_prefix=name)
        self._lock = threading.Lock()
        self._batch: list[Callable[[], None]] = []
        self._urgent: deque[Callable[[], None]] = deque()
        self._scheduled = False
        self._closed = False
        self._in_flight = 0
        self.after_batch: Callable[[], None] = _nothing
        self.stats = WriterStats()
        self.batch_failure: BaseException | None = None
        """Why the last batch of small writes was not stored (None once one is again)."""

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
        self._run(self._commit_batch)

    @property
    def busy(self) -> bool:
        """True while a job or batch is queued or being written (a virtual clock waits)."""
        return self._in_flight > 0

    def _run(self, job: Callable[[], T]) -> "Future[T]":
        with self._lock:
            self._in_flight += 1
        future = self._executor.submit(job)
        future.add_done_callback(self._ran)
        return future

    def _ran(self, _: "Future[Any]") -> None:
        with self._lock:
            self._in_flight -= 1

    def wait(self, job: Callable[[], T], urgent: bool = False) -> T:
        """Run a job after everything queued before it (`urgent`: after the batch being
        written only) and block until it is done."""
        return self._submit(job, urgent).result()

    async def call(self, job: Callable[[], T], urgent: bool = False) -> T:
        """As `wait`, but the event loop keeps running meanwhile."""
        return await asyncio.wrap_future(self._submit(job, urgent))

    def _submit(self, job: Callable[[], T], urgent: bool) -> "Future[T]":
        self.stats.jobs += 1
        if not urgent:
            return self._run(job)
        done: Future[T] = Future()

        def run() -> None:
            try:
                done.set_result(job())
            except BaseException as exc:
                done.set_exception(exc)

        with self._lock:
            self._urgent.append(run)
        self._run(self._run_urgent)  # in case no batch starts before it
        return done

    def _run_urgent(self) -> None:
        while True:
            with self._lock:
                if not self._urgent:
                    return
                run = self._urgent.popleft()
            run()

    async def flushed(self) -> None:
        """Return once everything queued so far is on disk."""
        await self.call(_nothing)

    def close(self) -> None:
        """Write what is queued, then stop the thread."""
        with self._lock:
            self._closed = True
        if self._owns_executor:
            self._executor.shutdown(wait=True)
        else:
            self.wait(_nothing)

    def _commit_batch(self) -> None:
        self._run_urgent()
        with self._lock:
            writes, self._batch, self._scheduled = self._batch, [], False
        try:
            with self._transaction():
                for write in writes:
                    write()
            self.batch_failure = None
        except Exception as exc:
            self.stats.failed_batches += 1
            if self.batch_failure is None:
                _log.error("the outbox could not store %d queued changes: %s", len(writes), exc)
            self.batch_failure = exc
            if isinstance(exc, sqlite3.OperationalError | OSError):
                # The disk (full, failing), not the writes: they go again with the next batch,
                # and the failure stands until they are on disk.
                with self._lock:
                    self._batch = writes + self._batch
        finally:
            self.stats.batches += 1
            self.stats.batched_writes += len(writes)
            with contextlib.suppress(RuntimeError):  # the event loop is already gone
                self.after_batch()


def _nothing() -> None:
    return None
