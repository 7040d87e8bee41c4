"""The diag commands with the daemon stopped: on the simulated table in process (`--sim`),
and on a real serial line (a simulator on a pty), which the daemon holds exclusively."""

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.diag.rig import daemon, diag, diag_json


def test_status_directly_on_the_simulated_table(tmp_path: Path) -> None:
    status, report = diag_json("status", "--sim", "--socket", str(tmp_path / "none.sock"))
    assert status == 0, report["problems"]
    assert report["mode"] == "direct"
    assert report["phase"] == "stopped"
    assert report["mcu"]["connected"]


def test_selftest_directly_names_each_injected_fault(tmp_path: Path) -> None:
    faults = ("--sim-jam-at", "5", "--sim-dead-antenna", "4", "--sim-stuck", "declare_w")
    done = diag("selftest", "--sim", "--yes", *faults)
    assert done.returncode == 1
    failed = [line for line in done.stdout.splitlines() if line.startswith("FAIL")]
    assert failed == [
        "FAIL  stacking head: the MCU finds the stacking head failing",
        "FAIL  zone readers: the MCU finds the HAND antenna of seat S failing",
        "FAIL  hand antenna of seat S: reads no tag",
        "FAIL  declare w: reads pressed before anyone pressed it (stuck)",
    ]
    assert "check: check the named antenna's cable and its reader board" in done.stdout


def test_selftest_answers_come_from_stdin(tmp_path: Path) -> None:
    # Seven LEDs: the technician saw all but the status LED's blue.
    answers = "\n" * 6 + "n\n"
    done = diag("selftest", "leds", "--sim", stdin=answers)
    assert done.returncode == 1
    assert "FAIL  status blue: not seen" in done.stdout
    assert "check: check the status blue, its resistor and its wire" in done.stdout
    assert done.stderr.count("[Enter: done, n: no]") == 7


def test_dice_distribution_over_many_rolls() -> None:
    status, report = diag_json("selftest", "dice", "--sim", "--rolls", "120")
    assert status == 0
    step = report["steps"][-1]
    assert step["name"] == "dice distribution (120 rolls)"
    counts = dict(part.split(":") for part in step["detail"].split(" (")[0].split())
    assert sum(map(int, counts.values())) == 240


def test_tiles_audit_names_missing_and_unread_tiles() -> None:
    status, report = diag_json("tiles", "--sim", "--sim-missing-tile", "5p")
    assert status == 1
    assert [(s["tiles_read"], s["missing"]) for s in report["sets"]] == [(143, ["5p"])] * 2
    done = diag("tiles", "--sim", "--sim-dead-antenna", "0")
    assert done.returncode == 1
    assert "144 places read no tag: check the wall reader" in done.stdout


def test_gpio_config_and_events_directly(tmp_path: Path) -> None:
    status, gpio = diag_json("gpio", "--sim", "--sim-stuck", "dice_button")
    assert status == 1
    assert gpio["problems"] == ["dice button reads pressed: stuck, or a short"]
    config = tmp_path / "table.toml"
    config.write_text('[table]\nid = "t9"\n[mqtt]\nresult_key = "s3cret-key"\npassword = ""\n')
    done = diag("config", "--config", str(config), "--socket", str(tmp_path / "none.sock"))
    assert done.returncode == 0
    assert "table.id = 't9'\n" in done.stdout
    assert "mqtt.result_key = '(set, hidden)'\n" in done.stdout
    assert "mqtt.password = ''   (default)" in done.stdout
    assert "s3cret" not in done.stdout
    status, events = diag_json("events", "--sim")
    assert status == 0
    assert events["lines"][0]["text"].startswith("mcu Connected(")


def test_usage_errors_exit_2_with_one_line() -> None:
    for args in (
        ("selftest", "wings", "--sim"),
        ("tiles", "enrol", "x", "--sim"),
        ("gpio", "--blink", "led_x", "--sim"),
        ("selftest", "--sim", "--rolls", "0"),
    ):
        done = diag(*args)
        assert done.returncode == 2, args
        assert len(done.stderr.strip().splitlines()) == 1
        assert done.stderr.startswith("mahjong-table: error: ")


@pytest.fixture
def mcu_on_pty(tmp_path: Path) -> Iterator[Path]:
    """The simulated MCU served on a pty, and a config whose [serial] port is that pty."""
    command = [sys.executable, "-m", "firmware_bridge.sim", "--pty", "--speed", "0"]
    sim = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    assert sim.stdout is not None
    device = sim.stdout.readline().strip()
    config = tmp_path / "table.toml"
    tileset = Path(__file__).parents[2] / "hardware" / "tilesets" / "sim-0.toml"  # seed 0's tags
    config.write_text(
        f'[table]\nid = "table-07"\ntileset = "{tileset}"\n[serial]\nport = "{device}"\n'
        f'[outbox]\npath = "{tmp_path / "outbox.sqlite3"}"\n'
    )
    yield config
    sim.send_signal(signal.SIGTERM)
    sim.wait()
    sim.stdout.close()


def test_directly_on_the_serial_line_and_busy_while_the_daemon_holds_it(
    mcu_on_pty: Path, tmp_path: Path
) -> None:
    env = {**os.environ, "GPIOZERO_PIN_FACTORY": "mock", "GPIOZERO_MOCK_PIN_CLASS": "mockpwmpin"}
    sock = str(tmp_path / "control.sock")
    command = [
        sys.executable,
        "-m",
        "controller",
        "diag",
        "status",
        "--config",
        str(mcu_on_pty),
        "--socket",
        sock,
        "--json",
    ]
    alone = subprocess.run(command, capture_output=True, text=True, env=env, timeout=60)
    assert '"connected": true' in alone.stdout, alone.stderr
    assert '"mode": "direct"' in alone.stdout
    # The daemon on the same line (real serial code, mock pins) holds it exclusively.
    run = [sys.executable, "-m", "controller", "run", "--config", str(mcu_on_pty)]
    holder = subprocess.Popen(
        [*run, "--socket", str(tmp_path / "other.sock")],
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert holder.stderr is not None
        while "table MCU connected" not in (line := holder.stderr.readline()):
            assert line, "the daemon ended"
        busy = subprocess.run(command, capture_output=True, text=True, env=env, timeout=60)
        assert busy.returncode == 1
        assert busy.stderr.startswith("mahjong-table: error: ")
        assert "is busy: the table daemon holds it" in busy.stderr
    finally:
        holder.send_signal(signal.SIGTERM)
        holder.wait(timeout=20)
        assert holder.stderr is not None
        holder.stderr.close()


def test_a_daemon_keeps_its_socket_from_a_second_one(tmp_path: Path) -> None:
    with daemon(tmp_path, "--sim-think", "600") as table:
        config = tmp_path / "second.toml"
        config.write_text('[table]\nid = "t2"\n')
        second = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "controller",
                "run",
                "--sim",
                "--config",
                str(config),
                "--socket",
                str(table.socket),
                "--sim-speed",
                "0",
            ],
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert second.stderr is not None
            while "no control socket" not in (line := second.stderr.readline()):
                assert line, "the second daemon ended"
            assert "another daemon serves this socket" in line
        finally:
            second.send_signal(signal.SIGTERM)
            second.wait(timeout=20)
            assert second.stderr is not None
            second.stderr.close()
        _, report = diag_json("status", "--socket", str(table.socket))
        assert report["table"] == "table-07"


def test_off_a_pi_direct_diag_says_one_line_and_events_fail_without_the_mcu(
    tmp_path: Path,
) -> None:
    config = tmp_path / "table.toml"
    config.write_text(f'[serial]\nport = "{tmp_path / "no-mcu"}"\n[gpio]\nenabled = true\n')
    sock = str(tmp_path / "none.sock")
    gpio = diag("gpio", "--config", str(config), "--socket", sock)
    assert "PinFactoryFallback" not in gpio.stderr
    assert "no GPIO panel: no GPIO is available on this machine" in gpio.stderr
    events = diag("events", "--config", str(config), "--socket", sock)
    assert events.returncode == 1
    assert "the table MCU could not be opened" in events.stdout


def test_diag_link_takes_the_port_from_the_config(tmp_path: Path) -> None:
    config = tmp_path / "table.toml"
    config.write_text(f'[serial]\nport = "{tmp_path / "no-mcu"}"\n')
    done = diag("link", "--config", str(config), "--timeout", "0.5", "--count", "1")
    assert done.returncode == 1
    assert f"cannot talk to the table MCU on {tmp_path / 'no-mcu'}" in done.stderr


def test_diag_help_loads_nothing_of_the_table() -> None:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "controller", "diag", "--help"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    loaded = {line.split("|")[-1].strip() for line in done.stderr.splitlines()}
    for heavy in ("asyncio", "msgspec", "aiomqtt", "firmware_bridge.messages", "controller.table"):
        assert heavy not in loaded, heavy
