"""`mahjong-table config check PATH`: validate a table config file before installing it."""

import argparse
from pathlib import Path
from typing import Any

from controller.config import DEFAULT_PATH, TableConfig, load_config
from controller.errors import ConfigError
from controller.rules import RulesError, get_ruleset


def register(commands: Any) -> None:
    """Add the `config` group to the CLI."""
    group = commands.add_parser("config", help="check configuration files")
    actions = group.add_subparsers(dest="action", metavar="ACTION", required=True)
    check = actions.add_parser(
        "check",
        help="validate a table config file",
        description="Validate a table config file (and the venue ruleset file it names): "
        "exit 0 if it is good, or exit 2 with one line naming the file, the line and what "
        "is wrong.",
    )
    check.add_argument("path", nargs="?", type=Path, default=DEFAULT_PATH, help="config file")
    check.set_defaults(handler=run_check)


def run_check(args: argparse.Namespace) -> int:
    """Load the file through the same loader the daemon uses."""
    config = load_config(args.path)
    _check_ruleset(config)
    print(f"{args.path}: ok (table {config.table.id}, ruleset {config.table.ruleset})")
    return 0


def _check_ruleset(config: TableConfig) -> None:
    """A venue's own ruleset file must load and describe the configured ruleset."""
    house_rules = config.table.ruleset_file
    if house_rules is None:
        return
    try:
        get_ruleset(config.table.ruleset, house_rules)
    except RulesError as exc:
        raise ConfigError(str(house_rules), None, str(exc)) from exc
