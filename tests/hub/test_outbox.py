"""The outbox keeps every result until the hub acks it, across restarts and kill -9; the feed of
status and events is bounded and counts what it drops."""

import contextlib
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

from controller.hub.table_side.outbox import FeedKind, Outbox, Reopened


def _add(outbox: Outbox, n: int) -> list[str]:
    ids: list[str] = []
    for _ in range(n):
        outbox.add_result(lambda seq: (f"{seq:032x}", b'{"seq":%d}' % seq), 0.0)
        ids.append(f"{outbox.pending_results(1, after_seq=len(ids))[0].id}")
    return ids


def test_sequence_numbers_and_boot_survive_a_restart(tmp_path: Path) -> None:
    first = Outbox(tmp_path / "o.db").open()
    _add(first, 3)
    first.close()
    second = Outbox(tmp_path / "o.db").open()
    assert second.boot == 2
    assert second.add_result(lambda seq: ("f" * 32, b"{}"), 0.0) == 4
    assert [r.seq for r in second.pending_results(10)] == [1, 2, 3, 4]


def test_a_result_leaves_only_when_acked_and_a_resend_request_brings_it_back(
    tmp_path: Path,
) -> None:
    outbox = Outbox(tmp_path / "o.db").open()
    ids = _add(outbox, 4)
    assert outbox.mark_acked(ids[:2], 1.0) == 2
    assert outbox.mark_acked(ids[:2], 2.0) == 0
    assert [r.seq for r in outbox.pending_results(10)] == [3, 4]
    assert outbox.reopen(2, None, _same) == Reopened(acked=1, refused=0, oldest=1)
    assert [r.seq for r in outbox.pending_results(10)] == [2, 3, 4]


def test_only_the_newest_acked_results_are_kept(tmp_path: Path) -> None:
    outbox = Outbox(tmp_path / "o.db", keep_acked=2).open()
    ids = _add(outbox, 5)
    outbox.mark_acked(ids, 1.0)
    assert outbox.reopen(1, None, _same) == Reopened(acked=2, refused=0, oldest=4)


def _same(payload: bytes) -> bytes:
    return payload


def _constant(payload: bytes) -> Callable[[int], bytes]:
    return lambda seq: payload


def test_the_feed_drops_oldest_first_and_counts_it(tmp_path: Path) -> None:
    outbox = Outbox(tmp_path / "o.db", max_feed=10).open()
    for i in range(25):
        outbox.add_feed(FeedKind.EVENT, "e", _constant(b"%d" % i))
    outbox.flush()
    assert [item.payload for item in outbox.feed_head(100)] == [b"%d" % i for i in range(15, 25)]
    assert outbox.dropped == 15


def test_a_new_status_replaces_the_one_still_waiting(tmp_path: Path) -> None:
    outbox = Outbox(tmp_path / "o.db").open()
    outbox.add_feed(FeedKind.STATUS, "s", lambda seq: b"old", retain=True)
    outbox.add_feed(FeedKind.EVENT, "e", lambda seq: b"move")
    outbox.add_feed(FeedKind.STATUS, "s", lambda seq: b"new", retain=True)
    outbox.flush()
    assert [(i.payload, i.retain) for i in outbox.feed_head(10)] == [
        (b"move", False),
        (b"new", True),
    ]
    assert outbox.dropped == 0


def test_a_failed_build_leaves_no_trace(tmp_path: Path) -> None:
    outbox = Outbox(tmp_path / "o.db").open()

    def broken(seq: int) -> tuple[str, bytes]:
        raise ValueError("referee bug")

    with contextlib.suppress(ValueError):
        outbox.add_result(broken, 0.0)
    assert outbox.add_result(lambda seq: ("e" * 32, b"{}"), 0.0) == 1


def test_kill_9_while_writing_loses_nothing_that_was_reported_on_disk(tmp_path: Path) -> None:
    path = tmp_path / "o.db"
    writer = subprocess.Popen(
        [sys.executable, "-m", "tests.hub.outbox_writer", str(path), "100000"],
        stdout=subprocess.PIPE,
        cwd=Path(__file__).parents[2],
    )
    assert writer.stdout is not None
    reported = [int(writer.stdout.readline()) for _ in range(150)]
    writer.kill()
    writer.wait()
    reported += [int(line) for line in writer.stdout.read().split()]
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    db.close()
    outbox = Outbox(path).open()
    held = [r.seq for r in outbox.pending_results(1_000_000)]
    assert held == list(range(1, len(held) + 1)), "sequence numbers have no hole"
    assert set(reported) <= set(held)
    assert outbox.add_result(lambda seq: ("d" * 32, b"{}"), 0.0) == len(held) + 1


async def test_events_status_and_acks_never_wait_for_the_disk_in_the_event_loop(
    tmp_path: Path,
) -> None:
    outbox = Outbox(tmp_path / "o.db").open()
    commits: list[str] = []

    def watch(sql: str) -> None:
        if sql == "COMMIT":
            commits.append(threading.current_thread().name)

    outbox.file.trace(watch)
    ids = _add(outbox, 3)
    results_committed = len(commits)
    for i in range(200):
        outbox.add_feed(FeedKind.EVENT, "e", _constant(b"%d" % i))
        if i % 20 == 0:
            outbox.add_feed(FeedKind.STATUS, "s", _constant(b"status"), retain=True)
    outbox.mark_acked(ids, 1.0)
    assert outbox.pending_count() == 0, "the table sees the ack at once"
    await outbox.flushed()
    outbox.file.trace(None)
    assert commits and {name.split("_")[0] for name in commits} == {"outbox-writer"}
    assert results_committed == 3, "each result is committed before add_result returns"
    assert len(commits) - 3 < 100, "events, status and acks share commits"
    outbox.close()
    with sqlite3.connect(tmp_path / "o.db") as db:
        kinds = db.execute("SELECT kind, count(*) FROM feed GROUP BY kind").fetchall()
        acked = db.execute("SELECT count(*) FROM results WHERE acked IS NOT NULL").fetchone()
    assert sorted(kinds) == [("event", 200), ("status", 1)] and acked == (3,)


def test_only_an_outbox_file_made_by_this_run_counts_as_new(tmp_path: Path) -> None:
    first = Outbox(tmp_path / "outbox.db").open()
    first.close()
    again = Outbox(tmp_path / "outbox.db").open()
    again.close()
    assert (first.is_new, again.is_new) == (True, False)
