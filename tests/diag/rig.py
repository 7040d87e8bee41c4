"""The daemon and the diag command as separate processes, as a technician meets them: the
daemon on the simulated table with its control socket, `mahjong-table diag ...` beside it."""

import json
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from devsupport.lines import Lines
from devsupport.notify import NotifySocket

CONFIG = """
[table]
id = "table-07"
ruleset = "zung-jung"

[session]
hands = {hands}
seating_draw = {seating_draw}

[hand]
zone_settle_s = 0.2
zone_absence_s = 0.2

[outbox]
path = "{outbox}"
"""


@dataclass
class Daemon:
    """A running `mahjong-table run --sim` and what it has said on stderr."""

    process: subprocess.Popen[str]
    socket: Path
    config: Path
    lines: Lines

    @property
    def said(self) -> list[str]:
        """Every line of stderr so far."""
        return self.lines.said

    def wait_for(self, text: str, within: float = 90.0) -> str:
        """The first line of stderr (after the last one waited for) containing `text`."""
        return self.lines.wait_for(text, within)

    def wait_all(self, *texts: str, within: float = 90.0) -> None:
        """Until every text has been said (at any time, in any order)."""
        for text in texts:
            if not self.lines.seen(text):
                self.wait_for(text, within)


@contextmanager
def daemon(
    tmp_path: Path,
    *sim_args: str,
    hands: int = 1,
    seating_draw: bool = True,
    socket: Path | None = None,
    extra_config: str = "",
) -> Iterator[Daemon]:
    """Start the daemon on the simulated table; yield it once it has told systemd (a
    NOTIFY_SOCKET of the test's own) that it is ready, its control socket listening."""
    config = tmp_path / "table.toml"
    draw = "true" if seating_draw else "false"
    config.write_text(
        CONFIG.format(hands=hands, seating_draw=draw, outbox=tmp_path / "outbox.sqlite3")
        + extra_config
    )
    socket = socket or tmp_path / "control.sock"
    command = [
        sys.executable,
        "-m",
        "controller",
        "run",
        "--config",
        str(config),
        "--sim",
        "--socket",
        str(socket),
        "--sim-speed",
        "0",
        *sim_args,
    ]
    notify = NotifySocket()
    process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True, env=notify.env())
    assert process.stderr is not None
    running = Daemon(process, socket, config, Lines(process.stderr).start())
    try:
        try:
            notify.wait_ready(process.pid)
        except AssertionError as error:
            raise AssertionError(f"{error}\n{running.lines.text()}") from None
        yield running
    finally:
        notify.close()
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        running.lines.finish()


def diag(
    *args: str, stdin: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run `mahjong-table diag ARGS` and collect its output."""
    return subprocess.run(
        [sys.executable, "-m", "controller", "diag", *args],
        capture_output=True,
        text=True,
        input=stdin,
        timeout=120,
        env=env,
    )


def diag_json(*args: str) -> tuple[int, Any]:
    """`diag ARGS --json`: the exit status and the object printed."""
    done = diag(*args, "--json")
    assert done.stdout, done.stderr
    return done.returncode, json.loads(done.stdout)
