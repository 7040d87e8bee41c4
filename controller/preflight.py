"""Every check the daemon makes on its configuration before it touches hardware.

`mahjong-table config check` and `mahjong-table run` both call `preflight`, so a file the check
passes is a file the daemon starts with. The first problem raises ConfigError naming the file
and, where it can, the line; problems that do not stop the daemon come back as warnings.
"""

import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from controller.config import TableConfig
from controller.config_loader import TomlSource
from controller.devices.pinout import check_pins, load_pinout
from controller.errors import ConfigError


@dataclass(frozen=True)
class Preflight:
    """What the checks found that does not stop the daemon."""

    warnings: tuple[str, ...] = ()


def preflight(
    config: TableConfig, source: TomlSource | None, *, simulated: bool = False
) -> Preflight:
    """Check what `run` needs; `simulated` skips what the simulated table brings itself
    (serial port, tile-set file). Raises ConfigError on the first problem."""
    where = _Where(source)
    if not simulated:
        _check_serial(config, where)
    if config.gpio.enabled or simulated:  # the simulated panel uses the pinout too
        _check_pins(config, where)
    if not simulated:
        _check_tileset(config, where)
    _check_tls_files(config, where)
    _check_result_key(config, where)
    _check_ruleset(config, where)
    return Preflight(tuple(_secret_warnings(config, source)))


class _Where:
    """Turns a (section, key) into a ConfigError at that line of the config file."""

    def __init__(self, source: TomlSource | None) -> None:
        self.source = source

    def error(self, dotted: tuple[str, ...], message: str) -> ConfigError:
        if self.source is None:
            return ConfigError("defaults", None, message)
        return self.source.error(dotted, message)


def _check_serial(config: TableConfig, where: _Where) -> None:
    if not config.serial.port.strip():
        raise where.error(
            ("serial", "port"), "'port' is empty: name the MCU's device, e.g. /dev/mahjong-mcu"
        )


def _check_pins(config: TableConfig, where: _Where) -> None:
    if config.gpio.pinout is not None:
        _readable(config.gpio.pinout, ("gpio", "pinout"), "pinout file", where)
    overrides = config.gpio.pins
    pins = {**load_pinout(config.gpio.pinout, {}).pins, **overrides}
    for signal, pin in overrides.items():
        clash = next((other for other, p in pins.items() if p == pin and other != signal), None)
        if clash is not None:
            raise where.error(
                ("gpio", "pins", signal),
                f"[gpio.pins] puts {signal} on GPIO{pin}, which {clash} already uses",
            )
    check_pins("[gpio.pins]", pins)


def _check_tileset(config: TableConfig, where: _Where) -> None:
    from controller.table.tiles import TileMap, TileMapError
    from firmware_bridge.tileset import TileSetFileError, read_tileset

    path = config.table.tileset
    _readable(path, ("table", "tileset"), "tile-set file", where)
    try:
        tileset = read_tileset(path)
        TileMap.from_names(tileset.name, tileset.tile_of())
    except (TileSetFileError, TileMapError) as exc:
        raise where.error(("table", "tileset"), f"the tile-set file cannot be used: {exc}") from exc


def _check_tls_files(config: TableConfig, where: _Where) -> None:
    mqtt = config.mqtt
    files = {"ca_file": mqtt.ca_file, "cert_file": mqtt.cert_file, "key_file": mqtt.key_file}
    for key, path in files.items():
        if path is not None:
            _readable(path, ("mqtt", key), key, where)


def _check_result_key(config: TableConfig, where: _Where) -> None:
    from controller.hub.contract.signing import MIN_KEY_LENGTH

    key = config.mqtt.result_key
    if key and len(key) < MIN_KEY_LENGTH:
        raise where.error(
            ("mqtt", "result_key"),
            f"'result_key' has {len(key)} characters; the hub needs at least {MIN_KEY_LENGTH} "
            "(make one with: openssl rand -hex 32)",
        )


def _check_ruleset(config: TableConfig, where: _Where) -> None:
    from controller.rules import RulesError, get_ruleset

    house_rules = config.table.ruleset_file
    try:
        get_ruleset(config.table.ruleset, house_rules)
    except RulesError as exc:
        if house_rules is None:
            raise where.error(("table", "ruleset"), str(exc)) from exc
        raise ConfigError(str(house_rules), None, str(exc)) from exc


def _readable(path: Path, dotted: tuple[str, ...], what: str, where: _Where) -> None:
    key = ".".join(dotted)
    if not path.exists():
        raise where.error(dotted, f"{what} {path} does not exist (set by {key})")
    if not path.is_file():
        raise where.error(dotted, f"{what} {path} is not a file (set by {key})")
    if not os.access(path, os.R_OK):
        raise where.error(dotted, f"{what} {path} cannot be read by this user (set by {key})")


def _secret_warnings(config: TableConfig, source: TomlSource | None) -> Iterable[str]:
    holders: list[tuple[Path, str]] = []
    if source is not None and (config.mqtt.password or config.mqtt.result_key):
        holders.append((Path(source.path), "holds mqtt secrets"))
    if config.mqtt.key_file is not None:
        holders.append((config.mqtt.key_file, "is the table's TLS private key"))
    for path, why in holders:
        try:
            mode = path.stat().st_mode
        except OSError:
            continue
        if mode & stat.S_IROTH:
            yield f"{path} {why} and other users can read it: chmod o-r {path}"
