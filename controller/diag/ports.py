"""What diagnostics need of the hardware, as ports: the MCU, the panel, the technician's hands.

`controller/diag/bench.py` implements them on the firmware bridge and the Pi's pins; the
simulated table's technician lives in `controller/sim/technician.py`.
"""

import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import msgspec

from controller.diag import vocabulary
from controller.diag.status_report import McuFacts

if TYPE_CHECKING:  # the feed itself (asyncio) is the daemon's: a client needs only a prompt
    from controller.diag.events import Words

SEAT_NAMES = ("E", "S", "W", "N")
ZONE_NAMES = ("hand", "meld", "discard")


class Part(enum.Enum):
    """A part of the machine the MCU can test by itself."""

    SHUFFLER = "shuffler"
    STACKER = "stacker"
    LIFTS = "lifts"
    DICE = "dice"
    WALL_READER = "wall_reader"
    ZONE_READERS = "zone_readers"
    LID_SWITCH = "lid_switch"
    ESTOP_INPUT = "estop_input"


@dataclass(frozen=True)
class PartResult:
    """The MCU's verdict on one part; `what` names the failing motor or antenna in words."""

    passed: bool
    what: str = ""


class BenchMcu(Protocol):
    """The table MCU as diagnostics use it."""

    async def facts(self) -> McuFacts:
        """The link figures and the MCU's own status (connected False if it is not)."""
        ...

    async def self_test(self, part: Part) -> PartResult:
        """Let the MCU exercise one part."""
        ...

    async def roll_dice(self) -> tuple[int, int]:
        """Roll the dice once."""
        ...

    async def read_zone(self, seat: int, zone: int) -> list[int]:
        """The tag UIDs one zone antenna reads now."""
        ...

    async def build_wall(self, tiles: int) -> list[int]:
        """Shuffle the next set and build the walls below; the tag UIDs read, in order."""
        ...

    async def raise_walls(self) -> None:
        """Bring the built walls up."""
        ...

    async def lower_platform(self) -> None:
        """Drop every tile on the surface into the hopper."""
        ...

    def watch(self, callback: "Callable[[Words], None]") -> Callable[[], None]:
        """Call `callback` with each MCU event's words (made when called: an event feed
        nobody reads formats nothing); returns the way to stop."""
        ...


INPUTS = vocabulary.INPUTS
LEDS = vocabulary.LEDS


class BenchPanel(Protocol):
    """The control panel as diagnostics use it."""

    def inputs(self) -> dict[str, bool]:
        """Each input of INPUTS: True while pressed (the e-stop: while the circuit is open)."""
        ...

    def blink(self, led: str, times: int) -> None:
        """Blink one LED of LEDS `times` times (in the background)."""
        ...

    def on_press(self, callback: Callable[[str], None]) -> Callable[[], None]:
        """Call `callback` (on the event loop) with the input's name at each press; returns
        the way to stop."""
        ...


class Action(enum.Enum):
    """What a prompt asks the technician to do."""

    PRESS = "press"
    """Press and release the input `target`."""
    LOOK = "look"
    """Look at LED `target` and say whether it blinked."""
    PLACE = "place"
    """Put a tile on antenna `target` (seat letter + zone, e.g. E-hand)."""
    CLEAR = "clear"
    """Take every tile off the table surface."""
    SORT = "sort"
    """Put the tiles of face `target` on seat E's hand zone (tile-set enrolment)."""


class Prompt(msgspec.Struct, frozen=True):
    """A request to the technician, with the words they read."""

    action: Action
    target: str
    text: str
    answer: bool = True
    """The technician answers it (False: the table sees the action itself, e.g. a press)."""


class Technician(Protocol):
    """Someone at the table: on the simulated table the simulator's physical API."""

    def act(self, prompt: Prompt) -> None:
        """Carry out the prompt's action (a real technician does it by hand: nothing here)."""
        ...


class NobodyAtTheTable:
    """The technician on a real table acts by hand; the program only asks."""

    def act(self, prompt: Prompt) -> None:
        """Nothing to do: the person reads the prompt."""
