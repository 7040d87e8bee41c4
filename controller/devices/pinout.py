"""The GPIO pin map: the shipped pinout (package data), a venue's file, per-signal overrides.

Where the pinout comes from, first found wins: `[gpio] pinout` in table.toml, then
`/etc/mahjong-table/pinout.toml`, then the reference table's pinout shipped inside the package.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from controller.config_loader import TomlSource, parse_toml, parse_toml_text
from controller.errors import ConfigError
from controller.table.ports import SIGNALS

ETC_PINOUT = Path("/etc/mahjong-table/pinout.toml")
SHIPPED_PINOUT = "pinout.toml"
"""The reference table's pinout, package data of `controller.devices`."""
BCM_PINS = range(2, 28)


@dataclass(frozen=True)
class Pinout:
    """BCM pin number of every panel signal."""

    pins: Mapping[str, int]

    def __getitem__(self, signal: str) -> int:
        return self.pins[signal]


def shipped_pinout_text() -> tuple[str, str]:
    """The shipped pinout file's text and a name to show for it."""
    shipped = resources.files("controller.devices").joinpath(SHIPPED_PINOUT)
    try:
        return shipped.read_text(encoding="utf-8"), str(shipped)
    except OSError as exc:
        raise ConfigError(
            str(shipped),
            None,
            f"the shipped pinout is missing from the installed package ({exc.strerror}); "
            f"reinstall mahjong-table, or put one at {ETC_PINOUT} or set [gpio] pinout",
        ) from exc


def read_pinout_source(path: Path | None = None) -> tuple[dict[str, object], TomlSource]:
    """The pinout file's parsed TOML: `path` if given, else /etc, else the shipped one."""
    if path is not None:
        return _read_named(path, "[gpio] pinout")
    if ETC_PINOUT.exists():
        return _read_named(ETC_PINOUT, f"{ETC_PINOUT} (found there; [gpio] pinout overrides it)")
    text, name = shipped_pinout_text()
    return parse_toml_text(text, name)


def _read_named(path: Path, named_by: str) -> tuple[dict[str, object], TomlSource]:
    try:
        return parse_toml(path)
    except ConfigError as exc:
        if exc.line is not None or path.is_file():
            raise
        raise ConfigError(
            str(path),
            None,
            f"{exc.message}. Looked for the pinout there (named by {named_by}); without "
            f"[gpio] pinout the table uses {ETC_PINOUT} if present, else the shipped pinout",
        ) from exc


def load_pinout(path: Path | None = None, overrides: Mapping[str, int] | None = None) -> Pinout:
    """Read a pinout file, apply overrides, and refuse unknown, missing or shared pins."""
    data, source = read_pinout_source(path)
    raw = data.get("pins", {})
    pins: dict[str, int] = dict(raw) if isinstance(raw, dict) else {}
    for signal in pins:
        if signal not in SIGNALS:
            raise source.error(("pins", signal), _unknown_signal(signal))
    for signal, pin in (overrides or {}).items():
        if signal not in SIGNALS:
            raise ConfigError(source.path, None, f"[gpio.pins] {_unknown_signal(signal)}")
        pins[signal] = pin
    check_pins(source.path, pins)
    return Pinout(pins)


def _unknown_signal(signal: str) -> str:
    import difflib  # only on this error path

    close = difflib.get_close_matches(signal, SIGNALS, n=1)
    hint = f" (did you mean '{close[0]}'?)" if close else f" (signals: {', '.join(SIGNALS)})"
    return f"unknown signal '{signal}'{hint}"


def check_pins(where: str, pins: Mapping[str, object]) -> None:
    """Every signal has a BCM pin of its own; raises ConfigError naming the first problem."""
    missing = [s for s in SIGNALS if s not in pins]
    if missing:
        raise ConfigError(where, None, f"no pin for {', '.join(missing)}")
    seen: dict[int, str] = {}
    for signal, pin in pins.items():
        if not isinstance(pin, int) or pin not in BCM_PINS:
            raise ConfigError(where, None, f"{signal}: {pin!r} is not a BCM pin 2-27")
        if pin in seen:
            raise ConfigError(where, None, f"{signal} and {seen[pin]} both use GPIO{pin}")
        seen[pin] = signal
