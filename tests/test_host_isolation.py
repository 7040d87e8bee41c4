"""No test touches the host's /etc, /run or /var: the daemon's default control socket lives in
the tests' own runtime folder (a test that leaves it at its default never reaches another
daemon serving /run/mahjong-table/control.sock), and a write there is refused."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from controller.config import TableConfig
from controller.paths import INSTALLED_RUN_DIR, RUN_DIR_VARIABLE
from devsupport.host_guard import HostPathTouched, on_host
from tests import conftest


def test_the_default_control_socket_is_not_the_hosts() -> None:
    socket = TableConfig().control.socket
    assert not on_host(socket)
    assert socket.parent == Path(os.environ[RUN_DIR_VARIABLE])


def test_a_command_run_by_a_test_defaults_to_the_tests_socket_too(tmp_path: Path) -> None:
    config = tmp_path / "table.toml"
    config.write_text("")
    done = subprocess.run(
        [sys.executable, "-m", "controller", "diag", "config", "--config", str(config), "--json"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert str(INSTALLED_RUN_DIR) not in done.stdout
    assert os.environ[RUN_DIR_VARIABLE] in done.stdout


def test_a_write_under_run_is_refused_and_fails_the_test() -> None:
    before = len(conftest.HOST_TOUCHES)
    with pytest.raises(HostPathTouched):
        Path("/run/mahjong-table-no-such-dir/probe").open("w")  # noqa: SIM115
    assert conftest.HOST_TOUCHES[before:] == ["open /run/mahjong-table-no-such-dir/probe"]
    del conftest.HOST_TOUCHES[before:]  # this test meant it: the guard is what it checks
