"""The names of the rulesets the table knows: the one list config, CLI and hub contract use."""

from typing import Literal, get_args

RulesetName = Literal["zung-jung", "sichuan", "shanghai"]
"""A ruleset's name, as in config files, commands and results."""

RULESET_NAMES: tuple[RulesetName, ...] = get_args(RulesetName)
"""Every ruleset name, in the order the CLI lists them."""
