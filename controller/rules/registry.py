"""Finding a ruleset by name: each name maps to a module with a `RULESET` class.

A ruleset module that is not installed yet is simply unavailable: asking for it is a
clear RulesError, never an import crash.
"""

from functools import cache
from importlib import import_module
from importlib.util import find_spec
from pathlib import Path

from controller.rules.data import load_data
from controller.rules.errors import RulesError
from controller.rules.names import RulesetName
from controller.rules.ruleset import Ruleset

MODULES: dict[RulesetName, str] = {
    "zung-jung": "controller.rules.zung_jung",
    "sichuan": "controller.rules.sichuan",
    "shanghai": "controller.rules.shanghai",
}
"""Every ruleset name the table knows, and the module that implements it."""


def available() -> tuple[str, ...]:
    """The ruleset names whose module is installed."""
    return tuple(name for name, module in MODULES.items() if find_spec(module) is not None)


def get_ruleset(name: str, override_path: Path | None = None) -> Ruleset:
    """The ruleset `name`, from its shipped data or with a venue's TOML laid over it."""
    if override_path is None:
        return _shipped(name)
    return _build(name, override_path)


@cache
def _shipped(name: str) -> Ruleset:
    return _build(name, None)


def _build(name: str, override_path: Path | None) -> Ruleset:
    if name not in MODULES:
        raise RulesError(f"unknown ruleset '{name}': use {', '.join(MODULES)}")
    if name not in available():
        ready = ", ".join(available()) or "none"
        raise RulesError(
            f"ruleset '{name}' is not available in this version yet (available: {ready})"
        )
    cls: type[Ruleset] = import_module(MODULES[name]).RULESET
    return cls(load_data(cls.data_file, override_path))
