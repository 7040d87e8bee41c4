"""The rules engine, pure: tiles, notation, win shapes, wall and deal geometry, rulesets.

Start with `get_ruleset(name)` and `Ruleset.score(Win(...))`; README.md in this folder says
how a ruleset is built and how to add one.

The names below load with the module that defines them, when first used: a program that only
needs `controller.rules.names` (the config, the diag command line) does not load the engine.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from controller.rules.claims import Claim, ClaimRules, KongKind
    from controller.rules.errors import NotationError, RulesError
    from controller.rules.hand import Meld, MeldKind, Win, WinType
    from controller.rules.names import RULESET_NAMES, RulesetName
    from controller.rules.notation import format_tiles, parse_tile, parse_tiles, tile_str
    from controller.rules.patterns import needs
    from controller.rules.registry import MODULES, get_ruleset
    from controller.rules.rotation import DealState, HandOutcome
    from controller.rules.ruleset import Ruleset, SeatAtDraw
    from controller.rules.score import PatternValue, Payments, Score, Tally
    from controller.rules.seats import Seat
    from controller.rules.shapes import Arrangement, Block, Form, Shape, arrangements, is_win, waits
    from controller.rules.tiles import PhysicalTile
    from controller.rules.views import Feature, HandView
    from controller.rules.wall import DealStep, Wall, WallPlan, WallPosition

_WHERE = {
    "Claim": "controller.rules.claims",
    "ClaimRules": "controller.rules.claims",
    "KongKind": "controller.rules.claims",
    "NotationError": "controller.rules.errors",
    "RulesError": "controller.rules.errors",
    "Meld": "controller.rules.hand",
    "MeldKind": "controller.rules.hand",
    "Win": "controller.rules.hand",
    "WinType": "controller.rules.hand",
    "RULESET_NAMES": "controller.rules.names",
    "RulesetName": "controller.rules.names",
    "format_tiles": "controller.rules.notation",
    "parse_tile": "controller.rules.notation",
    "parse_tiles": "controller.rules.notation",
    "tile_str": "controller.rules.notation",
    "needs": "controller.rules.patterns",
    "MODULES": "controller.rules.registry",
    "get_ruleset": "controller.rules.registry",
    "DealState": "controller.rules.rotation",
    "HandOutcome": "controller.rules.rotation",
    "Ruleset": "controller.rules.ruleset",
    "SeatAtDraw": "controller.rules.ruleset",
    "PatternValue": "controller.rules.score",
    "Payments": "controller.rules.score",
    "Score": "controller.rules.score",
    "Tally": "controller.rules.score",
    "Seat": "controller.rules.seats",
    "Arrangement": "controller.rules.shapes",
    "Block": "controller.rules.shapes",
    "Form": "controller.rules.shapes",
    "Shape": "controller.rules.shapes",
    "arrangements": "controller.rules.shapes",
    "is_win": "controller.rules.shapes",
    "waits": "controller.rules.shapes",
    "PhysicalTile": "controller.rules.tiles",
    "Feature": "controller.rules.views",
    "HandView": "controller.rules.views",
    "DealStep": "controller.rules.wall",
    "Wall": "controller.rules.wall",
    "WallPlan": "controller.rules.wall",
    "WallPosition": "controller.rules.wall",
}
"""Where each name of the package is defined."""


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'controller.rules' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "MODULES",
    "RULESET_NAMES",
    "Arrangement",
    "Block",
    "Claim",
    "ClaimRules",
    "DealState",
    "DealStep",
    "Feature",
    "Form",
    "HandOutcome",
    "HandView",
    "KongKind",
    "Meld",
    "MeldKind",
    "NotationError",
    "PatternValue",
    "Payments",
    "PhysicalTile",
    "RulesError",
    "Ruleset",
    "RulesetName",
    "Score",
    "Seat",
    "SeatAtDraw",
    "Shape",
    "Tally",
    "Wall",
    "WallPlan",
    "WallPosition",
    "Win",
    "WinType",
    "arrangements",
    "format_tiles",
    "get_ruleset",
    "is_win",
    "needs",
    "parse_tile",
    "parse_tiles",
    "tile_str",
    "waits",
]
