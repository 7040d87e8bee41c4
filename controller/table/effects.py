"""What the hand cycle asks of the world: movements, lights and sounds, records and words."""

from dataclasses import dataclass
from typing import Literal

from controller.table.ports import Beep, LightMode, StatusPattern
from controller.table.records import FinishedHand, HandStart, IncidentRecord


@dataclass(frozen=True)
class BuildWalls:
    """Sweep any walls below back into the hopper, shuffle the next set, build four walls."""

    tiles: int
    tiles_per_side: int
    layers: int
    max_s: float


@dataclass(frozen=True)
class RaiseWalls:
    """Lift the checked walls onto the playing surface."""

    max_s: float


@dataclass(frozen=True)
class LowerPlatform:
    """Drop the last hand's tiles into the hopper."""

    max_s: float


@dataclass(frozen=True)
class RollDice:
    """Spin the dice."""

    max_s: float


@dataclass(frozen=True)
class StopAll:
    """Stop every motor now."""


@dataclass(frozen=True)
class ShowStatus:
    """Set the status LED."""

    pattern: StatusPattern


@dataclass(frozen=True)
class ShowTurn:
    """Light one seat's LED (None: all off)."""

    place: int | None
    overtime: bool = False


@dataclass(frozen=True)
class SeatLight:
    """Set one seat's LED (the others stay as they are), e.g. blinking once over time."""

    place: int
    mode: LightMode


@dataclass(frozen=True)
class Sound:
    """Sound the buzzer."""

    beep: Beep


Level = Literal["info", "warning", "error"]
"""How serious a word to the technician is (a typo is a type error, never a silent INFO)."""


@dataclass(frozen=True)
class Announce:
    """Say something to the technician (log, status line)."""

    level: Level
    text: str


@dataclass(frozen=True)
class HandBegan:
    """A hand's deal is decided (publish the start with a commitment to the wall)."""

    start: HandStart


@dataclass(frozen=True)
class NoteIncident:
    """An irregularity was recorded (publish it)."""

    start: HandStart | None
    incident: IncidentRecord


@dataclass(frozen=True)
class RecordHand:
    """Store the hand's result durably; the hand counts as over only once it is stored."""

    hand: FinishedHand


@dataclass(frozen=True)
class KeepInput:
    """Append one line to the hand's black box (the referee's setup or one of its inputs)."""

    name: str
    """The hand's black box, e.g. `s-1-hand-3` (one file per hand)."""
    line: bytes


@dataclass(frozen=True)
class ReadZones:
    """Ask the MCU to read every zone antenna again (a tag one read missed shows up)."""

    asked_at: float
    """The monotonic instant of the ask; the read's `ZonesReadAgain` names it."""


@dataclass(frozen=True)
class WakeAt:
    """Tick the cycle at this monotonic instant (a turn clock falls due then)."""

    monotonic: float


McuEffect = BuildWalls | RaiseWalls | LowerPlatform | RollDice | StopAll
PanelEffect = ShowStatus | ShowTurn | SeatLight | Sound
Effect = (
    McuEffect
    | PanelEffect
    | Announce
    | HandBegan
    | NoteIncident
    | RecordHand
    | KeepInput
    | WakeAt
    | ReadZones
)
