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
from typing import TYPE_CHECKING

from controller.config import TableConfig
from controller.config_loader import TomlSource
from controller.devices.pinout import check_pins, load_pinout
from controller.errors import ConfigError, UsageError

if TYPE_CHECKING:
    from controller.rules import Ruleset


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
    ruleset = _check_ruleset(config, where)
    if not simulated:
        _check_tileset(config, where, ruleset)
    _check_broker(config, where)
    _check_tls_files(config, where)
    _check_result_key(config, where)
    _check_outbox(config, where)
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


def _check_tileset(config: TableConfig, where: _Where, ruleset: "Ruleset") -> None:
    from controller.table.tiles import TileMap, TileMapError
    from controller.table.wallcheck import set_problems
    from firmware_bridge.tileset import TileSetFileError, read_tileset

    path = config.table.tileset
    _readable(path, ("table", "tileset"), "tile-set file", where)
    try:
        tileset = read_tileset(path)
        TileMap.from_names(tileset.name, tileset.tile_of())
        for name, tiles in tileset.sets.items():
            played = ruleset.tiles.kinds.union(ruleset.tiles.flowers)  # others stay out
            kinds = [k for k in TileMap.from_names(name, tiles).kinds(tiles) if k in played]
            problems = set_problems(kinds, ruleset.tiles)
            if problems:
                raise TileMapError(
                    f"set {name} cannot build a wall for {ruleset.name}: {'; '.join(problems)}"
                )
    except (TileSetFileError, TileMapError) as exc:
        raise where.error(("table", "tileset"), f"the tile-set file cannot be used: {exc}") from exc


def _check_broker(config: TableConfig, where: _Where) -> None:
    from controller.hub.mqtt.transport import parse_broker_url

    try:
        parse_broker_url(config.mqtt.url)
    except UsageError as exc:
        raise where.error(("mqtt", "url"), str(exc)) from exc


def _check_tls_files(config: TableConfig, where: _Where) -> None:
    mqtt = config.mqtt
    files = {"ca_file": mqtt.ca_file, "cert_file": mqtt.cert_file, "key_file": mqtt.key_file}
    for key, path in files.items():
        if path is not None:
            _readable(path, ("mqtt", key), key, where)
    if mqtt.ca_file is None and mqtt.cert_file is None:
        return
    from controller.hub.mqtt.tls import TlsFileRefused, tls_context

    try:
        tls_context(mqtt.ca_file, mqtt.cert_file, mqtt.key_file)
    except TlsFileRefused as exc:
        raise where.error(("mqtt", exc.key), str(exc)) from exc


def _check_outbox(config: TableConfig, where: _Where) -> None:
    path = config.outbox.path
    dotted = ("outbox", "path")
    try:
        _check_outbox_path(path, dotted, where)
    except PermissionError:
        raise where.error(
            dotted, f"outbox {path}: this user may not look into {path.parent} (set by outbox.path)"
        ) from None


def _check_outbox_path(path: Path, dotted: tuple[str, ...], where: _Where) -> None:
    if path.exists() and not path.is_file():
        raise where.error(dotted, f"outbox {path} is not a file: name the outbox's SQLite file")
    if path.parent.exists() and not path.parent.is_dir():
        raise where.error(dotted, f"outbox {path}: {path.parent} is not a directory")


def _check_result_key(config: TableConfig, where: _Where) -> None:
    from controller.hub.contract.signing import MIN_KEY_LENGTH

    key = config.mqtt.result_key
    if key and len(key) < MIN_KEY_LENGTH:
        raise where.error(
            ("mqtt", "result_key"),
            f"'result_key' has {len(key)} characters; the hub needs at least {MIN_KEY_LENGTH} "
            "(make one with: openssl rand -hex 32)",
        )


def _check_ruleset(config: TableConfig, where: _Where) -> "Ruleset":
    from controller.rules import RulesError, get_ruleset

    house_rules = config.table.ruleset_file
    try:
        return get_ruleset(config.table.ruleset, house_rules)
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
