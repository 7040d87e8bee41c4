"""`mahjong-table run --sim` as systemd runs it: a separate process that plays on the simulated
table (its MCU served on a real pty), and stops cleanly on SIGTERM; and a whole session with the
C firmware's host build as the table's MCU."""

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.process_output import lines_until

CONFIG = """
[table]
id = "sim-table"
ruleset = "zung-jung"
ruleset_file = "{house}"

[session]
hands = {hands}

[hand]
zone_settle_s = 0.2
zone_absence_s = 0.2
"""
HOUSE_RULES = "[claims]\nwindow_seconds = 0.5\n"
"""The daemon runs on real time: after a declared win the table holds the discard's claim
window open for other declarations (3 s by the book, 0.5 s here, where the simulated players
answer at once)."""


def _config(tmp_path: Path, hands: int) -> Path:
    """The table's config file, with the house rules of a short claim window."""
    house = tmp_path / "house.toml"
    house.write_text(HOUSE_RULES)
    config = tmp_path / "table.toml"
    config.write_text(CONFIG.format(house=house, hands=hands))
    return config


def _run_sim(config: Path, *options: str) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "controller", "run", "--config", str(config), "--sim"]
    command += ["--sim-speed", "0", "--sim-think", "0", *options]
    return subprocess.Popen(command, stderr=subprocess.PIPE, text=True)


def _stopped_after(
    process: "subprocess.Popen[str]", text: str, within: float
) -> tuple[int, list[str]]:
    """Wait for the daemon to say `text`, then stop it as systemd does (SIGTERM): its exit
    status and the lines it said until `text`."""
    try:
        assert process.stderr is not None
        lines = lines_until(process.stderr, text, within=within)
        process.send_signal(signal.SIGTERM)
        status = process.wait(timeout=10)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    return status, lines


def test_run_sim_plays_a_hand_and_stops_on_sigterm(tmp_path: Path) -> None:
    config = _config(tmp_path, hands=3)
    command = [
        sys.executable,
        "-m",
        "controller",
        "run",
        "--config",
        str(config),
        "--sim",
        "--sim-pty",
        "--sim-speed",
        "0",
        "--sim-think",
        "0",
    ]
    process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
    status, lines = _stopped_after(process, "hand 1 stored as result", within=30)
    assert status == 0
    said = "\n".join(lines)
    assert "hand 1: wall checked, raising the walls" in said
    assert "hand 1: deal checked, play" in said
    assert process.stderr is not None
    assert "INFO controller.commands.run_cmd: stopped" in process.stderr.read()


@pytest.mark.slow
@pytest.mark.timeout(600)  # 20 hands: about 20 s on a quiet 2-core machine, plus the build
def test_a_session_of_twenty_hands_is_played_with_the_c_firmware_as_the_mcu(
    tmp_path: Path, firmware_host: Path
) -> None:
    config = _config(tmp_path, hands=20)
    process = _run_sim(config, "--sim-firmware", str(firmware_host))
    status, lines = _stopped_after(process, "over (all 20 hands played)", within=400)
    assert status == 0
    said = "\n".join(lines)
    assert said.count("stored as result") == 20
    assert said.count("deal checked, play") == 20
    assert "table MCU connected (boot 1)" in said
    assert "MCU restarted" not in said and "ERROR" not in said and "reconnect" not in said
