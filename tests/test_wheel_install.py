"""The package as a venue installs it: a wheel built from the source, installed with its
dependencies into a fresh virtualenv (no source tree, no editable install), runs the daemon on
the simulated table and a whole simulated session. Everything the daemon reads at start (the
pinout, the ruleset data, the hub schemas) must come from the installed package."""

import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from csv import DictReader
from pathlib import Path

import pytest

from devsupport.lines import Lines

# One worker runs the whole module: its module-wide fixture is made once.
# Building and installing are CPU work with generous timeouts: starvable.
pytestmark = [pytest.mark.xdist_group("wheel"), pytest.mark.starvable]

ROOT = Path(__file__).parent.parent
# What a clean clone holds besides the source: none of it may leak into the wheel's runs.
NOT_SOURCE = shutil.ignore_patterns(
    ".venv", ".git", "build", "dist", "*.egg-info", "__pycache__", ".*_cache", ".hypothesis"
)


def _pip(python: Path, *args: str, cwd: Path) -> None:
    result = subprocess.run(
        [str(python), "-m", "pip", "-q", "--disable-pip-version-check", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The `bin/` of a fresh venv holding the wheel and its dependencies (from pip's cache)."""
    work = tmp_path_factory.mktemp("wheel")
    source = work / "source"
    shutil.copytree(ROOT, source, ignore=NOT_SOURCE)
    _pip(
        Path(sys.executable), "wheel", "--no-deps", "-w", str(work / "dist"), str(source), cwd=work
    )
    wheels = list((work / "dist").glob("mahjong_table-*.whl"))
    assert len(wheels) == 1
    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    _pip(venv / "bin" / "python", "install", str(wheels[0]), cwd=work)
    shutil.rmtree(source)  # nothing may be found through the source tree
    yield venv / "bin"


@pytest.mark.slow
def test_the_installed_daemon_runs_on_the_simulated_table(installed: Path, tmp_path: Path) -> None:
    command = [str(installed / "mahjong-table"), "run", "--sim", "--sim-speed", "0"]
    process = subprocess.Popen(
        [*command, "--sim-think", "0"], cwd=tmp_path, stderr=subprocess.PIPE, text=True
    )
    assert process.stderr is not None
    lines = Lines(process.stderr).start()
    try:
        lines.wait_for("hand 1: wall checked", within=60)
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=15) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


@pytest.mark.slow
def test_the_installed_package_plays_a_simulated_session(installed: Path, tmp_path: Path) -> None:
    result = subprocess.run(
        [str(installed / "mahjong-table"), "simulate", "--fast", "--hands", "2", "--plain"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "hands: 2 played" in result.stdout
    # rich is the `board` extra: without it the session is shown as plain lines.
    probe = [
        str(installed / "python"),
        "-c",
        "import importlib.util as u; print(u.find_spec('rich'))",
    ]
    assert subprocess.run(probe, capture_output=True, text=True, check=True).stdout == "None\n"


@pytest.mark.slow
def test_the_installed_version_is_the_package_version(installed: Path) -> None:
    from controller import __version__

    result = subprocess.run(
        [str(installed / "mahjong-table"), "--version"], capture_output=True, text=True, check=True
    )
    assert result.stdout == f"mahjong-table {__version__}\n"


@pytest.mark.slow
def test_a_plain_install_is_the_daemon_alone_and_the_hub_names_its_extra(installed: Path) -> None:
    probe = (
        "import importlib.util as u; print([n for n in ('psycopg', 'selenium') if u.find_spec(n)])"
    )
    found = subprocess.run([str(installed / "python"), "-c", probe], capture_output=True, text=True)
    assert found.stdout == "[]\n"  # a Pi never gets the venue's libraries
    result = subprocess.run(
        [str(installed / "mahjong-table"), "hub", "tables", "--db", "postgresql://127.0.0.1:9/x"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert result.returncode == 2
    assert result.stderr == (
        "mahjong-table: error: a PostgreSQL store needs psycopg 3: "
        "pip install 'mahjong-table[venue]'\n"
    )


CLUB = """\
[tournament]
name = "club"
ruleset = "zung-jung"
tables = ["t1"]
seed = 7

[[stages]]
name = "final"
rounds = 1
hands = 1

[prizes]
bands = ["1", "2-4"]
""" + "".join(f'\n[[players]]\nid = "p{n}"\nname = "Player {n}"\n' for n in range(1, 5))


@pytest.mark.slow
@pytest.mark.broker
@pytest.mark.timeout(300)  # with the module's wheel and venv when it runs first
def test_the_installed_package_rehearses_a_tournament(installed: Path, tmp_path: Path) -> None:
    """A venue rehearses from the wheel alone: the shipped broker configuration, ACL and
    make-certs.sh come with the package (only mosquitto, bash and openssl from the system)."""
    (tmp_path / "club.toml").write_text(CLUB)
    command = [str(installed / "mahjong-table"), "hub", "rehearse", "club.toml"]
    result = subprocess.run(
        [*command, "--work", "work"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "1 results;" in result.stdout
    with (tmp_path / "work" / "tournament.csv").open(newline="", encoding="utf-8") as f:
        order = [row for row in DictReader(f) if row["stage"] == "final order"]
    assert [row["prize"] for row in order] == ["1", "2-4", "2-4", "2-4"]
    assert (tmp_path / "work" / "certs" / "t1.crt").exists()  # its own certificate, over TLS
