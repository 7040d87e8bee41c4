"""What the simulated players really did, as typed records: every move they made with their
hands and every mistake they made on purpose (the ground truth a referee's report is
compared with), and the JSON lines file they can be written to."""

import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from enum import StrEnum
from pathlib import Path

from controller.rules import WinType


class MoveKind(StrEnum):
    """A move a player makes at the table (docs/play.md)."""

    DRAW = "draw"
    REPLACEMENT = "replacement"
    """A tile taken from the wall's end after a kong or a flower."""
    FLOWER = "flower"
    DISCARD = "discard"
    CHOW = "chow"
    PUNG = "pung"
    EXPOSED_KONG = "exposed-kong"
    """Three own tiles and a discard."""
    ADDED_KONG = "added-kong"
    CONCEALED_KONG = "concealed-kong"
    ROB_KONG = "rob-kong"
    """The added kong's tile taken into the robber's HAND."""
    TAKE_DISCARD = "take-discard"
    """A discard taken into the HAND to win on it."""
    DECLARE = "declare"
    """The declare button, with the win type the player believes it is."""


@dataclass(frozen=True)
class Move:
    """One move: who (table place 0-3), what, which tags and tiles, from whom."""

    hand: int
    place: int
    kind: MoveKind
    uids: tuple[int, ...] = ()
    tiles: str = ""
    """The tiles in mpsz notation."""
    source: int | None = None
    """The place a claimed or robbed tile came from."""
    win_type: WinType | None = None
    """For DECLARE: how the player believes the win came."""


class SlipKind(StrEnum):
    """A mistake a sloppy player makes on purpose (issue 12's irregularities)."""

    SLOW_TURN = "slow-turn"
    """The turn took longer than the ruleset's limit."""
    FALSE_WIN = "false-win"
    """Declared a win the tiles do not make."""
    DRAW_OUT_OF_TURN = "draw-out-of-turn"
    SHORT_HAND = "short-hand"
    """Discarded without having drawn: one tile too few from then on."""
    LONG_HAND = "long-hand"
    """Drew a second tile in one turn: one tile too many from then on."""
    LATE_CLAIM = "late-claim"
    """Took a discard after the next seat had drawn (refused: its tiles put back)."""
    WRONG_SEAT_CHOW = "wrong-seat-chow"
    """Laid out a chow on a discard of a seat that is not the one before (refused)."""
    PENALTY_SET = "penalty-set"
    """Laid out a pung with a penalty tile in it (refused)."""
    CLAIM_RACE = "claim-race"
    """Laid out a set on a discard another seat then declared a win on, before the set's
    discard (the set is void: no fault, but the claim was lost)."""


@dataclass(frozen=True)
class Slip:
    """One mistake: who made it, in which hand, when (its index among the hand's moves),
    and the tags involved."""

    hand: int
    place: int
    kind: SlipKind
    move_index: int
    """How many moves of this hand came before it (its place in the move list)."""
    uids: tuple[int, ...] = ()
    detail: str = ""
    seconds: float = 0.0
    """SLOW_TURN: how long the turn took (the players' own clock)."""


def write_jsonl(path: Path, records: Iterable[Move | Slip], *, append: bool = False) -> int:
    """Write the records as JSON lines (one object a line, `record` says which type), after
    what the file holds if `append`; returns how many were written."""
    count = 0
    with path.open("a" if append else "w", encoding="utf-8") as out:
        for record in records:
            row = {"record": type(record).__name__.lower(), **asdict(record)}
            out.write(json.dumps(row, default=str) + "\n")
            count += 1
    return count
