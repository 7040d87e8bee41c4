"""Subcommand groups of the `mahjong-table` CLI; each module has `register(subparsers)`."""

from types import ModuleType

from controller.commands import (
    config_cmd,
    diag_cmd,
    hub_cmd,
    replay_cmd,
    rules_cmd,
    run_cmd,
    simulate_cmd,
)

COMMAND_MODULES: tuple[ModuleType, ...] = (
    config_cmd,
    hub_cmd,
    diag_cmd,
    replay_cmd,
    rules_cmd,
    run_cmd,
    simulate_cmd,
)
