"""`mahjong-table config check PATH`: validate a table config file before installing it."""

import argparse
from pathlib import Path
from typing import Any

from controller.config import DEFAULT_PATH, load_config


def register(commands: Any) -> None:
    """Add the `config` group to the CLI."""
    group = commands.add_parser("config", help="check configuration files")
    actions = group.add_subparsers(dest="action", metavar="ACTION", required=True)
    check = actions.add_parser(
        "check",
        help="validate a table config file",
        description="Validate a table config file: exit 0 if it is good, or exit 2 with "
        "one line naming the file, the line and what is wrong.",
    )
    check.add_argument("path", nargs="?", type=Path, default=DEFAULT_PATH, help="config file")
    check.set_defaults(handler=run_check)


def run_check(args: argparse.Namespace) -> int:
    """Load the file through the same loader the daemon uses."""
    config = load_config(args.path)
    print(f"{args.path}: ok (table {config.table.id}, ruleset {config.table.ruleset})")
    return 0
