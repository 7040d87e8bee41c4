"""Library text never reaches the user: errno codes, msgspec's validation text, a counters repr
or asyncio's "never retrieved" noise become sentences; a session filter that matches nothing
says so."""

import csv
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from devsupport.lines import Lines
from devsupport.mosquitto import Broker

ROOT = Path(__file__).parent.parent


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "controller", *args],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
        timeout=60,
    )


def _empty_store(tmp_path: Path) -> Path:
    store = tmp_path / "hub.sqlite3"
    store.touch()
    return store


def test_an_os_error_is_a_sentence_without_errno(tmp_path: Path) -> None:
    store = _empty_store(tmp_path)
    standings = str(tmp_path / "standings.csv")
    result = _cli(
        "hub", "export", "--db", str(store), "--results", "/proc/nope/results.csv",
        "--standings", standings,
    )  # fmt: skip
    assert result.returncode == 1
    assert result.stderr == (
        "mahjong-table: error: /proc/nope/results.csv: no such file or directory\n"
    )


def test_export_of_a_session_that_is_not_there_says_so(tmp_path: Path) -> None:
    store, out = _empty_store(tmp_path), tmp_path / "results.csv"
    standings = tmp_path / "standings.csv"  # never the working directory's (the repository's)
    result = _cli(
        "hub", "export", "--db", str(store), "--results", str(out), "--standings", str(standings),
        "--session", "nope",
    )  # fmt: skip
    assert result.returncode == 2
    assert "mahjong-table: no session matched --session nope" in result.stderr
    with out.open() as f:
        assert next(csv.reader(f))[:3] == ["result_id", "table", "seq"]  # the header is there


def test_a_bad_start_command_names_the_option_not_the_json_path() -> None:
    result = _cli(
        "hub", "send", "t1", "start", "--session", "s1", "--players", "a,b,c,d",
        "--ruleset", "riichi", "--mqtt", "mqtt://127.0.0.1:9",
    )  # fmt: skip
    assert result.returncode == 2
    [line] = result.stderr.splitlines()
    assert line.startswith("mahjong-table: error: ") and "--ruleset" in line and "'riichi'" in line
    assert "zung-jung" in line and "$." not in line, "names the choices, not a JSON path"


@pytest.mark.broker
def test_the_recorder_stops_on_sigterm_with_counts_in_words(broker: Broker, tmp_path: Path) -> None:
    keys = tmp_path / "keys.toml"
    keys.write_text('[tables]\nt1 = "0123456789abcdef0123456789abcdef"\n')
    keys.chmod(0o600)
    command = [sys.executable, "-m", "controller", "hub", "--mqtt", broker.url]
    command += ["--db", str(tmp_path / "hub.sqlite3"), "--keys", str(keys)]
    process = subprocess.Popen(
        command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    assert process.stdout is not None
    lines = Lines(process.stdout).start()
    try:
        online = lines.wait_for("recorder online", within=30)
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=15)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    lines.finish()
    rest = lines.text().partition(online)[2]
    assert process.returncode == 0
    assert "stopped: 0 results recorded, 0 duplicates, 0 refused, 0 resend requests" in rest
    assert "RecorderCounters" not in rest
    assert "never retrieved" not in rest
