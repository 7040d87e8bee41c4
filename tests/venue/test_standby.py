"""One active recorder per venue, each recorder in its own process as a venue runs it: a second
recorder of the same name on the same store exits 2 naming the one that runs, or (--standby)
waits without going on the broker and takes over when the first is killed; no recorder is
knocked off the broker, the predecessor's last will is named for what it is, and every result
is stored exactly once. On a SQLite file and on the suite's PostgreSQL."""

import asyncio
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from controller.venue.store import open_store
from devsupport.lines import Lines
from devsupport.mosquitto import Broker
from tests.hub.factories import KEY_TEXT, SessionBook, hand_result
from tests.hub.helpers import eventually, make_link, running

ROOT = Path(__file__).parents[2]
pytestmark = pytest.mark.broker


class Recorder:
    """`mahjong-table hub` in its own process."""

    def __init__(self, broker: Broker, db: str, keys: Path, *extra: str) -> None:
        command = [sys.executable, "-m", "controller", "hub", "--mqtt", broker.url, "--db", db,
                   "--keys", str(keys), *extra]  # fmt: skip
        self.process = subprocess.Popen(
            command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        assert self.process.stdout is not None
        self.lines = Lines(self.process.stdout).start()

    async def said(self, text: str, within: float = 20) -> str:
        return await asyncio.to_thread(self.lines.wait_for, text, within)

    def ended(self) -> int:
        """Its exit status, once it exits by itself."""
        code = self.process.wait(timeout=20)
        self.lines.finish()
        return code

    def stop(self, how: signal.Signals = signal.SIGTERM) -> int:
        if self.process.poll() is None:
            self.process.send_signal(how)
        code = self.process.wait(timeout=20)
        self.lines.finish()
        return code


def _status(run_dir: Path) -> str:
    """What `mahjong-table hub status` says."""
    command = [sys.executable, "-m", "controller", "hub", "status", "--run-dir", str(run_dir)]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def _keys(tmp_path: Path) -> Path:
    path = tmp_path / "keys.toml"
    path.write_text(f'[tables]\nt1 = "{KEY_TEXT}"\n')
    path.chmod(0o600)
    return path


async def test_a_second_recorder_of_the_venue_exits_2_naming_the_one_that_runs(
    broker: Broker, tmp_path: Path, store_spec: str
) -> None:
    keys = _keys(tmp_path)
    first = Recorder(broker, store_spec, keys)
    try:
        await first.said("recording to")
        second = Recorder(broker, store_spec, keys)
        assert second.ended() == 2
        assert any(
            "recorder hub on" in line and f"pid {first.process.pid}" in line
            and "already records for this venue" in line and "--standby" in line
            for line in second.lines.said
        ), second.lines.said  # fmt: skip
    finally:
        first.stop()


async def test_a_standby_takes_over_when_the_recorder_is_killed_and_stores_each_result_once(
    broker: Broker, tmp_path: Path, store_spec: str
) -> None:
    keys, run = _keys(tmp_path), ("--run-dir", str(tmp_path / "run"))
    first = Recorder(broker, store_spec, keys, *run)
    await first.said("recording to")
    standby = Recorder(broker, store_spec, keys, "--standby", *run)
    try:
        await standby.said(f"pid {first.process.pid}")
        said = _status(tmp_path / "run")
        assert (
            "standby: recorder hub: standby since" in said
            and f"(pid {standby.process.pid})" in said
        )
        assert "recorder hub: active since" in said and f"(pid {first.process.pid})" in said
        link = make_link(broker.url, tmp_path / "outbox.db", SessionBook())
        async with running(link.run()):
            ids = {link.record_result(hand_result(h)).id for h in range(1, 11)}
            await eventually(lambda: link.pending_results == 0, "the first ten acked")
            assert first.stop(signal.SIGKILL) == -signal.SIGKILL
            await standby.said("took over: this is now the venue's active recorder")
            await standby.said("recorder online as hub")
            said = _status(tmp_path / "run")
            assert "recorder hub: active since" in said and f"(pid {standby.process.pid})" in said
            ids |= {link.record_result(hand_result(h)).id for h in range(11, 21)}
            await eventually(lambda: link.pending_results == 0, "the next ten acked", 30)
    finally:
        first.stop()
        assert standby.stop() == 0
    for recorder in (first, standby):
        assert not any("lost the broker" in line for line in recorder.lines.said)  # no flapping
    # The broker kept the killed recorder's last will for the session both share: named, not
    # refused as a forgery.
    assert not any("hub state not ours" in line for line in standby.lines.said)
    assert standby.lines.seen("the last will (or goodbye) of this recorder's predecessor")
    store = open_store(store_spec)
    assert store.count() == 20 and {s.id for s in store.results()} == ids
    store.close()
