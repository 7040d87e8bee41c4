"""Finding a ruleset by name: each name maps to a module with a `RULESET` class."""

from functools import cache
from importlib import import_module
from pathlib import Path

from controller.rules.data import load_data
from controller.rules.errors import RulesError
from controller.rules.names import RULESET_NAMES, RulesetName
from controller.rules.ruleset import Ruleset

MODULES: dict[RulesetName, str] = {
    name: "controller.rules." + name.replace("-", "_") for name in RULESET_NAMES
}
"""Every ruleset name the table knows, and the module that implements it."""


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
    cls: type[Ruleset] = import_module(MODULES[name]).RULESET
    return cls(load_data(cls.data_file, override_path))
