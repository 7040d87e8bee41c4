"""Store outages are a state, not a crash: with the suite's real PostgreSQL stopped (as a crash
or a failover would) and with the recorder's disk full (a size-limited tmpfs), the recorder
stays up, acks nothing it has not stored, says on the dashboard since when and why the store
is down, and once the store returns stores every result exactly once and clears the banner."""

import asyncio
import contextlib
import errno
import io
import sqlite3
import subprocess
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest

from controller.cli import main
from controller.errors import RuntimeFailure
from controller.hub.table_side.hub_link import HubLink
from controller.venue.recorder import Recorder
from controller.venue.run_state import RunStateFile
from controller.venue.store import open_store
from controller.venue.store_engines import FaultKind
from devsupport.mosquitto import Broker
from tests.hub.factories import SessionBook, hand_result
from tests.hub.helpers import eventually, make_link, make_recorder, running
from tests.venue.postgres import PgCluster
from tests.venue.test_dashboard import Site, serving

pytestmark = pytest.mark.broker


@contextlib.asynccontextmanager
async def floor(recorder: Recorder, run_dir: Path) -> AsyncIterator[Site]:
    """The recorder running with its dashboard served on a free port, telling `hub status`
    how it is through `run_dir`."""
    state = RunStateFile(run_dir, "hub", recorder.store, "active", time.time())
    state.write_now()
    state.follow()
    async with serving(recorder) as served:
        yield served


def _outage_kind(recorder: Recorder) -> FaultKind | None:
    outage = recorder.store.outage
    return None if outage is None else outage.fault.kind


def _record(link: HubLink, hands: range) -> set[str]:
    return {link.record_result(hand_result(h)).id for h in hands}


async def _outage_then_return(
    recorder: Recorder,
    link: HubLink,
    site: Site,
    kind: FaultKind,
    run_dir: Path,
    fail: Callable[[], object],
    heal: Callable[[], object],
) -> set[str]:
    """Ten results stored, the store fails, ten more wait unacked, it heals, all are stored."""
    ids = _record(link, range(1, 11))
    await eventually(lambda: link.pending_results == 0, "the first ten acked")
    fail()
    try:  # healed whatever is seen: the cluster is shared by the tests that follow
        ids |= _record(link, range(11, 21))
        await eventually(lambda: recorder.store.outage is not None, "the store seen down")
        await eventually(lambda: recorder.held >= 10, "the ten new results held", 30)
        assert _outage_kind(recorder) == kind
        assert link.pending_results == 10  # nothing acked that is not stored
        page = (await site.get("/")).body
        assert "Results store down since" in page and "id=store-down" in page
        code, said = await _hub_status(run_dir)
        assert code == 1 and "results store down since" in said, said
        # The fault's words after its first ": " are the last try's error, which changes at every
        # try (a refused connection after a dropped one): what is down is said the same.
        assert recorder.store.outage is not None
        assert recorder.store.outage.fault.text.split(": ")[0] in said, said
    finally:
        heal()
    await eventually(lambda: link.pending_results == 0, "every result acked once stored", 30)
    assert _outage_kind(recorder) is None
    assert "store-down" not in (await site.get("/")).body
    assert await _hub_status(run_dir) == (0, _STATUS_UP)
    return ids


_STATUS_UP = "results store up"


async def _hub_status(run_dir: Path) -> tuple[int, str]:
    """`mahjong-table hub status` as an operator runs it: its exit status and what it said
    (the last line, or every line when the store is down)."""

    def run() -> tuple[int, str]:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = main(["hub", "status", "--run-dir", str(run_dir)])
        lines = out.getvalue().strip().splitlines()
        return code, lines[-1] if code == 0 else out.getvalue()

    return await asyncio.to_thread(run)


async def test_a_postgresql_restart_is_waited_out_and_every_result_stored_once(
    broker: Broker, tmp_path: Path, pg_cluster: PgCluster
) -> None:
    url = pg_cluster.new_database()
    recorder = make_recorder(broker.url, url)
    link = make_link(broker.url, tmp_path / "outbox.db", SessionBook())
    async with floor(recorder, tmp_path / "run") as site, running(link.run()):
        ids = await _outage_then_return(
            recorder,
            link,
            site,
            FaultKind.UNREACHABLE,
            tmp_path / "run",
            pg_cluster.halt,
            pg_cluster.resume,
        )
    recorder.store.close()
    check = open_store(url)
    assert check.count() == 20 and {s.id for s in check.results()} == ids
    check.close()


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 16 MiB tmpfs of its own: a full disk as the kernel reports it (ENOSPC)."""
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(mount)],
                          capture_output=True, check=False)  # fmt: skip
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def _fill(disk: Path) -> Path:
    """Fill the disk to the last byte; returns the file to delete to free it."""
    filler = disk / "filler"
    with filler.open("wb", buffering=0) as out:
        try:
            while True:
                out.write(b"\0" * 65536)
        except OSError as exc:
            assert exc.errno == errno.ENOSPC
    return filler


async def test_a_full_disk_is_named_and_waited_out_and_every_result_stored_once(
    broker: Broker, tmp_path: Path, small_disk: Path
) -> None:
    db = small_disk / "hub.sqlite3"
    recorder = make_recorder(broker.url, db)
    link = make_link(broker.url, tmp_path / "outbox.db", SessionBook())
    filler = small_disk / "filler"
    async with floor(recorder, tmp_path / "run") as site, running(link.run()):
        ids = await _outage_then_return(
            recorder,
            link,
            site,
            FaultKind.DISK_FULL,
            tmp_path / "run",
            lambda: _fill(small_disk),
            filler.unlink,
        )
    recorder.store.close()
    check = open_store(str(db))
    assert check.count() == 20 and {s.id for s in check.results()} == ids
    check.close()


def test_a_full_disk_is_named_when_the_recorder_starts(small_disk: Path) -> None:
    open_store(str(small_disk / "hub.sqlite3")).close()
    _fill(small_disk)
    for name in ("hub.sqlite3", "new.sqlite3"):
        with pytest.raises(RuntimeFailure) as refused:
            open_store(str(small_disk / name)).bump("boot")
        assert "the recorder's disk is full: free space on " + str(small_disk) in str(refused.value)


async def test_a_blocked_store_delays_only_the_store_not_the_dashboard(
    broker: Broker, tmp_path: Path
) -> None:
    db = tmp_path / "hub.sqlite3"
    recorder = make_recorder(broker.url, db)
    link = make_link(broker.url, tmp_path / "outbox.db", SessionBook())
    other = sqlite3.connect(db, isolation_level=None)  # a backup holding the write lock
    async with floor(recorder, tmp_path / "run") as site, running(link.run()):
        other.execute("BEGIN IMMEDIATE")
        receipt = link.record_result(hand_result(1))
        assert (await site.get("/")).status == 200  # served while the store waits
        assert link.pending_results == 1 and recorder.connected.is_set()
        other.execute("COMMIT")
        await eventually(lambda: link.pending_results == 0, "acked once the store can write")
    other.close()
    recorder.store.close()
    assert [s.id for s in open_store(str(db)).results()] == [receipt.id]
