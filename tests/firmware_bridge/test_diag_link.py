"""`mahjong-table diag link`: what a technician sees when checking the table MCU link."""

import json
import subprocess
from pathlib import Path

import pytest

from controller.cli import main
from tests.firmware_bridge.conftest import sim_command


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
    mcu_firmware: Path | None, capsys: pytest.CaptureFixture[str]
) -> None:
    process = subprocess.Popen(
        sim_command(mcu_firmware, "--corrupt", "0.03"),
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


def test_every_ping_is_answered_on_a_line_that_damages_and_loses_frames(
    mcu_firmware: Path | None, capsys: pytest.CaptureFixture[str]
) -> None:
    # A bad cable: 1 % of the bytes damaged and 3 % of the frames lost, both ways.
    process = subprocess.Popen(
        sim_command(mcu_firmware, "--corrupt", "0.01", "--drop", "0.03"),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdout is not None
    path = process.stdout.readline().strip()
    try:
        main(["diag", "link", "--port", path, "--count", "300", "--json", "--deadline", "60"])
    finally:
        process.terminate()
        process.wait(timeout=5)
    report = json.loads(capsys.readouterr().out)
    assert (report["pings_sent"], report["pings_answered"]) == (300, 300)
    assert report["crc_errors"] > 0 and report["retransmits"] > 0
    assert report["reconnects"] == 0
