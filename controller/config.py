"""The table's configuration: one TOML file loaded into frozen, bounds-checked objects.

Every option is declared here once, with its default, its bounds and a line of documentation;
`deploy/table.example.toml` shows them all and a test keeps the two in step.
"""

from dataclasses import dataclass, field
from pathlib import Path

from controller import paths
from controller.config_loader import TomlSource, load_dataclass, option, parse_toml
from controller.ids import TABLE_ID_PATTERN
from controller.logs import SUBSYSTEM_LOGGERS
from controller.rules.names import RULESET_NAMES
from controller.table.ports import SIGNALS
from controller.table.settings import CycleSettings

DEFAULT_PATH = paths.CONFIG
RULESETS = RULESET_NAMES
LOG_LEVELS = ("debug", "info", "warning", "error", "critical")
SUBSYSTEMS = tuple(SUBSYSTEM_LOGGERS)


@dataclass(frozen=True)
class TableSection:
    """Who this table is and which rules and tiles it plays with."""

    id: str = field(
        default="table-01",
        metadata=option(
            "Table id used in MQTT topics and results.",
            pattern=TABLE_ID_PATTERN,
            looks_like="be 1-32 lower-case letters, digits, - or _, like table-01",
        ),
    )
    ruleset: str = field(
        default="zung-jung", metadata=option("Ruleset of new sessions.", choices=RULESETS)
    )
    ruleset_file: Path | None = field(
        default=None,
        metadata=option("A venue's own ruleset TOML overriding the shipped one (house rules)."),
    )
    tileset: Path = field(
        default=Path("/etc/mahjong-table/tileset.toml"),
        metadata=option("Tile-set file mapping each RFID tag UID to its tile."),
    )


@dataclass(frozen=True)
class SerialSection:
    """The USB serial link to the table MCU."""

    port: str = field(
        default="/dev/mahjong-mcu",
        metadata=option("Device path or pyserial URL (socket://host:port, spy://...)."),
    )
    baudrate: int = field(
        default=115200, metadata=option("Line speed.", minimum=9600, maximum=3_000_000)
    )
    reconnect_max_s: float = field(
        default=10.0,
        metadata=option("Longest wait between reconnect attempts.", minimum=0.1, maximum=300),
    )


@dataclass(frozen=True)
class MqttSection:
    """The venue broker and this table's credentials."""

    url: str = field(
        default="mqtt://localhost:1883",
        metadata=option(
            "Broker URL, mqtt:// or mqtts://.",
            pattern=r"mqtts?://[^\s/]+(:\d+)?/?",
            looks_like="look like mqtt://host:1883 or mqtts://host (no path)",
        ),
    )
    topic_root: str = field(
        default="mahjong/",
        metadata=option(
            "Prefix of every topic.",
            pattern=r"([\w-]+/)+",
            looks_like="be topic levels each ending in /, like mahjong/",
        ),
    )
    username: str = field(default="", metadata=option("Broker user name (empty: none)."))
    password: str = field(default="", metadata=option("Broker password.", secret=True))
    ca_file: Path | None = field(default=None, metadata=option("CA certificate for TLS."))
    cert_file: Path | None = field(default=None, metadata=option("Client certificate for TLS."))
    key_file: Path | None = field(default=None, metadata=option("Client key for TLS."))
    result_key: str = field(
        default="", metadata=option("HMAC-SHA256 key that signs hand results.", secret=True)
    )
    keepalive_s: int = field(
        default=30, metadata=option("MQTT keepalive interval.", minimum=5, maximum=600)
    )


@dataclass(frozen=True)
class OutboxSection:
    """Where results wait until the hub has acknowledged them."""

    path: Path = field(
        default=Path("/var/lib/mahjong-table/outbox.sqlite3"),
        metadata=option("SQLite file of the durable outbox."),
    )
    max_status_backlog: int = field(
        default=1000,
        metadata=option(
            "Status/event messages kept while offline (oldest dropped first).",
            minimum=10,
            maximum=1_000_000,
        ),
    )
    keep_acked_results: int = field(
        default=10_000,
        metadata=option(
            "Acknowledged results kept so the hub can ask for them again.",
            minimum=0,
            maximum=10_000_000,
        ),
    )
    blackbox_days: int = field(
        default=30,
        metadata=option(
            "Days each hand's black box (blackbox/ beside the outbox) is kept for replay.",
            minimum=1,
            maximum=3650,
        ),
    )


@dataclass(frozen=True)
class GpioSection:
    """The control panel wired to the Pi's GPIO header."""

    enabled: bool = field(
        default=True,
        metadata=option("false: no control panel (a bench table), the daemon runs without GPIO."),
    )
    pinout: Path | None = field(
        default=None,
        metadata=option(
            "Pinout TOML; empty: /etc/mahjong-table/pinout.toml, else the shipped pinout."
        ),
    )
    pins: dict[str, int] = field(
        default_factory=dict,
        metadata=option("Per-signal BCM pin overrides.", minimum=2, maximum=27, keys=SIGNALS),
    )


@dataclass(frozen=True)
class SessionSection:
    """The session a table starts on its own at power-on (the hub may start others)."""

    players: tuple[str, ...] = field(
        default=("east", "south", "west", "north"),
        metadata=option(
            "Player ids in seat order E, S, W, N.",
            pattern=r"[\w.@-]{1,64}",
            looks_like="be 1-64 letters, digits, '.', '@', '-' or '_'",
        ),
    )
    hands: int = field(
        default=16, metadata=option("Hands to play (0: no hand limit).", minimum=0, maximum=1000)
    )
    rounds: int = field(
        default=0, metadata=option("Rounds to play (0: no round limit).", minimum=0, maximum=100)
    )
    deadline_minutes: int = field(
        default=0,
        metadata=option("Session length in minutes (0: none).", minimum=0, maximum=24 * 60),
    )
    last_hand_margin_minutes: int = field(
        default=1,
        metadata=option("No new hand starts this close to the deadline.", minimum=0, maximum=60),
    )
    seating_draw: bool = field(
        default=True,
        metadata=option(
            "Start with the seating draw where the ruleset has one (WMC); false: the players "
            "keep the chairs listed."
        ),
    )
    at_power_on: bool = field(
        default=True,
        metadata=option("Start this session at power-on; false: wait for the hub's start command."),
    )


@dataclass(frozen=True)
class HandSection:
    """Timing of the hand cycle."""

    build_timeout_s: float = field(
        default=CycleSettings.build_timeout_s,
        metadata=option("Building the walls longer than this is a fault.", minimum=10, maximum=600),
    )
    zone_settle_s: float = field(
        default=CycleSettings.settle_s,
        metadata=option(
            "Zone reads unchanged this long count as settled (deal check, declared wins).",
            # A zone is never settled the instant it changes: tiles arrive over several reads.
            minimum=0.05,
            maximum=30,
        ),
    )
    zone_absence_s: float = field(
        default=CycleSettings.absence_s,
        metadata=option(
            "A tile missing from its zone's reads this long counts as gone.", minimum=0, maximum=30
        ),
    )


@dataclass(frozen=True)
class ControlSection:
    """The local socket technicians' `diag` commands talk to."""

    socket: Path = field(
        default_factory=paths.control_socket,
        metadata=option(
            "UNIX socket of the running daemon (default control.sock in $MAHJONG_TABLE_RUN_DIR, "
            "else /run/mahjong-table)."
        ),
    )
    idle_s: float = field(
        default=10.0,
        metadata=option(
            "A client that sends no whole request line within this many seconds is told so "
            "and closed (idle or half-sent lines cannot hold a place).",
            minimum=0.05,
            maximum=600,
        ),
    )


@dataclass(frozen=True)
class LoggingSection:
    """Log levels; journald adds the time and unit."""

    level: str = field(default="info", metadata=option("Default level.", choices=LOG_LEVELS))
    levels: dict[str, str] = field(
        default_factory=dict,
        metadata=option("Per-subsystem levels.", choices=LOG_LEVELS, keys=SUBSYSTEMS),
    )


@dataclass(frozen=True)
class TableConfig:
    """The whole configuration of one table."""

    table: TableSection = field(default_factory=TableSection)
    serial: SerialSection = field(default_factory=SerialSection)
    mqtt: MqttSection = field(default_factory=MqttSection)
    outbox: OutboxSection = field(default_factory=OutboxSection)
    gpio: GpioSection = field(default_factory=GpioSection)
    session: SessionSection = field(default_factory=SessionSection)
    hand: HandSection = field(default_factory=HandSection)
    control: ControlSection = field(default_factory=ControlSection)
    logging: LoggingSection = field(default_factory=LoggingSection)


def load_config(path: Path) -> TableConfig:
    """Load and check a config file; raises ConfigError naming the file and line."""
    return read_config_file(path)[0]


def read_config_file(path: Path) -> tuple[TableConfig, TomlSource]:
    """The checked config and its source text (which says on which line each key is)."""
    data, source = parse_toml(path)
    config = load_dataclass(TableConfig, data, source)
    _check_consistency(config, source)
    return config, source


def _check_consistency(config: TableConfig, source: TomlSource) -> None:
    if len(config.session.players) != 4:
        raise source.error(
            ("session", "players"),
            f"'players' lists {len(config.session.players)} ids; a table seats exactly 4",
        )
    if len(set(config.session.players)) != 4:
        raise source.error(("session", "players"), "'players' names the same id twice")
    tls = (config.mqtt.cert_file, config.mqtt.key_file)
    if (tls[0] is None) != (tls[1] is None):
        raise source.error(("mqtt",), "'cert_file' and 'key_file' must be given together")
