"""Ruleset data files: TOML shipped in the package, optionally overlaid by a venue's own file.

A venue file may only change keys the shipped file has (a misspelt key is an error naming
it), so house rules stay within what the engine understands.
"""

import tomllib
from pathlib import Path
from typing import Any

from controller.rules.errors import RulesError

Table = dict[str, Any]
PACKAGE_DIR = Path(__file__).parent


def load_data(package_file: str, override: Path | None = None) -> Table:
    """The shipped data file `package_file`, with `override` (a venue's TOML) laid over it."""
    # Beside this module in the installed package (a plain path, not importlib.resources: that
    # import alone costs `mahjong-table rules score` a fifth of its cold start).
    text = (PACKAGE_DIR / package_file).read_text(encoding="utf-8")
    data = _parse(text, package_file)
    if override is None:
        return data
    try:
        venue_text = override.read_text(encoding="utf-8")
    except OSError as exc:
        raise RulesError(f"cannot read ruleset file {override}: {exc.strerror}") from None
    return merge(data, _parse(venue_text, str(override)), str(override))


def _parse(text: str, origin: str) -> Table:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RulesError(f"{origin}: {exc}") from None


def merge(base: Table, venue: Table, origin: str, where: str = "") -> Table:
    """`base` with every value of `venue` replacing it; unknown keys are errors."""
    result = dict(base)
    for key, value in venue.items():
        path = f"{where}.{key}" if where else key
        if key not in base:
            raise RulesError(f"{origin}: unknown key '{path}' (not in the shipped ruleset)")
        if isinstance(base[key], dict):
            if not isinstance(value, dict):
                raise RulesError(f"{origin}: '{path}' must be a table")
            result[key] = merge(base[key], value, origin, path)
        else:
            result[key] = value
    return result


def get(table: Table, path: str, kind: type | tuple[type, ...]) -> Any:
    """The value at dotted `path`, checked to be a `kind`; RulesError names a bad key."""
    node: Any = table
    for part in path.split("."):
        if not isinstance(node, dict) or part not in node:
            raise RulesError(f"ruleset data lacks '{path}'")
        node = node[part]
    if isinstance(node, bool) and kind in (int, (int, float)):
        raise RulesError(f"ruleset data '{path}' must be {_kind_name(kind)}, not {node!r}")
    if not isinstance(node, kind):
        raise RulesError(f"ruleset data '{path}' must be {_kind_name(kind)}, not {node!r}")
    return node


def _kind_name(kind: type | tuple[type, ...]) -> str:
    if isinstance(kind, tuple):
        return " or ".join(k.__name__ for k in kind)
    return kind.__name__
