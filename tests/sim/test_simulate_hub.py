"""`simulate --mqtt` against a real mosquitto and the venue recorder as a venue runs it
(`mahjong-table hub --mqtt URL --db X --keys Y`, its own process): every result is acked and
lands in the recorder's SQLite file; a recorder without the table's key refuses the results and
the command says so; with no recorder the command gives up after its bounded wait."""

import csv
import re
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

from controller.cli import main
from controller.hub.table_side.hub_link import KEY_DOUBT
from devsupport.lines import Lines
from devsupport.mosquitto import Broker
from tests.sim.test_simulate import scores

ROOT = Path(__file__).parents[2]
KEY = "a1b2c3d4e5f60718293a4b5c6d7e8f90"

pytestmark = pytest.mark.broker


class RecorderProcess:
    """`mahjong-table hub` in its own process, recording into `db`."""

    def __init__(
        self, url: str, db: Path, keys: Path, *extra: str, ready: str = "recording to"
    ) -> None:
        command = [sys.executable, "-m", "controller", "hub", "--mqtt", url]
        command += ["--db", str(db), "--keys", str(keys), *extra]
        self.process = subprocess.Popen(
            command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        assert self.process.stdout is not None
        self.lines = Lines(self.process.stdout).start()
        self.lines.wait_for(ready, within=20)

    def stop(self) -> None:
        """SIGTERM, as systemd stops it."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def keys_file(path: Path, key: str) -> Path:
    """A recorder's keys file with one table, sim-table."""
    path.write_text(f'[tables]\nsim-table = "{key}"\n')
    path.chmod(0o600)
    return path


@pytest.fixture
def recorder(broker: Broker, tmp_path: Path) -> Iterator[RecorderProcess]:
    """The venue recorder, knowing sim-table's key."""
    process = RecorderProcess(broker.url, tmp_path / "hub.sqlite3", keys_file(tmp_path / "k", KEY))
    yield process
    process.stop()


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as rows:
        return list(csv.DictReader(rows))


def test_every_result_is_acked_and_recorded_by_the_venue_recorder(
    broker: Broker,
    recorder: RecorderProcess,
    tmp_path: Path,
    pins: MockFactory,
    capsys: pytest.CaptureFixture[str],
) -> None:
    command = ["simulate", "--fast", "--hands", "3", "--ruleset", "zung-jung"]
    command += ["--mqtt", broker.url, "--keys", str(tmp_path / "k"), "--db", str(tmp_path / "ob")]
    status = main(command)
    out = capsys.readouterr().out
    recorder.stop()

    assert status == 0, out
    assert f"hub: 3 of 3 results acked by the recorder at {broker.url} (0 waiting)" in out
    session = re.search(r"^session (\S+) \(zung-jung", out, re.MULTILINE)
    assert session is not None
    export = ["hub", "export", "--db", str(tmp_path / "hub.sqlite3")]
    results, standings = tmp_path / "results.csv", tmp_path / "standings.csv"
    assert main([*export, "--results", str(results), "--standings", str(standings)]) == 0
    rows = read_csv(results)
    assert [(r["table"], r["session"], r["hand"]) for r in rows] == [
        ("sim-table", session.group(1), str(hand)) for hand in (1, 2, 3)
    ]
    assert {r["audit"] for r in rows} == {"ok"}, "each wall commitment matched its reveal"
    recorded = {row["player"]: int(row["total"]) for row in read_csv(standings)}
    assert recorded == scores(out)


def test_a_recorder_without_this_tables_key_gets_nothing_and_the_command_says_why(
    broker: Broker, recorder: RecorderProcess, pins: MockFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    # No --keys: the table signs with the demo key, which this recorder does not know.
    status = main(["simulate", "--fast", "--hands", "2", "--mqtt", broker.url])
    captured = capsys.readouterr()

    assert status == 1
    assert "hub: 0 of 2 results acked" in captured.out
    error = captured.err.strip().splitlines()[-1]
    assert error == f"mahjong-table: error: {KEY_DOUBT}", error


def test_with_no_recorder_the_command_waits_a_bounded_time_and_fails(
    broker: Broker, pins: MockFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    command = ["simulate", "--fast", "--hands", "2", "--mqtt", broker.url, "--ack-wait", "0.5"]
    status = main(command)
    captured = capsys.readouterr()

    assert status == 1
    assert "hub: 0 of 2 results acked by the recorder" in captured.out
    assert "(2 waiting)" in captured.out
    error = captured.err.strip().splitlines()[-1]
    assert error == (
        "mahjong-table: error: 2 results not acked by the hub within 0.5 s: no recorder is "
        f"online on {broker.url} (start `mahjong-table hub --mqtt {broker.url}`)"
    )


def test_an_unreachable_broker_is_named_with_its_host_and_port(
    pins: MockFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = ["simulate", "--fast", "--hands", "1", "--ack-wait", "0.5"]
    status = main([*command, "--mqtt", f"mqtt://127.0.0.1:{port}"])
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert status == 1
    assert error == (
        "mahjong-table: error: 1 results not acked by the hub within 0.5 s: the broker at "
        f"127.0.0.1:{port} refused the connection (is mosquitto running there?)"
    )


def test_a_rerun_on_an_outbox_with_earlier_results_counts_them_apart(
    broker: Broker,
    recorder: RecorderProcess,
    tmp_path: Path,
    pins: MockFactory,
    capsys: pytest.CaptureFixture[str],
) -> None:
    command = ["simulate", "--fast", "--hands", "2", "--mqtt", broker.url]
    command += ["--keys", str(tmp_path / "k"), "--db", str(tmp_path / "ob")]
    assert main([*command, "--seed", "1"]) == 0
    # The recorder forgets what it holds: it asks this outbox for everything again.
    recorder.stop()
    (tmp_path / "hub.sqlite3").unlink()
    again = RecorderProcess(broker.url, tmp_path / "hub.sqlite3", tmp_path / "k")
    try:
        capsys.readouterr()
        assert main([*command, "--seed", "2"]) == 0
        out = capsys.readouterr().out
    finally:
        again.stop()
    hub_lines = [line for line in out.splitlines() if line.startswith("hub: ")]
    assert len(hub_lines) == 1
    acked = re.match(r"hub: (\d+) of (\d+) results", hub_lines[0])
    assert acked is None or int(acked[1]) <= int(acked[2]), hub_lines[0]
