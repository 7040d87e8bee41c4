"""Subcommand groups of the `mahjong-table` CLI; each module has `register(subparsers)`.

The CLI imports only the module of the command it runs (a cold start stays fast on a Pi, where
technicians run `diag` over SSH); the other commands appear in `--help` from this table.
"""


class Command:
    """One subcommand group: the module that registers and runs it, and its line in --help."""

    # A plain class: importing dataclasses would cost `--version` a tenth of its time.
    __slots__ = ("help", "module")

    def __init__(self, module: str, help: str) -> None:
        self.module = module
        self.help = help


COMMANDS: dict[str, Command] = {
    "config": Command("controller.commands.config_cmd", "check configuration files"),
    "hub": Command(
        "controller.commands.hub_cmd", "the venue recorder: record, ack and export hand results"
    ),
    "diag": Command("controller.commands.diag_cmd", "technician diagnostics"),
    "replay": Command(
        "controller.commands.replay_cmd", "run a hand's black box through the referee again"
    ),
    "rules": Command("controller.commands.rules_cmd", "validate and score hands, list waits"),
    "run": Command("controller.commands.run_cmd", "run the table daemon"),
    "simulate": Command(
        "controller.commands.simulate_cmd",
        "play a whole session on the simulated table, watched live",
    ),
}
