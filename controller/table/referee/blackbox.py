"""The black box of a hand: its setup and every input the referee took, as JSON lines, and
the replay that feeds them through a fresh referee to the same result.

One line per input; the first line is the setup (ruleset, tile set, the wall as built, dice,
deal state, the zones the deal left, the referee's times). Files are untrusted when read
back: each line is bounded in size and decoded into typed records here, and nowhere else.
"""

from collections.abc import Iterable
from typing import Literal

import msgspec

from controller.rules import DealState, RulesError, get_ruleset
from controller.table.incidents import Instant
from controller.table.ports import Zone
from controller.table.referee.events import (
    Declare,
    Elapsed,
    EndNow,
    HandOver,
    Inventories,
    Pause,
    ReadDone,
    ReadsComplete,
    ReadsMissing,
    RefereeInput,
    RefereeResult,
    Resume,
    ZoneContent,
)
from controller.table.referee.machine import Referee
from controller.table.referee.setup import RefereeSetup
from controller.table.referee.state import Settings
from controller.table.tiles import TileMap, TileMapError

VERSION = 1
MAX_LINE = 64 * 1024
"""Longest line a black box may hold (a whole table's zones fit in a few kilobytes)."""
MAX_LINES = 200_000


class BlackBoxError(ValueError):
    """A black-box file that cannot be replayed (what is wrong, and on which line)."""


class SetupLine(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The first line: what the referee started the hand from."""

    version: int
    ruleset: str
    tileset: str
    tiles: dict[int, str]
    placed: list[tuple[int, int, int, int]]
    dice: list[int]
    dealer: int
    hand: int
    round: int
    draw_streak: int
    hands: list[list[int]]
    melds: list[list[int]]
    window_s: float
    settle_s: float
    stray_s: float


class InputLine(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One input at one instant."""

    t: float
    wall: float
    kind: Literal[
        "zones", "declare", "tick", "end", "pause", "resume", "read", "missing", "complete"
    ]
    zones: list[tuple[int, str, list[int]]] = []
    place: int = -1
    reason: str = ""
    asked: float = 0.0
    """The ask a read answers."""
    since: float = 0.0
    """Since when reads may be missing."""


_encoder = msgspec.json.Encoder()
_setup_decoder = msgspec.json.Decoder(SetupLine)
_input_decoder = msgspec.json.Decoder(InputLine)


def box_name(session: str, hand: int) -> str:
    """The name of a hand's black box (its file name, without the suffix)."""
    return f"{session}-hand-{hand}"


class BlackBox:
    """The lines of one hand's black box, in memory (the table writes them as they come)."""

    def __init__(self, first: bytes) -> None:
        self.lines: list[bytes] = [first]

    @classmethod
    def start(cls, setup: RefereeSetup) -> "BlackBox":
        """A black box opened with the hand's setup line."""
        return cls(setup_line(setup))

    def note(self, event: RefereeInput, now: Instant) -> bytes:
        """Keep one input; returns its line."""
        line = input_line(event, now)
        self.lines.append(line)
        return line


def setup_line(setup: RefereeSetup) -> bytes:
    """The setup as one JSON line."""
    deal, settings = setup.deal, setup.settings
    line = SetupLine(
        version=VERSION,
        ruleset=setup.ruleset.name,
        tileset=setup.tiles.name,
        tiles=setup.tiles.names(),
        placed=[(*slot, uid) for slot, uid in sorted(setup.placed.items())],
        dice=list(setup.dice),
        dealer=deal.dealer,
        hand=deal.hand,
        round=deal.round,
        draw_streak=deal.draw_streak,
        hands=[sorted(setup.hands.get(p, ())) for p in range(4)],
        melds=[sorted(setup.melds.get(p, ())) for p in range(4)],
        window_s=settings.window_s,
        settle_s=settings.settle_s,
        stray_s=settings.stray_s,
    )
    return _encoder.encode(line)


def input_line(event: RefereeInput, now: Instant) -> bytes:
    """One input as one JSON line."""
    match event:
        case Inventories(zones):
            listed = [(z.place, z.zone.value, sorted(z.uids)) for z in zones]
            line = InputLine(now.monotonic, now.wall, "zones", zones=listed)
        case Declare(place):
            line = InputLine(now.monotonic, now.wall, "declare", place=place)
        case Elapsed():
            line = InputLine(now.monotonic, now.wall, "tick")
        case EndNow(reason):
            line = InputLine(now.monotonic, now.wall, "end", reason=reason)
        case Pause():
            line = InputLine(now.monotonic, now.wall, "pause")
        case Resume():
            line = InputLine(now.monotonic, now.wall, "resume")
        case ReadDone(asked_at):
            line = InputLine(now.monotonic, now.wall, "read", asked=asked_at)
        case ReadsMissing(since):
            line = InputLine(now.monotonic, now.wall, "missing", since=since)
        case ReadsComplete():
            line = InputLine(now.monotonic, now.wall, "complete")
    return _encoder.encode(line)


def read(lines: Iterable[bytes]) -> tuple[RefereeSetup, list[tuple[RefereeInput, Instant]]]:
    """Decode a black box: its setup and its inputs; BlackBoxError names the bad line."""
    setup: RefereeSetup | None = None
    inputs: list[tuple[RefereeInput, Instant]] = []
    for number, raw in enumerate(lines, start=1):
        if number > MAX_LINES:
            raise BlackBoxError(f"more than {MAX_LINES} lines: not a black box of one hand")
        if len(raw) > MAX_LINE:
            raise BlackBoxError(f"line {number} is longer than {MAX_LINE} bytes")
        if not raw.strip():
            continue
        try:
            if setup is None:
                setup = _setup(_setup_decoder.decode(raw))
            else:
                inputs.append(_input(_input_decoder.decode(raw)))
        except (msgspec.DecodeError, RulesError, TileMapError, ValueError, KeyError) as error:
            raise BlackBoxError(f"line {number}: {error}") from None
    if setup is None:
        raise BlackBoxError("the file is empty: no setup line")
    return setup, inputs


def _setup(line: SetupLine) -> RefereeSetup:
    if line.version != VERSION:
        raise BlackBoxError(f"black box version {line.version}; this table reads {VERSION}")
    if len(line.hands) != 4 or len(line.melds) != 4 or not 0 <= line.dealer <= 3:
        raise BlackBoxError("the setup needs four seats and a dealer 0-3")
    return RefereeSetup(
        get_ruleset(line.ruleset),
        TileMap.from_names(line.tileset, line.tiles),
        {(side, stack, layer): uid for side, stack, layer, uid in line.placed},
        tuple(line.dice),
        DealState(line.dealer, line.hand, line.round, line.draw_streak),
        {p: frozenset(line.hands[p]) for p in range(4)},
        {p: frozenset(line.melds[p]) for p in range(4)},
        Settings(line.window_s, line.settle_s, line.stray_s),
    )


def _input(line: InputLine) -> tuple[RefereeInput, Instant]:
    now = Instant(line.t, line.wall)
    event: RefereeInput
    if line.kind == "zones":
        zones = []
        for place, zone, uids in line.zones:
            if not 0 <= place <= 3:
                raise BlackBoxError(f"seat {place} is not 0-3")
            zones.append(ZoneContent(place, Zone(zone), frozenset(uids)))
        event = Inventories(tuple(zones))
    elif line.kind == "declare":
        if not 0 <= line.place <= 3:
            raise BlackBoxError(f"seat {line.place} is not 0-3")
        event = Declare(line.place)
    elif line.kind == "end":
        event = EndNow(line.reason[:500])
    elif line.kind == "pause":
        event = Pause()
    elif line.kind == "resume":
        event = Resume()
    elif line.kind == "read":
        event = ReadDone(line.asked)
    elif line.kind == "missing":
        event = ReadsMissing(line.since)
    elif line.kind == "complete":
        event = ReadsComplete()
    else:
        event = Elapsed()
    return event, now


def replay(
    setup: RefereeSetup, inputs: Iterable[tuple[RefereeInput, Instant]]
) -> tuple[Referee, RefereeResult | None]:
    """Feed the inputs through a fresh referee; the result if the hand ended."""
    referee = Referee(setup)
    result = None
    for event, now in inputs:
        for output in referee.handle(event, now):
            if isinstance(output, HandOver):
                result = output.result
    return referee, result
