"""`mahjong-table run` as an operator meets it: bad --sim options refused, one line off a Pi,
and one daemon per table (a second one, or `diag link`, is told who holds the table)."""

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.cli import main
from devsupport.lines import Lines
from devsupport.notify import NotifySocket

ROOT = Path(__file__).parent.parent
TILESET = ROOT / "hardware" / "tilesets" / "sim-0.toml"
KEY = "0123456789abcdef0123456789abcdef"


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--sim", "--sim-speed", "-1"], "--sim-speed must be a number of 0 or more, not -1.0"),
        (["--sim", "--sim-speed", "nan"], "--sim-speed must be a number of 0 or more, not nan"),
        (["--sim", "--sim-think", "-2"], "--sim-think must be a number of 0 or more, not -2.0"),
        (["--sim-speed", "0", "--sim-pty"], "--sim-pty, --sim-speed: only with --sim"),
    ],
)
def test_bad_simulation_options_are_refused(
    args: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", *args]) == 2
    assert capsys.readouterr().err.startswith(f"mahjong-table: error: {says}")


@pytest.mark.parametrize("wait", ["nan", "-1"])
def test_simulate_refuses_an_ack_wait_that_is_not_a_time(
    wait: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["simulate", "--ack-wait", wait]) == 2
    assert capsys.readouterr().err.startswith("mahjong-table: error: --ack-wait must be a number")


def _command(*args: str) -> list[str]:
    return [sys.executable, "-m", "controller", *args]


def test_off_a_pi_run_says_in_one_line_there_is_no_gpio(tmp_path: Path) -> None:
    config = tmp_path / "table.toml"
    config.write_text(
        f'[table]\ntileset = "{TILESET}"\n[serial]\nport = "/dev/null"\n'
        f'[outbox]\npath = "{tmp_path / "outbox.sqlite3"}"\n'
    )
    env = {k: v for k, v in os.environ.items() if k != "GPIOZERO_PIN_FACTORY"}
    result = subprocess.run(
        _command("run", "--config", str(config)),
        capture_output=True,
        text=True,
        check=False,
        env=env,
        timeout=60,
    )
    assert result.returncode == 2
    assert result.stderr.startswith("mahjong-table: error: no GPIO is available on this machine")
    assert "--sim" in result.stderr
    assert "[gpio] enabled = false" in result.stderr
    assert len(result.stderr.splitlines()) == 1, result.stderr  # no gpiozero warnings


class Daemon:
    """A `mahjong-table run` process whose readiness and log lines can be waited for."""

    def __init__(self, *args: str) -> None:
        self.notify = NotifySocket()
        self.process = subprocess.Popen(
            _command("run", *args), stderr=subprocess.PIPE, text=True, env=self.notify.env()
        )
        assert self.process.stderr is not None
        self.lines = Lines(self.process.stderr).start()

    def wait_ready(self, within: float = 30) -> None:
        """Until the daemon tells systemd (the test's NOTIFY_SOCKET) that it is ready."""
        self.notify.wait_ready(self.process.pid, within)

    def wait_for(self, text: str, within: float = 30) -> None:
        """Until a log line contains `text`."""
        self.lines.wait_for(text, within)

    def stop(self) -> int:
        """SIGTERM, then its exit status."""
        self.notify.close()
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=15)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()


@pytest.fixture
def daemons() -> Iterator[list[Daemon]]:
    started: list[Daemon] = []
    yield started
    for daemon in started:
        daemon.stop()


def test_a_second_daemon_on_one_table_exits_2_naming_the_first(
    tmp_path: Path, daemons: list[Daemon]
) -> None:
    outbox = tmp_path / "outbox.sqlite3"
    config = tmp_path / "table.toml"
    config.write_text(
        f'[mqtt]\nurl = "mqtt://127.0.0.1:9"\nresult_key = "{KEY}"\n[outbox]\npath = "{outbox}"\n'
    )
    config.chmod(0o600)
    args = ("--config", str(config), "--sim", "--sim-speed", "0", "--sim-think", "0")
    first = Daemon(*args)
    daemons.append(first)
    first.wait_ready()
    second = subprocess.run(
        _command("run", *args), capture_output=True, text=True, check=False, timeout=60
    )
    assert second.returncode == 2
    assert second.stderr == (
        f"mahjong-table: error: another mahjong-table run (pid {first.process.pid}) holds "
        f"{outbox}.lock: stop it first (systemctl stop mahjong-table)\n"
    )
    assert first.stop() == 0  # the first one never noticed


@pytest.fixture
def mcu_pty() -> Iterator[str]:
    """The software MCU on a pty in its own process (seed 0: the tile set in hardware/)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "firmware_bridge.sim", "--pty", "--speed", "0", "--seed", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdout is not None
    yield process.stdout.readline().strip()
    process.terminate()
    process.wait(timeout=5)


def test_diag_link_while_the_daemon_runs_names_it_and_leaves_the_port(
    tmp_path: Path, mcu_pty: str, daemons: list[Daemon]
) -> None:
    config = tmp_path / "table.toml"
    config.write_text(
        f'[table]\ntileset = "{TILESET}"\n[serial]\nport = "{mcu_pty}"\n'
        f'[outbox]\npath = "{tmp_path / "outbox.sqlite3"}"\n[gpio]\nenabled = false\n'
    )
    daemon = Daemon("--config", str(config))
    daemons.append(daemon)
    daemon.wait_for("connected (boot")
    diag = subprocess.run(
        _command("diag", "link", "--port", mcu_pty, "--count", "3"),
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert diag.returncode == 2
    assert diag.stderr.startswith(
        f"mahjong-table: error: another mahjong-table run (pid {daemon.process.pid}) holds "
        f"{mcu_pty}"
    )
    assert daemon.process.poll() is None
    assert daemon.stop() == 0
