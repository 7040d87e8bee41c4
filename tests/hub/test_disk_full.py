"""A full disk under the outbox: every failed write, whatever it was storing, is the one
"cannot store: disk full" fault; the table keeps running and its status says so.

The disk fills for real as SQLite sees it: the outbox's page budget is capped at its current
size (`PRAGMA max_page_count`), so the next page it needs fails with SQLITE_FULL.
"""

import contextlib
import sqlite3
from pathlib import Path

import pytest

from controller.clock import SystemClock
from controller.hub.contract.hub_commands import StartSession
from controller.hub.table_side.hub_link import HubLink
from controller.hub.table_side.outbox import OutboxCannotStore
from devsupport.mosquitto import Broker
from tests.hub.commanding import command
from tests.hub.factories import PLAYERS, SessionBook, hand_result
from tests.hub.helpers import eventually, looked_again, make_link, retained_status, running

FULL = "cannot store: disk full: free space on the table's SD card"


def _fill_disk(link: HubLink) -> None:
    db = link.outbox.file._db  # the file's own connection, in the writer's thread

    def cap() -> None:
        db.execute("CREATE TABLE ballast (x BLOB)")
        pages = db.execute("PRAGMA page_count").fetchone()[0]
        db.execute(f"PRAGMA max_page_count = {pages}")
        for size in (4096, 512, 64, 8, 1):  # until not one more row fits anywhere
            with contextlib.suppress(sqlite3.OperationalError):
                while True:
                    db.execute("INSERT INTO ballast VALUES (zeroblob(?))", (size,))
        with contextlib.suppress(sqlite3.OperationalError):  # the replies' own page, too
            for n in range(10_000):
                db.execute("INSERT INTO replies VALUES (?, zeroblob(64), 1e12)", (f"x{n}",))
        with contextlib.suppress(sqlite3.OperationalError):  # and the feed's
            for n in range(10**9, 10**9 + 10_000):
                db.execute("INSERT INTO feed VALUES (?, 'x', 'x', 0, zeroblob(64))", (n,))

    link.outbox.writer.wait(cap)


async def test_a_command_reply_that_cannot_be_stored_is_the_disk_full_fault(
    tmp_path: Path,
) -> None:
    book = SessionBook()
    link = make_link("mqtt://127.0.0.1:1", tmp_path / "outbox.db", book)
    _fill_disk(link)
    order = StartSession(session="s1", ruleset="sichuan", players=list(PLAYERS))
    answer = await link.dispatcher.handle(command(order, SystemClock()))
    assert answer.ok and book.session == "s1", "the command was carried out all the same"
    assert link.attention.startswith(FULL)


async def test_a_result_that_cannot_be_stored_is_the_disk_full_fault(tmp_path: Path) -> None:
    link = make_link("mqtt://127.0.0.1:1", tmp_path / "outbox.db", SessionBook())
    _fill_disk(link)
    with pytest.raises(OutboxCannotStore, match=FULL):
        for hand in range(1, 200):  # the pages free in the file fill first
            await link.record_result_async(hand_result(hand))
    assert link.attention.startswith(FULL)


@pytest.mark.broker
async def test_the_table_stays_up_and_its_status_says_the_disk_is_full(
    broker: Broker, tmp_path: Path
) -> None:
    link = make_link(broker.url, tmp_path / "outbox.db", SessionBook())
    _fill_disk(link)
    async with running(link.run()) as task:
        await eventually(lambda: link.connected and bool(link.outbox.problem), "status not stored")
        await looked_again(link)
        status = await retained_status(broker.url)
        assert not task.done(), "the table keeps running"
    assert status.online and status.link.attention.startswith(FULL)
