"""`mahjong-table diag link`: what a technician sees when checking the table MCU link."""

import json
import subprocess
import sys

import pytest

from controller.cli import main


def test_json_report_of_a_healthy_link(
    sim_process: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["diag", "link", "--port", sim_process, "--count", "15", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["identify"]["table_hash_matches"] is True
    assert report["identify"]["seats"] == 4
    assert (report["pings_sent"], report["pings_answered"]) == (15, 15)
    assert report["rtt_ms_p50"] <= report["rtt_ms_p99"]
    assert report["crc_errors"] == report["retransmits"] == report["reconnects"] == 0


def test_plain_report_speaks_plain_words(
    sim_process: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["diag", "link", "--port", sim_process, "--count", "5"]) == 0
    out = capsys.readouterr().out
    assert "Pings: 5 sent, 5 answered." in out
    assert "matches this daemon" in out
    assert "Result: OK" in out


def test_a_missing_device_is_one_line_and_exit_1(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diag", "link", "--port", "/dev/no-such-table", "--timeout", "0.2"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith(
        "mahjong-table: error: cannot talk to the table MCU on /dev/no-such-table"
    )
    assert "no such device" in err and "\n" not in err


def test_zero_pings_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diag", "link", "--port", "/dev/null", "--count", "0"]) == 2


def test_a_noisy_line_is_graded_and_the_check_ends_by_its_deadline(
    capsys: pytest.CaptureFixture[str],
) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "firmware_bridge.sim", "--pty", "--speed", "0", "--corrupt", "0.03"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdout is not None
    path = process.stdout.readline().strip()
    try:
        code = main(["diag", "link", "--port", path, "--count", "100000", "--deadline", "2"])
    finally:
        process.terminate()
        process.wait(timeout=5)
    out = capsys.readouterr().out
    assert "Stopped at the deadline before every ping was sent." in out
    assert "Result: OK" not in out
    assert "resends per" in out or "damaged frames" in out
    assert code in (0, 1)
