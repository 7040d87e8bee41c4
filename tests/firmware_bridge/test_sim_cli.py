"""`python -m firmware_bridge.sim` as technicians and the daemon start it."""

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from firmware_bridge.link import Link
from firmware_bridge.messages import Ping
from firmware_bridge.serial_port import serial_opener
from firmware_bridge.tileset import read_tileset
from tests.firmware_bridge.conftest import FAST


async def test_first_stdout_line_is_the_pty_to_open(sim_process: str) -> None:
    assert sim_process.startswith("/dev/")
    async with Link(serial_opener(sim_process), FAST) as link:
        assert link.identify is not None and link.identify.boot_count == 1
        assert (await link.request(Ping(3))).token == 3


@pytest.fixture
def tcp_sim(tmp_path: Path) -> Iterator[str]:
    """The simulator serving TCP with a little line noise, writing its tile set to tmp_path."""
    command = [sys.executable, "-m", "firmware_bridge.sim", "--tcp", "0", "--speed", "0"]
    command += ["--seed", "12", "--tileset-dir", str(tmp_path), "--corrupt", "0.001"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert process.stdout is not None
    yield process.stdout.readline().decode().strip()
    process.terminate()
    process.wait(timeout=5)


async def test_tcp_mode_prints_a_socket_url_and_writes_the_tileset(
    tcp_sim: str, tmp_path: Path
) -> None:
    assert tcp_sim.startswith("socket://127.0.0.1:")
    async with Link(serial_opener(tcp_sim), FAST) as link:
        assert (await link.request(Ping(4))).token == 4
    assert read_tileset(tmp_path / "sim-12.toml").name == "sim-12"


def test_a_bad_fault_rate_is_a_one_line_error() -> None:
    command = [sys.executable, "-m", "firmware_bridge.sim", "--pty", "--drop", "2"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=20)
    assert result.returncode == 2
    assert result.stderr.strip() == (
        "python -m firmware_bridge.sim: error: drop must be a chance between 0 and 1"
    )
