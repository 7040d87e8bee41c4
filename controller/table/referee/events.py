"""What the referee hears (settled zone inventories, declare presses, time) and what it says
(moves, incidents, wins, the hand's end). Plain data: the black box writes the inputs as they
come, and a replay feeds them back."""

import enum
from dataclasses import dataclass

from controller.rules import Meld
from controller.rules.hand import WinType
from controller.table.clocks import ClockEvent
from controller.table.incidents import IncidentRecord, Instant
from controller.table.ports import Zone


@dataclass(frozen=True)
class ZoneContent:
    """The tags one zone holds now (a settled read, debounced by the zone board)."""

    place: int
    zone: Zone
    uids: frozenset[int]


@dataclass(frozen=True)
class Inventories:
    """The zones that changed in one settled read, with their whole new content."""

    zones: tuple[ZoneContent, ...]


@dataclass(frozen=True)
class Declare:
    """A seat pressed its declare button."""

    place: int


@dataclass(frozen=True)
class Elapsed:
    """Time passed (claim windows close, declarations settle)."""


@dataclass(frozen=True)
class EndNow:
    """Someone with the right (the venue, a technician) ends the hand as it stands."""

    reason: str


@dataclass(frozen=True)
class Pause:
    """Play stopped (a fault): no clock runs until `Resume`."""


@dataclass(frozen=True)
class Resume:
    """Play goes on after a fault: the clocks run again."""


@dataclass(frozen=True)
class ReadDone:
    """The zones were read again as asked (`ReadAgain`); what changed came before."""

    asked_at: float
    """The ask the read answers (the instant of its `ReadAgain`); earlier asks are answered
    with it."""


@dataclass(frozen=True)
class ReadsMissing:
    """MCU events were lost on the link: zone reads from about `since` on may be missing until
    the MCU's state is read again (a newer `ReadsMissing`, or `ReadsComplete`). Nothing due
    after that is decided from a tile not seen: no claim window closes on time, no press is
    too late or out of turn, no tile is a stray; what fell due before is decided."""

    since: float
    """When the oldest loss not yet made good was found (monotonic)."""


@dataclass(frozen=True)
class ReadsComplete:
    """The MCU's state was read again after every loss: the reads are complete."""


RefereeInput = (
    Inventories
    | Declare
    | Elapsed
    | EndNow
    | Pause
    | Resume
    | ReadDone
    | ReadsMissing
    | ReadsComplete
)


class MoveKind(enum.Enum):
    """Every move the referee tells apart."""

    DRAW = "draw"
    REPLACEMENT = "replacement draw"
    DISCARD = "discard"
    CHOW = "chow"
    PUNG = "pung"
    EXPOSED_KONG = "exposed kong"
    ADDED_KONG = "added kong"
    CONCEALED_KONG = "concealed kong"
    FLOWER = "flower set aside"
    TAKE_FOR_WIN = "discard taken to win"
    ROB_KONG = "kong robbed"
    WIN = "win"


@dataclass(frozen=True)
class Move:
    """One move: who, what, which tiles (kinds), and from whom when a tile was claimed."""

    at: Instant
    place: int
    kind: MoveKind
    tiles: tuple[int, ...]
    source: int | None = None
    """The seat whose discard (or kong tile) was taken."""


@dataclass(frozen=True)
class WinEntry:
    """A validated win as the referee records it (places are physical seats 0-3)."""

    at: Instant
    place: int
    discarder: int | None
    win_type: WinType
    win_tile: int
    concealed: tuple[int, ...]
    melds: tuple[Meld, ...]
    flowers: tuple[int, ...]
    patterns: tuple[tuple[str, int], ...]
    total: int
    unit: str
    score: int
    payments: tuple[int, ...]


@dataclass(frozen=True)
class Payment:
    """One settlement during the hand (a win, a kong, income passed, the draw): by place."""

    reason: str
    amounts: tuple[int, ...]


@dataclass(frozen=True)
class SeatEnd:
    """A seat's tiles at the end of the hand."""

    concealed: tuple[int, ...]
    melds: tuple[Meld, ...]
    flowers: tuple[int, ...]
    discards: tuple[int, ...]


@dataclass(frozen=True)
class RefereeResult:
    """The hand as the referee saw it, from the deal to the end."""

    moves: tuple[Move, ...]
    wins: tuple[WinEntry, ...]
    payments: tuple[Payment, ...]
    seats: tuple[SeatEnd, ...]
    incidents: tuple[IncidentRecord, ...]
    reason: str
    ended_at: Instant

    @property
    def totals(self) -> tuple[int, ...]:
        """Each place's payments over the hand (they sum to zero)."""
        return tuple(sum(p.amounts[place] for p in self.payments) for place in range(4))


@dataclass(frozen=True)
class MoveMade:
    """A move was recognised."""

    move: Move


@dataclass(frozen=True)
class IncidentSeen:
    """An irregularity (it never stops play)."""

    incident: IncidentRecord


@dataclass(frozen=True)
class WinMade:
    """A declared win was valid."""

    win: WinEntry


@dataclass(frozen=True)
class TimeCalled:
    """The clocks: a limit passed or a penalty step was charged (the seat LEDs and the buzzer
    show it; the incidents with the points come as `IncidentSeen` before it)."""

    events: tuple[ClockEvent, ...]


@dataclass(frozen=True)
class ReadAgain:
    """Tiles out of place that no move explains yet: the zones should be read once more (a
    missed read, not a move, is the likely cause) before the referee takes them as they lie."""


@dataclass(frozen=True)
class HandOver:
    """The referee ended the hand."""

    result: RefereeResult


RefereeOutput = MoveMade | IncidentSeen | WinMade | TimeCalled | ReadAgain | HandOver
