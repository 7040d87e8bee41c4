"""`diag config`: the effective configuration, each key with its value, whether it is the
default, and secrets hidden."""

import dataclasses
from pathlib import Path
from typing import Any

import msgspec

HIDDEN = "(set, hidden)"


class ConfigKey(msgspec.Struct, frozen=True):
    """One key of the effective configuration."""

    key: str
    value: Any
    default: bool
    """The value is the default (the file does not set it, or sets it to the default)."""


class ConfigReport(msgspec.Struct, frozen=True):
    """`diag config`."""

    source: str
    keys: list[ConfigKey]

    @property
    def healthy(self) -> bool:
        """A loaded config is always usable (`config check` has judged it)."""
        return True


def _plain(value: object) -> Any:
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, tuple | list):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


def config_keys(config: object, prefix: str = "") -> list[ConfigKey]:
    """Every key of a config tree, secrets hidden (an empty secret shows as empty)."""
    keys: list[ConfigKey] = []
    defaults = type(config)()
    for f in dataclasses.fields(config):  # type: ignore[arg-type]
        value = getattr(config, f.name)
        name = f"{prefix}{f.name}"
        if dataclasses.is_dataclass(value):
            keys += config_keys(value, name + ".")
            continue
        is_default = value == getattr(defaults, f.name)
        shown = HIDDEN if f.metadata.get("secret") and value else _plain(value)
        keys.append(ConfigKey(name, shown, is_default))
    return keys


def config_report(config: object, source: str) -> ConfigReport:
    """The report for a loaded config."""
    return ConfigReport(source, config_keys(config))
