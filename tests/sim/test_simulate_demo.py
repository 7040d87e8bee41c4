"""`scripts/demo`, the README's first command, run as a user runs it: a private broker and the
venue recorder come up, a session is played and recorded, the standings are printed, and
nothing is left behind (no broker listening, no temporary folder), whether it worked or not."""

import os
import re
import socket
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]

pytestmark = [pytest.mark.slow, pytest.mark.broker]


def run_demo(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run scripts/demo with its temporary files under `tmp_path`."""
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {**os.environ, "TMPDIR": str(scratch)}
    return subprocess.run(
        [str(ROOT / "scripts" / "demo"), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def left_behind(tmp_path: Path, done: subprocess.CompletedProcess[str]) -> list[str]:
    """Whatever the demo should have cleaned up and did not."""
    found = [str(p) for p in (tmp_path / "tmp").iterdir()]
    port = re.search(r"private mosquitto on mqtt://127\.0\.0\.1:(\d+)", done.stderr)
    assert port is not None, done.stderr
    try:
        socket.create_connection(("127.0.0.1", int(port.group(1))), 1).close()
        found.append(f"a broker on port {port.group(1)}")
    except OSError:
        pass
    return found


def test_the_demo_plays_records_and_prints_the_standings_then_cleans_up(tmp_path: Path) -> None:
    done = run_demo(tmp_path, "--ruleset", "sichuan", "--hands", "2")

    assert done.returncode == 0, done.stdout + done.stderr
    assert "(sichuan, seed 0): all 2 hands played" in done.stdout
    assert "hub: 2 of 2 results acked by the recorder" in done.stdout
    standings = done.stdout[done.stdout.index("rank ") :].splitlines()
    assert len(standings) == 5 and all(len(line.split()) == 9 for line in standings)
    assert left_behind(tmp_path, done) == []


def test_a_failing_demo_still_cleans_up(tmp_path: Path) -> None:
    done = run_demo(tmp_path, "--hands", "0")

    assert done.returncode != 0
    assert "--hands must be between 1 and 1000" in done.stderr
    assert left_behind(tmp_path, done) == []
