"""The ports through which the table logic sees its hardware: typed data plus Protocols.

Only `controller/devices/` and `controller/sim/` implement these; the hand cycle and the
referee depend on nothing else.
"""

import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

SEATS = ("E", "S", "W", "N")


class StatusPattern(enum.Enum):
    """What the status LED shows a technician walking the floor."""

    IDLE = "idle"
    BUILDING = "building"
    READY = "ready"
    PLAYING = "playing"
    FAULT = "fault"


class Beep(enum.Enum):
    """Buzzer sounds: short acknowledgement, turn-time warning, fault alarm."""

    ACK = "ack"
    WARNING = "warning"
    ALARM = "alarm"


@dataclass(frozen=True)
class DicePressed:
    """The centre dice/start button was pressed."""


@dataclass(frozen=True)
class DeclarePressed:
    """A player pressed their declare button (seat index 0-3 = E S W N)."""

    seat: int


@dataclass(frozen=True)
class EmergencyStop:
    """The emergency stop opened (engaged=True) or closed again (engaged=False)."""

    engaged: bool


PanelEvent = DicePressed | DeclarePressed | EmergencyStop


class Panel(Protocol):
    """The table's control panel: buttons in, lights and sound out."""

    def subscribe(self, handler: Callable[[PanelEvent], None]) -> None:
        """Call `handler` (on the event loop) for every button or e-stop change."""
        ...

    def show_status(self, pattern: StatusPattern) -> None:
        """Show the table state on the status LED."""
        ...

    def show_turn(self, seat: int | None, overtime: bool = False) -> None:
        """Light the seat LED of the player to act (blinking once over time); None: all off."""
        ...

    def beep(self, sound: Beep) -> None:
        """Sound the buzzer."""
        ...

    @property
    def emergency_stop_engaged(self) -> bool:
        """True while the emergency stop circuit is open."""
        ...

    def close(self) -> None:
        """Release the pins."""
        ...
