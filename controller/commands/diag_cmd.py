"""`mahjong-table diag ...`: technician diagnostics. This module only builds the command line
(so `diag --help` loads nothing of the table); each action's work is imported when it runs:
`diag_status` (status from the daemon, light), `diag_actions` (status checked directly,
selftest, tiles, gpio, mqtt, events, config) and `diag_link`."""

import argparse
from pathlib import Path
from typing import Any

from controller import paths
from controller.diag import vocabulary


def register(commands: Any) -> None:
    """Add the `diag` group and its actions to the CLI."""
    group = commands.add_parser("diag", help="technician diagnostics")
    actions = group.add_subparsers(dest="action", metavar="ACTION", required=True)
    register_actions(actions, group.formatter_class)
    register_link(actions)


def _run_action(args: argparse.Namespace) -> int:
    from controller.commands.diag_actions import run_action

    return run_action(args)


def _run_status(args: argparse.Namespace) -> int:
    from controller.commands.diag_status import run_status

    return run_status(args)


def _run_link(args: argparse.Namespace) -> int:
    from controller.commands.diag_link import run_link

    return run_link(args)


def _common(formatter: Any) -> argparse.ArgumentParser:
    # The command line's own formatter: argparse's default one loads `shutil` to size itself.
    common = argparse.ArgumentParser(add_help=False, formatter_class=formatter)
    common.add_argument("--config", type=Path, help=f"config file (default {paths.CONFIG})")
    common.add_argument("--socket", type=Path, help="control socket (default [control] socket)")
    common.add_argument("--json", action="store_true", help="one JSON object on stdout")
    common.add_argument("--yes", action="store_true", help="answer every prompt with done/yes")
    sim = common.add_argument_group("the simulated table, checked directly (no daemon)")
    sim.add_argument("--sim", action="store_true", help="diagnose the simulated table")
    sim.add_argument("--sim-seed", type=int, default=0, help="its tile tags (0)")
    sim.add_argument("--sim-jam-at", type=int, metavar="N", help="stacking head jams")
    sim.add_argument("--sim-dead-antenna", type=int, action="append", default=[], metavar="N")
    sim.add_argument("--sim-missing-tile", action="append", default=[], metavar="TILE")
    sim.add_argument("--sim-stuck", action="append", default=[], choices=vocabulary.INPUTS[:-1])
    return common


def register_actions(actions: Any, formatter: Any) -> None:
    """Add the diag actions to the `diag` group (their help made by `formatter`)."""
    common = _common(formatter)

    def add(name: str, help_: str, description: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = actions.add_parser(
            name, parents=[common], help=help_, description=description
        )
        return parser

    add(
        "status",
        "the table's state, faults and links",
        "Everything about the table: "
        "state, session, seats and scores, faults and holds with advice, MCU and hub link, "
        "versions. Exit 1 when something needs a technician.",
    ).set_defaults(handler=_run_status, op="status")
    selftest = add(
        "selftest",
        "exercise each part of the machine",
        "Test the shuffler, "
        "stacking head, lifts, dice, readers and antennas, lid and e-stop, buttons "
        "and LEDs (with prompts). Refused while a hand is in play.",
    )
    selftest.add_argument("component", nargs="?", choices=vocabulary.COMPONENTS)
    selftest.add_argument("--rolls", type=int, default=60, help="dice rolls to check (60)")
    selftest.set_defaults(handler=_run_action, op="selftest")
    tileset = add(
        "tiles",
        "audit the tile set, or enroll a new one",
        "Without arguments: "
        "build the walls of both sets and list missing, doubled and unknown tags by "
        "tile. `tiles enroll NAME`: write a new tile-set file from wall reads and the "
        "tiles laid on seat E's hand zone face by face.",
    )
    tileset.add_argument("words", nargs="*", metavar="enroll NAME")
    tileset.add_argument(
        "--dir",
        type=Path,
        help=f"for enroll ({paths.TILESETS}; with --sim a new scratch folder under the temp dir)",
    )
    tileset.set_defaults(handler=_run_action, op="tiles")
    gpio = add(
        "gpio",
        "the panel's buttons and e-stop; blink an LED",
        "Show each input; --blink an LED; --follow to keep watching (Ctrl-C ends).",
    )
    gpio.add_argument("--blink", choices=vocabulary.LEDS)
    gpio.add_argument("--follow", action="store_true", help="keep showing changes")
    gpio.set_defaults(handler=_run_action, op="gpio")
    mqtt = add(
        "mqtt",
        "check the link to the venue broker",
        "Broker reachable, TLS "
        "handshake and certificate expiry, login, may publish its own topics, the "
        "recorder's state, the outbox depth.",
    )
    mqtt.add_argument("--timeout", type=float, default=5.0, help="seconds per step (5)")
    mqtt.set_defaults(handler=_run_action, op="mqtt")
    events = add(
        "events",
        "tail MCU events, moves and incidents",
        "The recent lines; with --follow, every new one until Ctrl-C.",
    )
    events.add_argument("--follow", action="store_true")
    events.set_defaults(handler=_run_action, op="events")
    add(
        "config",
        "the effective configuration",
        "Every key with its value; defaults marked, secrets hidden.",
    ).set_defaults(handler=_run_action, op="config")


def register_link(actions: Any) -> None:
    """`diag link --port PORT_OR_URL [--count N] [--json]`."""
    link = actions.add_parser(
        "link",
        help="check the serial link to the table MCU",
        description="Connect to the table MCU, send N pings, then show what the MCU says about "
        "itself, the link statistics and a grade: healthy, degraded (with the figures) or "
        "failing. Exit 0 unless the link is failing. "
        "Stop the daemon first: only one program may use the serial port.",
    )
    link.add_argument(
        "--port", help="device (/dev/mahjong-mcu) or socket:// URL (default [serial] port)"
    )
    link.add_argument("--config", type=Path, help=f"config file (default {paths.CONFIG})")
    link.add_argument("--count", type=int, default=20, help="pings to send (20)")
    link.add_argument("--timeout", type=float, default=5.0, help="seconds to wait for the MCU")
    link.add_argument(
        "--deadline", type=float, default=60.0, help="stop pinging after this many seconds (60)"
    )
    link.add_argument("--json", action="store_true", help="one JSON object on stdout")
    link.set_defaults(handler=_run_link)
