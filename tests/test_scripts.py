"""The set-up scripts as a technician runs them on a fresh Pi: they keep their run bits, and
bootstrap waits (bounded, with a message) while another package manager holds dpkg's lock."""

import fcntl
import os
import subprocess
from pathlib import Path

import pytest

from tests.process_output import lines_until

ROOT = Path(__file__).parent.parent
SCRIPTS = sorted([*ROOT.glob("scripts/*"), *ROOT.glob("deploy/**/*.sh")])


def test_every_script_keeps_its_run_bit() -> None:
    assert any(path.name == "bootstrap.sh" for path in SCRIPTS)
    not_runnable = [str(p.relative_to(ROOT)) for p in SCRIPTS if not os.access(p, os.X_OK)]
    assert not_runnable == []


def _waiter(lock: Path, wait_s: int) -> subprocess.Popen[str]:
    script = "BOOTSTRAP_FUNCTIONS_ONLY=1 source scripts/bootstrap.sh && wait_for_apt_lock"
    env = {**os.environ, "APT_LOCKS": str(lock), "APT_LOCK_WAIT_S": str(wait_s)}
    return subprocess.Popen(
        ["bash", "-c", f"{script} && echo lock-free"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.fixture
def held_lock(tmp_path: Path) -> Path:
    """A dpkg-style lock file, locked the way dpkg locks it (fcntl)."""
    return tmp_path / "lock-frontend"


def test_bootstrap_waits_for_the_package_lock_then_goes_on(held_lock: Path) -> None:
    with held_lock.open("a") as holder:
        fcntl.lockf(holder, fcntl.LOCK_EX)
        waiter = _waiter(held_lock, 120)
        assert waiter.stderr is not None
        lines_until(waiter.stderr, "another package manager is at work", within=30)
        fcntl.lockf(holder, fcntl.LOCK_UN)
    out, err = waiter.communicate(timeout=30)
    assert waiter.returncode == 0, err
    assert out == "lock-free\n"
    assert "the package lock is free again" in err
    assert "Could not get lock" not in err


def test_bootstrap_gives_up_after_its_bound_with_advice(held_lock: Path) -> None:
    with held_lock.open("a") as holder:
        fcntl.lockf(holder, fcntl.LOCK_EX)
        waiter = _waiter(held_lock, 1)
        out, err = waiter.communicate(timeout=60)
    assert waiter.returncode == 1
    assert out == ""
    assert "still held after 1 s" in err
    assert "run this again" in err
