"""Loader for the worked cases (rules_examples.json), for every ruleset.

The cases write honours as letters (E S W N winds, C red, F green, P white) and flowers as
f1-f8; the loader turns them into the project notation.
"""

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.rules import Meld, MeldKind, Seat, Win, WinType, parse_tile, parse_tiles

HERE = Path(__file__).parent
CASES = HERE / "rules_examples.json"

RULESETS = {"zung_jung_v3.3": "zung-jung", "sichuan_xuezhan": "sichuan", "shanghai": "shanghai"}
MELD_KINDS = {
    "chow": MeldKind.CHOW,
    "pung": MeldKind.PUNG,
    "kong_exposed": MeldKind.KONG,
    "kong_concealed": MeldKind.CONCEALED_KONG,
}
WIN_TYPES = {
    "discard": WinType.DISCARD,
    "self_draw": WinType.SELF_DRAW,
    "robbing_kong": WinType.ROBBING_KONG,
    "kong_replacement": WinType.KONG_REPLACEMENT,
    "last_tile_self_draw": WinType.LAST_TILE,
    "discard_after_kong": WinType.AFTER_KONG_DISCARD,
    "heavenly": WinType.HEAVENLY,
    "earthly": WinType.EARTHLY,
}
_LETTERS = {"E": "1z", "S": "2z", "W": "3z", "N": "4z", "P": "5z", "F": "6z", "C": "7z"}


def mpsz(text: str) -> str:
    """A case's tile string in project notation (letters for honours, f1-f8 for flowers)."""
    text = re.sub(r"f([1-8])", r"\1f", text)
    return "".join(_LETTERS.get(char, char) for char in text if not char.isspace())


@dataclass(frozen=True)
class Case:
    """One worked case, ready to score."""

    id: str
    ruleset: str
    win: Win
    expected: dict[str, Any]
    note: str


def load_cases() -> list[Case]:
    """Every worked case, of every ruleset."""
    raw = json.loads(CASES.read_text(encoding="utf-8"))["cases"]
    return [to_case(item) for item in raw]


def to_case(item: dict[str, Any]) -> Case:
    """A raw case as a Case; raises KeyError on a win type the loader does not know yet."""
    melds = tuple(
        Meld(MELD_KINDS[m["type"]], tuple(sorted(parse_tiles(mpsz(m["tiles"])))))
        for m in item["melds"]
    )
    win = Win(
        concealed=tuple(parse_tiles(mpsz(item["concealed"]))),
        melds=melds,
        win_tile=parse_tile(mpsz(item["winning_tile"])),
        win_type=WIN_TYPES[item["win_type"]],
        seat=Seat[item.get("seat_wind", "E")],
        flowers=tuple(parse_tiles(mpsz("".join(item.get("flowers", ""))))),  # str or list
    )
    return Case(item["id"], RULESETS[item["ruleset"]], win, item["expected"], item.get("note", ""))


def base_name(label: str) -> str:
    """A pattern label without its count suffix (`Value Honor x2` -> `Value Honor`)."""
    return re.sub(r"\s*x\d+$", "", label)
