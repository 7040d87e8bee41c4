"""A strict TOML-to-dataclass loader: unknown keys, wrong types and out-of-bounds values are
errors that name the file line, in the spirit of Klipper's config (an option nobody reads is an
error). The schema itself lives in `controller.config`."""

import dataclasses
import difflib
import re
import tomllib
import types
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar

from controller.errors import ConfigError

T = TypeVar("T")

_HEADER = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(r"""^\s*("[^"]*"|'[^']*'|[A-Za-z0-9_\-.]+)\s*=""")


def option(
    doc: str,
    *,
    minimum: float | None = None,
    maximum: float | None = None,
    choices: tuple[str, ...] | None = None,
    pattern: str | None = None,
    looks_like: str | None = None,
    secret: bool = False,
    keys: tuple[str, ...] | None = None,
) -> dict[str, Any]:
    """Field metadata: what the option means and the bounds its value must respect
    (`looks_like` says in words what `pattern` accepts, for error messages)."""
    return {
        "doc": doc,
        "minimum": minimum,
        "maximum": maximum,
        "choices": choices,
        "pattern": pattern,
        "looks_like": looks_like,
        "secret": secret,
        "keys": keys,
    }


class TomlSource:
    """The text of a TOML file, able to say on which line a key or table was written."""

    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.lines = text.splitlines()

    def line_of(self, dotted: tuple[str, ...]) -> int | None:
        """The 1-based line where `dotted` (table path + key) is written, if it can be found."""
        table: tuple[str, ...] = ()
        for number, line in enumerate(self.lines, start=1):
            header = _HEADER.match(line)
            if header:
                table = _split_dotted(header.group(1))
                if table == dotted:
                    return number
                continue
            key = _KEY.match(line)
            if key and table + _split_dotted(key.group(1)) == dotted:
                return number
        return self.line_of(dotted[:-1]) if len(dotted) > 1 else None

    def error(self, dotted: tuple[str, ...], message: str) -> ConfigError:
        """A ConfigError pointing at the line of `dotted`."""
        return ConfigError(self.path, self.line_of(dotted), message)


def _split_dotted(text: str) -> tuple[str, ...]:
    return tuple(part.strip().strip("\"'") for part in text.split("."))


def parse_toml(path: Path) -> tuple[dict[str, Any], TomlSource]:
    """Read and parse a TOML file; a syntax error names the line the parser stopped at."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(str(path), None, f"cannot read: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(str(path), None, "not UTF-8 text") from exc
    return parse_toml_text(text, str(path))


MAX_NESTING = 32
"""Arrays and inline tables nested deeper than this are refused (no config needs more; the
parser would run out of stack)."""


def parse_toml_text(text: str, path: str) -> tuple[dict[str, Any], TomlSource]:
    """Parse TOML text read from `path` (a name to show); a syntax error, or nesting deeper than
    MAX_NESTING, names the line."""
    deep = too_deep(text, MAX_NESTING)
    if deep is not None:
        raise ConfigError(
            path, deep, f"arrays or inline tables nested more than {MAX_NESTING} deep"
        )
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line = re.search(r"line (\d+)", str(exc))
        message = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(exc))
        raise ConfigError(
            path, int(line.group(1)) if line else None, f"TOML syntax: {message}"
        ) from exc
    return data, TomlSource(path, text)


def too_deep(text: str, limit: int) -> int | None:
    """The line where `[` and `{` of values nest deeper than `limit` (None: they do not);
    brackets in strings and comments do not count."""
    depth, line, quote, i = 0, 1, "", 0
    while i < len(text):
        char = text[i]
        if char == "\n":
            line += 1
        if quote:
            if char == "\\" and quote in ('"', '"""'):
                i += 2
                continue
            if text.startswith(quote, i):
                i += len(quote)
                quote = ""
                continue
        elif char in "\"'":
            quote = char * 3 if text.startswith(char * 3, i) else char
            i += len(quote)
            continue
        elif char == "#":
            end = text.find("\n", i)
            i = len(text) if end < 0 else end
            continue
        elif char in "[{":
            depth += 1
            if depth > limit:
                return line
        elif char in "]}":
            depth = max(0, depth - 1)
        i += 1
    return None


def load_dataclass(cls: type[T], data: Mapping[str, Any], source: TomlSource) -> T:
    """Build the frozen dataclass `cls` from parsed TOML, checking every key and bound."""
    return _build(cls, data, source, ())


def _build(cls: type[T], data: Mapping[str, Any], source: TomlSource, at: tuple[str, ...]) -> T:
    fields = {f.name: f for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    hints = typing.get_type_hints(cls)
    for key in data:
        if key not in fields:
            raise source.error(at + (key,), _unknown(key, at, fields))
    values = {
        name: _convert(hints[name], data[name], fields[name].metadata, source, at + (name,))
        for name in fields
        if name in data
    }
    return cls(**values)


def _unknown(key: str, at: tuple[str, ...], known: Mapping[str, Any]) -> str:
    what = f"key '{key}' in [{'.'.join(at)}]" if at else f"section [{key}]"
    close = difflib.get_close_matches(key, list(known), n=1)
    hint = f" (did you mean '{close[0]}'?)" if close else ""
    return f"unknown {what}{hint}"


def _convert(
    hint: Any, value: Any, meta: Mapping[str, Any], source: TomlSource, at: tuple[str, ...]
) -> Any:
    origin = typing.get_origin(hint)
    if origin in (types.UnionType, typing.Union):
        inner = [arg for arg in typing.get_args(hint) if arg is not type(None)]
        return _convert(inner[0], value, meta, source, at)
    if dataclasses.is_dataclass(hint):
        if not isinstance(value, dict):
            raise source.error(at, f"'{'.'.join(at)}' must be a table, like [{'.'.join(at)}]")
        return _build(typing.cast(type, hint), value, source, at)
    if origin is tuple:
        if not isinstance(value, list):
            raise source.error(at, f"'{at[-1]}' must be a list")
        item = typing.get_args(hint)[0]
        return tuple(_convert(item, v, meta, source, at) for v in value)
    if origin is dict:
        return _convert_mapping(hint, value, meta, source, at)
    return _check_scalar(hint, value, meta, source, at)


def _convert_mapping(
    hint: Any, value: Any, meta: Mapping[str, Any], source: TomlSource, at: tuple[str, ...]
) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise source.error(at, f"'{at[-1]}' must be a table")
    allowed = meta.get("keys")
    item = typing.get_args(hint)[1]
    result = {}
    for key, item_value in value.items():
        if allowed is not None and key not in allowed:
            raise source.error(at + (key,), _unknown(key, at, dict.fromkeys(allowed)))
        result[key] = _check_scalar(item, item_value, meta, source, at + (key,))
    return result


_TYPE_WORDS = {str: "a string", int: "an integer", float: "a number", bool: "true or false"}


def _check_scalar(
    hint: Any, value: Any, meta: Mapping[str, Any], source: TomlSource, at: tuple[str, ...]
) -> Any:
    name = at[-1]
    if hint is Path:
        hint_ok = isinstance(value, str)
        value = Path(value) if hint_ok else value
    elif hint is float:
        hint_ok = isinstance(value, int | float) and not isinstance(value, bool)
        value = float(value) if hint_ok else value
    elif hint is int:
        hint_ok = isinstance(value, int) and not isinstance(value, bool)
    else:
        hint_ok = isinstance(value, hint)
    if not hint_ok:
        word = "a path string" if hint is Path else _TYPE_WORDS.get(hint, hint.__name__)
        shown = "(hidden)" if meta.get("secret") else repr(value)
        raise source.error(at, f"'{name}' must be {word}, not {shown}")
    _check_bounds(value, meta, source, at)
    return value


def _check_bounds(
    value: Any, meta: Mapping[str, Any], source: TomlSource, at: tuple[str, ...]
) -> None:
    name = at[-1]
    shown = "(hidden)" if meta.get("secret") else repr(value)
    low, high = meta.get("minimum"), meta.get("maximum")
    if low is not None and value < low:
        raise source.error(at, f"'{name}' is {shown}; it must be at least {low}")
    if high is not None and value > high:
        raise source.error(at, f"'{name}' is {shown}; it must be at most {high}")
    choices = meta.get("choices")
    if choices is not None and value not in choices:
        raise source.error(at, f"'{name}' is {shown}; it must be one of {', '.join(choices)}")
    pattern = meta.get("pattern")
    if pattern is not None and not re.fullmatch(pattern, str(value)):
        # A technician reads the example (`looks_like`), not the regular expression.
        shape = meta.get("looks_like") or f"match {pattern}"
        raise source.error(at, f"'{name}' is {shown}; it must {shape}")


def secret_values(config: object) -> list[str]:
    """Every non-empty value of a field marked secret, anywhere in a config tree."""
    found: list[str] = []
    for f in dataclasses.fields(config):  # type: ignore[arg-type]
        value = getattr(config, f.name)
        if dataclasses.is_dataclass(value):
            found.extend(secret_values(value))
        elif f.metadata.get("secret") and value:
            found.append(str(value))
    return found
