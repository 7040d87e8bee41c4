"""The ports through which the table logic sees its hardware: typed data plus Protocols.

Only `controller/devices/` and `controller/sim/` implement these; the hand cycle and the
referee depend on nothing else.
"""

import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

SEATS = ("E", "S", "W", "N")
SIGNALS = (
    "dice_button",
    "declare_e",
    "declare_s",
    "declare_w",
    "declare_n",
    "led_e",
    "led_s",
    "led_w",
    "led_n",
    "status_red",
    "status_green",
    "status_blue",
    "buzzer",
    "estop",
    "mcu_reset",
)
"""The panel's signals, each wired to one GPIO pin (the pinout names the pin of each)."""


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
    OVERTIME = "overtime"
    """One buzz: a turn or hand limit passed, or another penalty step began."""


class LightMode(enum.Enum):
    """One seat LED: off, lit (the seat is on turn), blinking (over a time limit)."""

    OFF = "off"
    ON = "on"
    BLINK = "blink"


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

    def light_seat(self, seat: int, mode: LightMode) -> None:
        """Set one seat's LED, leaving the others as they are."""
        ...

    @property
    def emergency_stop_engaged(self) -> bool:
        """True while the emergency stop circuit is open."""
        ...

    def close(self) -> None:
        """Release the pins."""
        ...


# ---- the table MCU ---------------------------------------------------------------------------


class Motion(enum.Enum):
    """The machine's long movements; each ends with a MotionEnded event."""

    BUILD = "build the walls"
    RAISE = "raise the walls"
    LOWER = "lower the platform"
    DICE = "roll the dice"


class Outcome(enum.Enum):
    """How a movement ended."""

    DONE = "done"
    STOPPED = "stopped"
    FAILED = "failed"
    TIMED_OUT = "timed out"


class McuFaultKind(enum.Enum):
    """Faults the table MCU reports (it has stopped the motors concerned)."""

    JAM = "jam"
    OVERCURRENT = "overcurrent"
    MOTOR_TIMEOUT = "motor timeout"
    READER_ERROR = "reader error"
    LID_OPEN = "lid open"
    ESTOP = "emergency stop"
    HEARTBEAT_LOST = "heartbeat lost"


class Zone(enum.Enum):
    """The three antenna zones in front of each seat."""

    HAND = "hand"
    MELD = "meld"
    DISCARD = "discard"

    # Members are singletons compared by identity; Enum's own hash is a Python call at every
    # lookup of a (seat, zone) key, thousands of times a hand.
    __hash__ = object.__hash__


@dataclass(frozen=True)
class WallTilePlaced:
    """The stacking head put a tile at (side, stack, layer); `uid` 0: the tag was not read."""

    side: int
    stack: int
    layer: int
    uid: int


@dataclass(frozen=True)
class WallSideBuilt:
    """One side of the walls under the table is complete with `count` tiles."""

    side: int
    count: int


@dataclass(frozen=True)
class WallSideRead:
    """Every tile placed on one side so far (after lost events): (stack, layer, uid) each."""

    side: int
    tiles: tuple[tuple[int, int, int], ...]


@dataclass(frozen=True)
class MotionEnded:
    """A movement ended."""

    motion: Motion
    outcome: Outcome


@dataclass(frozen=True)
class DiceRolled:
    """The dice under the dome came to rest."""

    d1: int
    d2: int


@dataclass(frozen=True)
class McuFault:
    """A fault began; `part` names the motor or antenna in words ('' if none)."""

    kind: McuFaultKind
    part: str = ""
    antenna: int | None = None
    """The reader antenna for READER_ERROR: 0 the wall reader, then 1 + seat * 3 + zone."""


@dataclass(frozen=True)
class McuFaultCleared:
    """A fault ended (lid closed, emergency stop released, heartbeat back)."""

    kind: McuFaultKind


@dataclass(frozen=True)
class ZoneRead:
    """Every tag one zone antenna reads now."""

    seat: int
    zone: Zone
    uids: frozenset[int]


@dataclass(frozen=True)
class McuOnline:
    """The link to the MCU is up; `restarted`: the MCU rebooted since the last handshake."""

    restarted: bool = False
    reconnected: bool = False
    reset_cause: str = "power on"


@dataclass(frozen=True)
class McuOffline:
    """The link to the MCU is down (it reconnects on its own unless `final`)."""

    reason: str
    final: bool = False


@dataclass(frozen=True)
class McuStatusRead:
    """The MCU's status, re-read after lost events."""

    walls_built: bool
    estop: bool
    lid_open: bool
    lifts_up: bool
    dice_rolls: int = 0
    """Rolls the MCU has finished since it started."""
    dice: tuple[int, int] = (0, 0)
    """The last roll's dice."""
    dice_spinning: bool = False
    platform_moving: bool = False
    faults: tuple["McuFault", ...] = ()
    """The faults active now (one whose event was lost shows here)."""


@dataclass(frozen=True)
class McuEventsLost:
    """Events from the MCU were lost on the link; its state is being re-read (McuResynced
    follows once the re-read is complete), so nothing may be decided from it until then."""

    missed: int
    gap: int
    """The gap's number (counted by the link); `McuResynced.covers` answers it."""


@dataclass(frozen=True)
class ZonesReadAgain:
    """Every zone antenna was read once more, as asked (the reads came before, as `ZoneRead`)."""

    asked_at: float
    """The ask (`ReadZones.asked_at`) this read answers: the referee counts every ask made
    before it as answered too."""


@dataclass(frozen=True)
class McuResynced:
    """The MCU's state was re-read in full: every gap up to number `covers` is made good (a
    later gap waits for the next re-read)."""

    covers: int


McuEvent = (
    WallTilePlaced
    | WallSideBuilt
    | WallSideRead
    | MotionEnded
    | DiceRolled
    | McuFault
    | McuFaultCleared
    | ZoneRead
    | ZonesReadAgain
    | McuOnline
    | McuOffline
    | McuStatusRead
    | McuEventsLost
    | McuResynced
)


class McuCommand(enum.Enum):
    """The commands the hand cycle gives the table MCU, in the words of a fault message."""

    BUILD = "build the walls"
    RAISE = "raise the walls"
    LOWER = "lower the platform"
    ROLL = "roll the dice"
    STOP_ALL = "stop every motor"


class CommandFailure(enum.Enum):
    """Why a command to the table MCU failed, typed: the MCU's refusals (its protocol's reject
    codes, by the same names, where one code means one thing to do; split by the refusal's
    detail where it does not) and the link's own failures. Faults and advice follow from it."""

    UNKNOWN_COMMAND = "unknown_command"
    BAD_ARGUMENT = "bad_argument"
    """The firmware does not take the command as this daemon sent it (a field out of range)."""
    WALLS_DO_NOT_FIT = "walls_do_not_fit"
    """BAD_ARGUMENT to a build, naming its layout: the table cannot stack the walls asked for
    (more layers than it stacks, or a tile set of another size in its firmware)."""
    BUSY = "busy"
    LID_OPEN = "lid_open"
    ESTOP = "estop"
    NO_WALLS_BELOW = "no_walls_below"
    """NOT_READY, detail 0, to a raise: no complete walls wait under the table."""
    SURFACE_HOLDS_TILES = "surface_holds_tiles"
    """NOT_READY, detail 1, to a raise: tiles are still lying on the playing surface."""
    NO_TILES = "no_tiles"
    FAULT_ACTIVE = "fault_active"
    NO_ANSWER = "no_answer"
    """The MCU did not answer in time, or restarted while the command was in flight."""
    LINK_DOWN = "link_down"
    """The MCU is not connected (or speaks another protocol)."""
    NO_SUCH_SET = "no_such_set"
    """The table has no tile set of the size the ruleset asks for."""


class McuCommandFailed(Exception):
    """A command to the table MCU failed: `failure` says why (typed), `reason` in words."""

    def __init__(self, command: McuCommand, failure: CommandFailure, reason: str) -> None:
        super().__init__(f"could not {command.value}: {reason}")
        self.command = command
        self.failure = failure
        self.reason = reason


class Mcu(Protocol):
    """The table MCU: movements out, events in. Movements return once accepted."""

    def subscribe(self, handler: Callable[[McuEvent], None]) -> None:
        """Call `handler` (on the event loop) for every event of the MCU and its link."""
        ...

    async def build_walls(self, tiles: int, tiles_per_side: int, layers: int, max_s: float) -> None:
        """Sweep the walls below back, shuffle the next set and build four walls under the table."""
        ...

    async def raise_walls(self, max_s: float) -> None:
        """Lift the built walls onto the playing surface."""
        ...

    async def lower_platform(self, max_s: float) -> None:
        """Drop every tile on the playing surface into the hopper."""
        ...

    async def roll_dice(self, max_s: float) -> None:
        """Spin the dice under the dome."""
        ...

    async def stop_all(self) -> None:
        """Stop every motor now."""
        ...

    async def read_zones(self, asked_at: float) -> None:
        """Read every zone antenna again (the reads come as `ZoneRead` events, then
        `ZonesReadAgain(asked_at)`); never raises."""
        ...
