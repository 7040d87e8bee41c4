"""`mahjong-table config check PATH`: validate a table config file before installing it."""

import argparse
import sys
from pathlib import Path
from typing import Any

from controller.config import DEFAULT_PATH


def register(commands: Any) -> None:
    """Add the `config` group to the CLI."""
    group = commands.add_parser("config")
    actions = group.add_subparsers(dest="action", metavar="ACTION", required=True)
    check = actions.add_parser(
        "check",
        help="validate a table config file",
        description="Run every check the daemon runs before it touches hardware on a table "
        "config file (pins, tile-set, TLS and ruleset files, result key): exit 0 if it is "
        "good, or exit 2 with one line naming the file, the line and what is wrong.",
    )
    check.add_argument("path", nargs="?", type=Path, default=DEFAULT_PATH, help="config file")
    check.set_defaults(handler=run_check)


def run_check(args: argparse.Namespace) -> int:
    """Load the file and run the daemon's own preflight checks on it."""
    from controller.config import read_config_file
    from controller.preflight import preflight

    config, source = read_config_file(args.path)
    found = preflight(config, source)
    for warning in found.warnings:
        print(f"mahjong-table: warning: {warning}", file=sys.stderr)
    print(f"{args.path}: ok (table {config.table.id}, ruleset {config.table.ruleset})")
    return 0
