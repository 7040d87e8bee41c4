"""Three programs in one package, kept apart at run time: the table daemon, as `--help` shows it
and as it starts on a table, loads no module of the venue hub or of the simulator, nor their
libraries (a Pi installs none of them). The import contracts in pyproject.toml say the same of
the source; this checks what a real start loads. A technician's `diag --help` and `diag status`
load no event loop and no config loader, so they start quickly (the figures: bench/cli_bench.py)."""

import contextlib
import signal
import subprocess
import sys
from pathlib import Path

from devsupport.notify import NotifySocket
from tests.diag.rig import daemon

ROOT = Path(__file__).parent.parent
FOREIGN = ("controller.venue", "controller.sim", "firmware_bridge.sim", "psycopg", "selenium")


def _loaded(importtime: str) -> set[str]:
    """The modules named in `python -X importtime` output (every module an import statement
    loads; the CLI's `import_module` of the command's own module is not listed, its imports are)."""
    return {
        line.rsplit("|", 1)[1].strip()
        for line in importtime.splitlines()
        if line.startswith("import time:") and "|" in line
    }


def _foreign(modules: set[str], foreign: tuple[str, ...] = FOREIGN) -> list[str]:
    return sorted(m for m in modules if any(m == f or m.startswith(f + ".") for f in foreign))


SLOW_FOR_DIAG = (
    *FOREIGN,
    "asyncio",
    "controller.config",
    "controller.config_loader",
    "controller.table",
    "controller.diag.status",
    "controller.diag.selftest",
    "controller.diag.tiles",
    "controller.diag.events",
    "shutil",
)
"""What neither `diag --help` nor `diag status` asking a daemon needs: an event loop, the
config loader (the socket's path is read alone), the table, the reports of other actions,
argparse's default help formatter (`shutil` and its compression modules); nor msgspec (the
status comes as JSON and is printed as it came)."""


def test_diag_help_loads_no_event_loop_no_config_and_no_msgspec() -> None:
    command = [sys.executable, "-X", "importtime", "-m", "controller", "diag", "--help"]
    done = subprocess.run(command, capture_output=True, text=True, check=False, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "status" in done.stdout
    loaded = _loaded(done.stderr)
    assert "controller.diag.vocabulary" in loaded  # the list is the real one
    assert _foreign(loaded, (*SLOW_FOR_DIAG, "msgspec")) == []


def test_diag_status_asks_the_daemon_without_an_event_loop_a_decoder_or_the_config_loader(
    tmp_path: Path,
) -> None:
    sock = tmp_path / "control.sock"
    extra = f'[control]\nsocket = "{sock}"\n'  # the status command finds it in the config
    with daemon(tmp_path, socket=sock, extra_config=extra) as table:
        command = [sys.executable, "-X", "importtime", "-m", "controller", "diag", "status"]
        done = subprocess.run(
            [*command, "--config", str(table.config)],
            capture_output=True,
            text=True,
            check=False,
            timeout=60,
        )
    assert "Table table-07:" in done.stdout and "[daemon]" in done.stdout, done.stderr
    loaded = _loaded(done.stderr)
    assert {"controller.diag.client", "controller.diag.socket_path"} <= loaded
    assert _foreign(loaded, (*SLOW_FOR_DIAG, "msgspec")) == []


def test_run_help_loads_neither_the_venue_hub_nor_the_simulator() -> None:
    command = [sys.executable, "-X", "importtime", "-m", "controller", "run", "--help"]
    done = subprocess.run(command, capture_output=True, text=True, check=False, timeout=60)
    assert done.returncode == 0, done.stderr
    loaded = _loaded(done.stderr)
    assert "controller.config" in loaded  # the list is the real one (run's own imports)
    assert _foreign(loaded) == []


def test_the_daemon_started_on_a_table_loads_neither(tmp_path: Path) -> None:
    config = tmp_path / "table.toml"
    config.write_text(
        f'[table]\ntileset = "{ROOT / "hardware" / "tilesets" / "sim-0.toml"}"\n'
        f'[serial]\nport = "{tmp_path / "no-mcu-here"}"\n[gpio]\nenabled = false\n'
        f'[outbox]\npath = "{tmp_path / "outbox.sqlite3"}"\n'
        f'[control]\nsocket = "{tmp_path / "control.sock"}"\n'
    )
    log = tmp_path / "stderr.txt"
    command = [
        sys.executable,
        "-X",
        "importtime",
        "-m",
        "controller",
        "run",
        "--config",
        str(config),
    ]
    with contextlib.closing(NotifySocket()) as notify, log.open("w") as stderr:
        process = subprocess.Popen(command, stderr=stderr, env=notify.env())
        try:
            notify.wait_ready(process.pid, within=60)
        finally:
            process.send_signal(signal.SIGTERM)
            status = process.wait(timeout=30)
    said = log.read_text()
    assert status == 0, said
    loaded = _loaded(said)
    assert {"controller.app", "firmware_bridge.link", "controller.diag.server"} <= loaded
    assert _foreign(loaded) == []
