"""The GPIO pin map: hardware/pinout.toml (or a venue's file) with per-signal config overrides."""

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from controller.config_loader import parse_toml
from controller.errors import ConfigError

# A source checkout carries hardware/; an installed table gets a copy from deploy/install.sh.
PINOUT_CANDIDATES = (
    Path(__file__).resolve().parents[2] / "hardware" / "pinout.toml",
    Path("/usr/share/mahjong-table/pinout.toml"),
)
SIGNALS = (
    "dice_button",
    "declare_e",
    "declare_s",
    "declare_w",
    "declare_n",
    "led_e",
    "led_s",
    "led_w",
    "led_n",
    "status_red",
    "status_green",
    "status_blue",
    "buzzer",
    "estop",
    "mcu_reset",
)
BCM_PINS = range(2, 28)


@dataclass(frozen=True)
class Pinout:
    """BCM pin number of every panel signal."""

    pins: Mapping[str, int]

    def __getitem__(self, signal: str) -> int:
        return self.pins[signal]


def load_pinout(path: Path | None = None, overrides: Mapping[str, int] | None = None) -> Pinout:
    """Read a pinout file, apply overrides, and refuse unknown, missing or shared pins."""
    source_path = path or next((p for p in PINOUT_CANDIDATES if p.exists()), PINOUT_CANDIDATES[0])
    data, source = parse_toml(source_path)
    pins = dict(data.get("pins", {}))
    for signal in pins:
        if signal not in SIGNALS:
            raise source.error(("pins", signal), f"unknown signal '{signal}'")
    for signal, pin in (overrides or {}).items():
        if signal not in SIGNALS:
            raise ConfigError(
                str(source_path), None, f"[gpio.pins] names unknown signal '{signal}'"
            )
        pins[signal] = pin
    _check_pins(str(source_path), pins)
    return Pinout(pins)


def _check_pins(where: str, pins: Mapping[str, int]) -> None:
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
