"""The durable outbox as the table's event loop sees it: results wait until the hub acks their
id; status, events and replies wait in a bounded feed that drops its oldest entries.

The file (SQLite, WAL, synchronous=FULL) is written by one worker thread (`DurableWriter`), and
the loop works from a copy in memory, so no fsync runs in the loop: a new result blocks only
until it is on disk (`add_result`; `add_result_async` does not block at all); acks, refusals
and feed entries go to disk in batches, one transaction each. A feed entry is published only
once it is on disk, so a sequence number seen by anyone is never used again after a crash.
Sequence numbers, the boot counter and the outbox's random id live in the same file.
"""

import bisect
import contextlib
import errno
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Executor
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TypeVar

from controller.errors import RuntimeFailure
from controller.hub.table_side.outbox_file import (
    FeedItem,
    FeedKind,
    OutboxFile,
    PendingResult,
    RefusedResult,
)
from controller.hub.table_side.writer import DurableWriter

__all__ = [
    "FeedItem",
    "FeedKind",
    "Outbox",
    "OutboxCannotStore",
    "PendingResult",
    "RefusedResult",
    "Reopened",
]
T = TypeVar("T")
SIGNER = "signer"
"""The fingerprint of the key every waiting result is signed with, noted in the file."""


class OutboxCannotStore(RuntimeFailure):
    """A write to the outbox file failed (disk full, or the card failing); the text says which
    and what to do. The table keeps running on what it holds in memory."""


def cannot_store(path: Path, exc: BaseException) -> str:
    """The fault text for a failed outbox write, with advice that fits its cause."""
    full = getattr(exc, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL or (
        isinstance(exc, OSError) and exc.errno == errno.ENOSPC
    )
    if full:
        return (
            f"cannot store: disk full: free space on the table's SD card (outbox {path}); "
            "results not yet stored are lost if the table stops before then"
        )
    return f"cannot store: {exc}: check the table's SD card (outbox {path})"


@dataclass(frozen=True)
class Reopened:
    """What a resend request put back in the queue."""

    acked: int
    refused: int
    oldest: int | None


class Outbox:
    """One table's outbox file. Made without touching the disk; `open` (blocking: the daemon
    runs it on its disk thread) opens the file, which starts a new boot, and loads what the
    file holds. Nothing else may be asked of it before."""

    def __init__(
        self,
        path: Path,
        *,
        max_feed: int = 1000,
        keep_acked: int = 10_000,
        executor: Executor | None = None,
    ) -> None:
        self.path = path
        self.max_feed = max_feed
        self.keep_acked = keep_acked
        self._file: OutboxFile | None = None
        self.boot = 0
        """This start's number (1 for the file's first); known once open."""
        self.is_new = False
        """The file did not exist before this start (known once open)."""
        self.id = ""
        """The outbox's random id (known once open)."""
        self._acked_on_disk = 0
        self.writer = DurableWriter(self._transaction, executor=executor)
        self.writer.after_batch = self._batch_done
        self.on_commit: Callable[[], None] = _nothing
        self._job_failure = ""
        self._pending: dict[int, PendingResult] = {}
        self._order: list[int] = []
        self._newest = 0
        self.backfills = 0
        """Results held again below the newest ever held (put back by a resend request, or
        stored out of turn): a sender that keeps track of how far it has sent looks again."""
        self._refused: dict[int, RefusedResult] = {}
        self._seq_of: dict[str, int] = {}
        self._feed: dict[int, FeedItem] = {}
        self._status_n: int | None = None
        self._feed_seq = 0
        self._dropped = 0
        self._written_feed = self._committed_feed = 0
        self._closed = False

    def open(self) -> "Outbox":
        """Open the file, count a new boot and take what it holds into memory (blocking);
        returns the outbox. RuntimeFailure names the file and what is wrong with it."""
        if self._file is not None:
            raise RuntimeError(f"outbox {self.path} is open already")
        file = OutboxFile(self.path)
        try:
            with file.transaction():
                self.boot = file.bump("boot")
                self.is_new = not file.has_identity()
                self.id = file.identity(time.time())
            held = file.contents()
            self._acked_on_disk = file.count_acked()
        except sqlite3.Error as exc:
            file.close()
            raise RuntimeFailure(f"outbox {self.path}: {exc}") from exc
        self._file = file
        self._refused = {r.seq: r for r in held.refused}
        self._seq_of = {r.id: r.seq for r in held.refused}
        for result in held.pending:
            self._hold(result)
        self._feed = {item.n: item for item in held.feed}
        self._status_n = max((i.n for i in held.feed if i.kind is FeedKind.STATUS), default=None)
        self._feed_seq = max([held.feed_seq, *self._feed])
        self._dropped = held.dropped
        self._written_feed = self._committed_feed = self._feed_seq
        return self

    @property
    def file(self) -> OutboxFile:
        """The open file (RuntimeError before `open`: a mistake of the program)."""
        if self._file is None:
            raise RuntimeError(f"outbox {self.path} is not open")
        return self._file

    def _transaction(self) -> contextlib.AbstractContextManager[None]:
        return self.file.transaction()

    def close(self) -> None:
        """Write what is queued and close the file."""
        if not self._closed:
            self._closed = True
            self.writer.close()
            if self._file is not None:
                self._file.close()

    async def flushed(self) -> None:
        """Return once everything queued so far is on disk."""
        await self.writer.flushed()

    def flush(self) -> None:
        """Block until everything queued so far is on disk."""
        self.writer.wait(_nothing)

    def _batch_done(self) -> None:
        # In the writer thread: feed entries written so far may now be published, unless the
        # batch was rolled back (disk full): then they are not on disk and must wait.
        if self.writer.batch_failure is None:
            self._committed_feed = self._written_feed
        else:
            self._written_feed = self._committed_feed
        self.on_commit()

    # --- results ------------------------------------------------------------------------------

    def add_result(self, build: Callable[[int], tuple[str, bytes]], now: float) -> int:
        """Give the next result sequence number to `build(seq) -> (id, payload)` and store the
        result durably; returns the sequence number once it is on disk (blocks until then)."""
        return self._hold(self.writer.wait(partial(self._insert, build, now), urgent=True)).seq

    async def add_result_async(self, build: Callable[[int], tuple[str, bytes]], now: float) -> int:
        """As `add_result`, but the event loop keeps running while the disk works."""
        job = partial(self._insert, build, now)
        return self._hold(await self.writer.call(job, urgent=True)).seq

    def _insert(self, build: Callable[[int], tuple[str, bytes]], now: float) -> PendingResult:
        with self._storing(), self.file.transaction():
            seq = self.file.bump("result_seq")
            result_id, payload = build(seq)
            self.file.insert_result(seq, result_id, payload, now)
        return PendingResult(seq, result_id, payload)

    @contextlib.contextmanager
    def _storing(self) -> Iterator[None]:
        """Any failure of the file becomes OutboxCannotStore, and `problem` says so."""
        try:
            yield
        except (sqlite3.Error, OSError) as exc:
            self._job_failure = cannot_store(self.path, exc)
            raise OutboxCannotStore(self._job_failure) from exc
        self._job_failure = ""

    def _guarded(self, job: Callable[[], T]) -> Callable[[], T]:
        def run() -> T:
            with self._storing():
                return job()

        return run

    @property
    def problem(self) -> str:
        """Why the outbox cannot store what it is given ('' when all is well)."""
        failure = self.writer.batch_failure
        if failure is not None:
            return cannot_store(self.path, failure)
        return self._job_failure

    def _hold(self, result: PendingResult) -> PendingResult:
        if result.seq not in self._pending:
            bisect.insort(self._order, result.seq)
            self.backfills += result.seq <= self._newest
            self._newest = max(self._newest, result.seq)
        self._pending[result.seq] = result
        self._seq_of[result.id] = result.seq
        return result

    def _release(self, seq: int) -> PendingResult | None:
        result = self._pending.pop(seq, None)
        if result is not None:
            del self._order[bisect.bisect_left(self._order, seq)]
        return result

    def pending_results(self, limit: int, after_seq: int = 0) -> list[PendingResult]:
        """Results to send (not acknowledged, not refused), in sequence order."""
        start = bisect.bisect_right(self._order, after_seq)
        return [self._pending[seq] for seq in self._order[start : start + limit]]

    def pending_through(self, seq: int) -> int:
        """How many results to send have a sequence number up to `seq`."""
        return bisect.bisect_right(self._order, seq)

    def pending_result(self, result_id: str) -> PendingResult | None:
        """The result with this id if it is still to be sent (not acknowledged, not refused)."""
        seq = self._seq_of.get(result_id)
        return None if seq is None else self._pending.get(seq)

    def pending_count(self) -> int:
        """How many results wait to be sent or acknowledged (refused ones not counted)."""
        return len(self._pending)

    @property
    def refused(self) -> list[RefusedResult]:
        """Results the hub refused, oldest first; kept until acked or sent again on request."""
        return [self._refused[seq] for seq in sorted(self._refused)]

    def mark_acked(self, ids: Iterable[str], now: float) -> int:
        """Record the hub's acknowledgement of these result ids; returns how many were new."""
        id_list = list(ids)
        changed = 0
        for result_id in id_list:
            seq = self._seq_of.pop(result_id, None)
            if seq is not None:
                changed += 1
                self._release(seq)
                self._refused.pop(seq, None)
        if changed:
            self.writer.later(partial(self._write_acks, id_list, now))
        return changed

    def _write_acks(self, ids: list[str], now: float) -> None:
        self._acked_on_disk += self.file.mark_acked(ids, now)
        # Pruning scans the acked results, so it runs only once they exceed the limit by 10%.
        if self._acked_on_disk > self.keep_acked + self.keep_acked // 10:
            self._acked_on_disk -= self.file.prune_acked(self.keep_acked)

    def mark_refused(self, result_id: str, reason: str, now: float) -> RefusedResult | None:
        """Set a result aside as refused by the hub; None if it is not pending (any more)."""
        seq = self._seq_of.get(result_id)
        result = None if seq is None else self._release(seq)
        if result is None:
            return None
        refused = RefusedResult(result.seq, result.id, result.payload, reason, now)
        self._refused[result.seq] = refused
        self.writer.later(partial(self.file.mark_refused, result_id, reason, now))
        return refused

    def reopen(
        self, since: int, until: int | None, resign: Callable[[bytes], bytes], acked: bool = True
    ) -> Reopened:
        """Queue results in [since, until] again: refused ones (re-signed with `resign`), and
        with `acked` also those the hub acknowledged. Blocks until the file says which."""
        job = self._guarded(partial(self._reopen, since, until, resign, acked))
        return self._reopened(self.writer.wait(job))

    async def reopen_async(
        self, since: int, until: int | None, resign: Callable[[bytes], bytes], acked: bool = True
    ) -> Reopened:
        """As `reopen`, but the event loop keeps running while the disk works."""
        job = self._guarded(partial(self._reopen, since, until, resign, acked))
        return self._reopened(await self.writer.call(job))

    def _reopen(
        self, since: int, until: int | None, resign: Callable[[bytes], bytes], acked: bool
    ) -> tuple[list[PendingResult], list[PendingResult], int | None]:
        with self.file.transaction():
            again = self.file.reopen_acked(since, until) if acked else []
            retried = self.file.retry_refused(since, until, resign)
            if again:  # signed with the key of their day: the next start looks at them all
                self.file.put(SIGNER, 0)
        self._acked_on_disk -= len(again)
        return again, retried, self.file.oldest_seq()

    async def resign_pending_async(self, resign: Callable[[bytes], bytes], signer: int) -> int:
        """Sign every pending result again with `resign` (those already signed so stay as
        they are) unless the file says they all are (`signer`, the fingerprint of the key
        `resign` signs with, is the one noted after the last time); returns how many changed,
        once they are on disk. The signing and the writing run on the writer's thread."""
        pending = list(self._pending.values())
        job = self._guarded(partial(_resign, self.file, pending, resign, signer))
        return self._resigned(await self.writer.call(job))

    def _resigned(self, changed: list[tuple[int, bytes]]) -> int:
        for seq, payload in changed:
            old = self._pending.get(seq)
            if old is not None:  # (acked while it was signed again: nothing more to send)
                self._pending[seq] = PendingResult(seq, old.id, payload)
        return len(changed)

    def _reopened(
        self, found: tuple[list[PendingResult], list[PendingResult], int | None]
    ) -> Reopened:
        again, retried, oldest = found
        for result in retried:
            self._refused.pop(result.seq, None)
        for result in again + retried:
            self._hold(result)
        return Reopened(len(again), len(retried), oldest)

    # --- the feed -----------------------------------------------------------------------------

    def add_feed(
        self, kind: FeedKind, topic: str, build: Callable[[int], bytes], *, retain: bool = False
    ) -> None:
        """Queue a status, event or reply; a new status replaces any status still queued, and
        past `max_feed` entries the oldest are dropped and counted."""
        self._feed_seq += 1
        item = FeedItem(self._feed_seq, kind, topic, retain, build(self._feed_seq))
        gone = []
        if kind is FeedKind.STATUS and self._status_n is not None:
            gone.append(self._status_n)
            self._feed.pop(self._status_n, None)
        self._feed[item.n] = item
        if kind is FeedKind.STATUS:
            self._status_n = item.n
        while len(self._feed) > self.max_feed:
            oldest = next(iter(self._feed))
            del self._feed[oldest]
            gone.append(oldest)
            self._dropped += 1
            self._status_n = None if oldest == self._status_n else self._status_n
        self.writer.later(partial(self._write_feed, item, gone, self._dropped))

    def _write_feed(self, item: FeedItem, gone: list[int], dropped: int) -> None:
        self.file.delete_feed(gone)
        self.file.insert_feed(item)
        self.file.put("dropped", dropped)
        self._write_feed_seq(item.n)

    def _write_feed_seq(self, seq: int) -> None:
        self.file.put("feed_seq", seq)
        self._written_feed = seq

    def next_feed_seq(self) -> int:
        """Take a feed sequence number for a message that is not queued (the last will); it is
        on disk after the next `flushed()`."""
        self._feed_seq += 1
        self.writer.later(partial(self._write_feed_seq, self._feed_seq))
        return self._feed_seq

    def feed_head(self, limit: int) -> list[FeedItem]:
        """The oldest queued feed entries that are already on disk."""
        head: list[FeedItem] = []
        for item in self._feed.values():
            if item.n > self._committed_feed or len(head) == limit:
                break
            head.append(item)
        return head

    def feed_backlog(self) -> int:
        """Feed entries waiting, on disk or not yet."""
        return len(self._feed)

    def remove_feed(self, n: int) -> None:
        """Forget a feed entry once the broker has it."""
        if self._feed.pop(n, None) is not None:
            self.writer.later(partial(self.file.delete_feed, [n]))
        if n == self._status_n:
            self._status_n = None

    @property
    def dropped(self) -> int:
        """Feed entries dropped since the outbox was created."""
        return self._dropped

    # --- replies to hub commands --------------------------------------------------------------

    async def remember_reply(self, command: str, payload: bytes, expires: float) -> None:
        """Keep the reply to a command until it expires, so a repeat gets the same answer."""
        await self.writer.call(self._guarded(partial(self._write_reply, command, payload, expires)))

    def _write_reply(self, command: str, payload: bytes, expires: float) -> None:
        with self.file.transaction():
            self.file.remember_reply(command, payload, expires)

    async def recall_reply(self, command: str) -> bytes | None:
        """The reply already given to `command`, if any."""
        return await self.writer.call(self._guarded(partial(self.file.recall_reply, command)))

    def forget_replies(self, now: float) -> None:
        """Forget replies to commands that have expired."""
        self.writer.later(partial(self.file.forget_replies, now))


def _nothing() -> None:
    return None


def _resign(
    file: OutboxFile, pending: list[PendingResult], resign: Callable[[bytes], bytes], signer: int
) -> list[tuple[int, bytes]]:
    """Sign the pending results again and store those whose signature changed, unless they
    are all signed by `signer` already; note `signer` (every result stored from now on is
    signed with its key)."""
    if file.get(SIGNER) == signer:
        return []
    changed = [(r.seq, fresh) for r in pending if (fresh := resign(r.payload)) != r.payload]
    with file.transaction():
        for seq, payload in changed:
            file.replace_payload(seq, payload)
        file.put(SIGNER, signer)
    return changed
