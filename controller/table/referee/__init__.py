"""The referee: follows a hand move by move from the settled zone inventories, the declare
buttons and the clock; judges claims and wins with the rules engine; ends the hand.

Modules: `events` (inputs, outputs, result records), `state` (its memory), whose facts each
have one owner: `places` (where every tile is), `turn`, `windows` (claim windows and presses),
`standing` (rights, penalty tiles), `waits`, `handclocks`; `moves` (reads -> moves), `melds`
(each seat's melds as formed), `claims` (when windows close, priority), `wins` (win type and
scoring), `fouls`, `timing`, `procedures` (ruleset hooks), `result`, `setup`, `machine`,
`blackbox`.
"""

from controller.table.referee.events import (
    Declare,
    Elapsed,
    EndNow,
    HandOver,
    IncidentSeen,
    Inventories,
    Move,
    MoveKind,
    MoveMade,
    Pause,
    ReadAgain,
    ReadDone,
    ReadsComplete,
    ReadsMissing,
    RefereeInput,
    RefereeOutput,
    RefereeResult,
    Resume,
    TimeCalled,
    WinMade,
    ZoneContent,
)
from controller.table.referee.machine import Referee
from controller.table.referee.setup import RefereeSetup
from controller.table.referee.state import Settings

__all__ = [
    "Declare",
    "Elapsed",
    "EndNow",
    "HandOver",
    "IncidentSeen",
    "Inventories",
    "Move",
    "MoveKind",
    "MoveMade",
    "Pause",
    "ReadAgain",
    "ReadDone",
    "ReadsComplete",
    "ReadsMissing",
    "Referee",
    "RefereeInput",
    "RefereeOutput",
    "RefereeResult",
    "RefereeSetup",
    "Resume",
    "Settings",
    "TimeCalled",
    "WinMade",
    "ZoneContent",
]
