"""What `pip install 'mahjong-table[...]'` brings: the Pi's GPIO backend by environment marker,
the live board as an extra, nothing heavy on the daemon's runtime path."""

import tomllib
from pathlib import Path

from packaging.requirements import Requirement

PROJECT = tomllib.loads((Path(__file__).parent.parent / "pyproject.toml").read_text())["project"]
PI = {"sys_platform": "linux", "platform_machine": "aarch64"}
PC = {"sys_platform": "linux", "platform_machine": "x86_64"}


def _wanted(extra: str, where: dict[str, str]) -> set[str]:
    requirements = [Requirement(text) for text in PROJECT["optional-dependencies"][extra]]
    return {r.name.lower() for r in requirements if r.marker is None or r.marker.evaluate(where)}


def test_the_pi_extra_installs_rpi_lgpio_on_a_pi_and_nothing_elsewhere() -> None:
    assert _wanted("pi", PI) == {"rpi-lgpio"}  # a Pi 5 has no RPi.GPIO; this one needs no compiler
    assert _wanted("pi", {**PI, "platform_machine": "armv7l"}) == {"rpi-lgpio"}
    assert _wanted("pi", PC) == set()


def test_rich_is_an_extra_not_a_runtime_dependency() -> None:
    runtime = {Requirement(text).name.lower() for text in PROJECT["dependencies"]}
    assert "rich" not in runtime
    assert _wanted("board", PC) == {"rich"}
