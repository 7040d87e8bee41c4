"""What the hand cycle hears besides the MCU and the panel: time, commands, and its own echoes."""

from dataclasses import dataclass

from controller.rules import Ruleset
from controller.table.ports import (
    CommandFailure,
    McuCommand,
    McuEvent,
    PanelEvent,
    WallTilePlaced,
    ZoneRead,
)
from controller.table.session import SessionPlan


@dataclass(frozen=True)
class Tick:
    """Time passed (timeouts, settling zones); the instant comes with every input."""


@dataclass(frozen=True)
class ZoneReads:
    """Zone reads that came one after the other with nothing between them (a discard reads
    in two zones): the referee sees them at once, as one look at the table."""

    reads: tuple[ZoneRead, ...]


@dataclass(frozen=True)
class WallTilesPlaced:
    """Wall tiles the stacking head placed one after the other with nothing between them."""

    tiles: tuple[WallTilePlaced, ...]


@dataclass(frozen=True)
class StartSession:
    """Start a session (from the config at power-on, or from the hub)."""

    plan: SessionPlan
    ruleset: Ruleset


@dataclass(frozen=True)
class EndSession:
    """End the session after the hand in play (at once if none is dealt)."""

    reason: str = "ended by the venue"


@dataclass(frozen=True)
class PauseSession:
    """Start no new hand until resumed."""

    reason: str = ""


@dataclass(frozen=True)
class ResumeSession:
    """Start hands again."""


@dataclass(frozen=True)
class Acknowledge:
    """A technician acknowledges the fault (as the dice button does)."""

    by: str = "command"


@dataclass(frozen=True)
class EndHand:
    """The hand is over with no (further) winner, e.g. the wall is empty.

    Until the referee lands this comes as a command (hub, diag or simulated players);
    the referee will send it itself when the last tile is gone.
    """

    reason: str = "the wall is empty"


@dataclass(frozen=True)
class CommandFailed:
    """A command to the table MCU failed (refused, unanswered, link down)."""

    command: McuCommand
    failure: CommandFailure
    reason: str


@dataclass(frozen=True)
class HandRecorded:
    """The hand's result is durable in the outbox."""

    result_id: str


@dataclass(frozen=True)
class RecordFailed:
    """The hand's result could not be stored."""

    reason: str


@dataclass(frozen=True)
class ServiceFailed:
    """A background service of the daemon failed and is being restarted."""

    service: str
    reason: str


@dataclass(frozen=True)
class SetupFailed:
    """The table cannot play at all (tile-set file, ruleset); fixing it needs a restart."""

    reason: str


Command = StartSession | EndSession | PauseSession | ResumeSession | Acknowledge | EndHand
Echo = CommandFailed | HandRecorded | RecordFailed | ServiceFailed | SetupFailed
Input = McuEvent | PanelEvent | ZoneReads | WallTilesPlaced | Tick | Command | Echo
