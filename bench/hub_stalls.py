"""How long the outbox's disk writes hold up the table's event loop: through the outbox's writer
thread, against the same writes committed in the loop one fsync each (as the outbox did before
it had a writer thread), measured in the same run on the same disk."""

import asyncio
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from bench.hub_support import sample_result
from controller.clock import SystemClock
from controller.hub.contract.envelopes import ResultMessage, encode, new_header
from controller.hub.table_side.outbox import Outbox
from controller.hub.table_side.outbox_file import FeedItem, FeedKind, OutboxFile

EVENT = b'{"schema":"event","event":{"type":"move","move":"discard","tiles":["5p"]}}' + b" " * 180
STATUS = b'{"schema":"status","online":true}' + b" " * 360
T = TypeVar("T")
RESULT = encode(ResultMessage(result=sample_result(1), **new_header("t1", 1, 1, SystemClock())))


class Probe:
    """Notes how long the loop goes between two of its turns."""

    def __init__(self) -> None:
        self.gaps: list[float] = []

    async def run(self) -> None:
        """Yield to the loop forever, timing each absence."""
        while True:
            start = time.perf_counter()
            await asyncio.sleep(0)
            self.gaps.append(time.perf_counter() - start)


class Held:
    """How long the loop itself spent inside outbox calls (waiting for the disk or not)."""

    def __init__(self) -> None:
        self.worst = 0.0
        self.total = 0.0

    def __call__(self, call: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run `call(*args, **kwargs)` and time it."""
        start = time.perf_counter()
        try:
            return call(*args, **kwargs)
        finally:
            spent = time.perf_counter() - start
            self.worst, self.total = max(self.worst, spent), self.total + spent


@dataclass(frozen=True)
class Figures:
    """One way of writing, measured."""

    name: str
    worst_ms: float
    p999_ms: float
    held_worst_ms: float
    held_total_ms: float
    commits: int
    seconds: float

    def line(self) -> str:
        """The figures as one line."""
        return (
            f"  {self.name:<40} loop worst {self.worst_ms:5.1f} ms, p99.9 {self.p999_ms:5.2f} ms;"
            f" in outbox calls worst {self.held_worst_ms:5.1f} ms, total "
            f"{self.held_total_ms:6.0f} ms; {self.commits:5d} commits; {self.seconds:5.2f} s"
        )


Way = Callable[[Path, Held], Awaitable[int]]


async def measured(name: str, way: Way, path: Path) -> Figures:
    """Run one way of writing (it returns the commits made) with the probe watching the loop."""
    probe, held = Probe(), Held()
    task = asyncio.ensure_future(probe.run())
    await asyncio.sleep(0)
    start = time.perf_counter()
    commits = await way(path, held)
    seconds = time.perf_counter() - start
    task.cancel()
    gaps = sorted(probe.gaps)
    p999 = gaps[min(len(gaps) - 1, int(len(gaps) * 0.999))]
    ms = 1000.0
    return Figures(
        name, ms * gaps[-1], ms * p999, ms * held.worst, ms * held.total, commits, seconds
    )


def _counting(file: OutboxFile) -> list[int]:
    commits = [0]

    def watch(sql: str) -> None:
        commits[0] += sql == "COMMIT"

    file.trace(watch)
    return commits


def _queued(file: OutboxFile, n: int) -> None:
    with file.transaction():
        file.insert_feed(FeedItem(n, FeedKind.EVENT, "e", False, EVENT))
        file.put("feed_seq", n)


def _published(file: OutboxFile, n: int) -> None:
    with file.transaction():
        file.delete_feed([n])


def _status(file: OutboxFile, n: int) -> None:
    with file.transaction():
        file.delete_feed([10 - n])
        file.insert_feed(FeedItem(-n, FeedKind.STATUS, "s", True, STATUS))


def _result(file: OutboxFile, seq: int, result_id: str) -> None:
    with file.transaction():
        file.insert_result(seq, result_id, RESULT, 0.0)


def _acked(file: OutboxFile, result_id: str) -> None:
    with file.transaction():
        file.mark_acked([result_id], 0.0)


async def in_loop(path: Path, held: Held, events: int, pause_s: float) -> int:
    """Every write committed in the loop, one transaction each (the baseline)."""
    file = OutboxFile(path)
    commits = _counting(file)
    for n in range(1, events + 1):
        held(_queued, file, n)
        await asyncio.sleep(0)  # the broker takes it ...
        held(_published, file, n)  # ... and it leaves the feed
        if n % 10 == 0:
            held(_status, file, n)
        if n % 100 == 0:
            result_id = uuid.uuid4().hex
            held(_result, file, n, result_id)
            held(_acked, file, result_id)
        await asyncio.sleep(pause_s)
    file.close()
    return commits[0]


def _event(seq: int) -> bytes:
    return EVENT


def _status_bytes(seq: int) -> bytes:
    return STATUS


async def through_writer(
    path: Path, held: Held, events: int, pause_s: float, blocking: bool
) -> int:
    """The same writes through the outbox (results blocking until on disk, or awaited)."""
    outbox = Outbox(path).open()
    commits = _counting(outbox.file)
    for n in range(1, events + 1):
        held(outbox.add_feed, FeedKind.EVENT, "e", _event)
        if n % 10 == 0:
            held(outbox.add_feed, FeedKind.STATUS, "s", _status_bytes, retain=True)
        if n % 100 == 0:
            build = partial(_build, uuid.uuid4().hex)
            if blocking:
                held(outbox.add_result, build, 0.0)
            else:
                await outbox.add_result_async(build, 0.0)
            held(outbox.mark_acked, [build.args[0]], 0.0)
        await asyncio.sleep(pause_s)
        for item in held(outbox.feed_head, 64):  # what is on disk is published
            held(outbox.remove_feed, item.n)
    await outbox.flushed()
    outbox.close()
    return commits[0]


def _build(result_id: str, seq: int) -> tuple[str, bytes]:
    return result_id, RESULT


async def stall_report(work: Path, events: int, rate: float) -> list[str]:
    """Figures of the three ways, as lines to print: a burst, then events at `rate` per s."""
    work.mkdir(parents=True, exist_ok=True)
    lines = []
    for label, count, pause_s in (("as fast as they come", events, 0.0),
                                  (f"{rate:g} a second", int(rate * 3), 1 / rate)):  # fmt: skip
        ways: list[tuple[str, Way]] = [
            ("in the loop, a commit per write (before)",
             lambda p, h: in_loop(p, h, count, pause_s)),  # noqa: B023
            ("writer thread, record_result (blocking)",
             lambda p, h: through_writer(p, h, count, pause_s, True)),  # noqa: B023
            ("writer thread, record_result_async",
             lambda p, h: through_writer(p, h, count, pause_s, False)),  # noqa: B023
        ]  # fmt: skip
        runs = [
            await measured(name, way, work / f"{label[:4]}-{n}.db")
            for n, (name, way) in enumerate(ways)
        ]
        lines.append(f"event-loop stalls, {count} events {label} (a status every 10, a result "
                     f"and its ack every 100):")  # fmt: skip
        lines += [r.line() for r in runs]
        lines += [
            f"    before / after, loop worst {runs[0].worst_ms / r.worst_ms:4.1f}x, time in "
            f"outbox calls {runs[0].held_total_ms / max(r.held_total_ms, 1e-3):5.1f}x: {r.name}"
            for r in runs[1:]
        ]
    return lines
