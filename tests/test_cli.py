"""The CLI as a technician meets it: --help, --version, one-line errors with the right exit code."""

import subprocess
import sys
from pathlib import Path

import pytest

from controller import __version__
from controller.cli import main

EXAMPLE = Path(__file__).parent.parent / "deploy" / "table.example.toml"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "controller", *args], capture_output=True, text=True, check=False
    )


def test_help_says_what_the_tool_does() -> None:
    result = _run("--help")
    assert result.returncode == 0
    assert "mahjong table" in result.stdout
    assert "config" in result.stdout


def test_version() -> None:
    result = _run("--version")
    assert result.returncode == 0
    assert result.stdout.strip() == f"mahjong-table {__version__}"


def test_config_check_accepts_the_example(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The example names the venue's tile-set file in /etc; a copy names the one in hardware/.
    tileset = EXAMPLE.parent.parent / "hardware" / "tilesets" / "sim-0.toml"
    text = EXAMPLE.read_text().replace('"/etc/mahjong-table/tileset.toml"', f'"{tileset}"')
    config = tmp_path / "table.toml"
    config.write_text(text)
    assert main(["config", "check", str(config)]) == 0
    assert "ok" in capsys.readouterr().out


def test_config_check_names_a_misspelt_key(tmp_path: Path) -> None:
    bad = tmp_path / "table.toml"
    bad.write_text('[table]\nrulset = "sichuan"\n')
    result = _run("config", "check", str(bad))
    assert result.returncode == 2
    assert result.stderr == (
        f"mahjong-table: error: {bad}:2: unknown key 'rulset' in [table] "
        "(did you mean 'ruleset'?)\n"
    )
    assert result.stdout == ""


def test_bad_usage_is_one_line_exit_2() -> None:
    result = _run("config", "frobnicate")
    assert result.returncode == 2
    assert len(result.stderr.splitlines()) == 1
    assert result.stderr.startswith("mahjong-table: error: ")


def test_missing_file_is_one_line_without_traceback(tmp_path: Path) -> None:
    result = _run("config", "check", str(tmp_path / "nope.toml"))
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert "cannot read" in result.stderr


def test_debug_shows_the_traceback(tmp_path: Path) -> None:
    result = _run("--debug", "config", "check", str(tmp_path / "nope.toml"))
    assert result.returncode == 2
    assert "Traceback" in result.stderr


def test_config_check_loads_the_venue_ruleset_file(tmp_path: Path) -> None:
    house = tmp_path / "house.toml"
    house.write_text('name = "sichuan"\n')
    config = tmp_path / "table.toml"
    tileset = EXAMPLE.parent.parent / "hardware" / "tilesets" / "sim-0.toml"
    config.write_text(
        f'[table]\nruleset = "zung-jung"\nruleset_file = "{house}"\ntileset = "{tileset}"\n'
    )
    result = _run("config", "check", str(config))
    assert result.returncode == 2
    assert result.stderr.startswith(f"mahjong-table: error: {house}: ")
    assert len(result.stderr.splitlines()) == 1
