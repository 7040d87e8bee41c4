"""The rules engine, pure: tiles, notation, win shapes, wall and deal geometry, rulesets.

Start with `get_ruleset(name)` and `Ruleset.score(Win(...))`; README.md in this folder says
how a ruleset is built and how to add one.
"""

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
