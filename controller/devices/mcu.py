"""The Mcu port on the firmware bridge: table movements as link commands, MCU events and link
notices as the hand cycle's events, and link failures as plain-words McuCommandFailed."""

import asyncio
import contextlib
import logging
from collections.abc import Callable

from controller.table.ports import (
    SEATS,
    CommandFailure,
    DiceRolled,
    McuCommand,
    McuCommandFailed,
    McuEvent,
    McuEventsLost,
    McuFault,
    McuFaultCleared,
    McuFaultKind,
    McuOffline,
    McuOnline,
    McuResynced,
    McuStatusRead,
    Motion,
    MotionEnded,
    Outcome,
    WallSideBuilt,
    WallSideRead,
    WallTilePlaced,
    Zone,
    ZoneRead,
    ZonesReadAgain,
)
from firmware_bridge.errors import (
    CommandRejected,
    CommandTimeout,
    LinkDown,
    LinkError,
    McuReset,
    ProtocolMismatch,
)
from firmware_bridge.events import Connected, Disconnected, EventGap, Item, Resynced, ZonesRead
from firmware_bridge.fields import Command
from firmware_bridge.link import Link
from firmware_bridge.messages import (
    Accepted,
    BuildState,
    BuildWalls,
    Dice,
    Fault,
    FaultCleared,
    FaultCode,
    LowerPlatform,
    MotionDone,
    Motor,
    QueryStatus,
    RaiseWalls,
    RejectReason,
    RollDice,
    Status,
    StopAll,
    TileSetKind,
    WallBuilt,
    WallSide,
    WallTile,
    ZoneInventory,
)
from firmware_bridge.messages import Motion as WireMotion
from firmware_bridge.messages import Outcome as WireOutcome
from firmware_bridge.messages import Zone as WireZone

log = logging.getLogger(__name__)
STOP_WAIT_S = 0.5

TILE_SETS = {
    144: TileSetKind.WITH_FLOWERS_144,
    136: TileSetKind.NO_FLOWERS_136,
    108: TileSetKind.SUITS_ONLY_108,
}
MOTIONS = {
    WireMotion.BUILD: Motion.BUILD,
    WireMotion.RAISE: Motion.RAISE,
    WireMotion.LOWER: Motion.LOWER,
    WireMotion.DICE: Motion.DICE,
}
OUTCOMES = {wire: Outcome[wire.name] for wire in WireOutcome}
FAULTS = {wire: McuFaultKind[wire.name] for wire in FaultCode}
ZONES = {wire: Zone[wire.name] for wire in WireZone}
MOTOR_WORDS = {
    Motor.SHUFFLER: "shuffler",
    Motor.STACKER: "stacking head",
    Motor.LIFT_EAST: "east wall lift",
    Motor.LIFT_SOUTH: "south wall lift",
    Motor.LIFT_WEST: "west wall lift",
    Motor.LIFT_NORTH: "north wall lift",
    Motor.DICE: "dice spinner",
    Motor.PLATFORM: "platform",
}
REFUSALS = {
    CommandFailure.ESTOP: "the emergency stop is pressed",
    CommandFailure.LID_OPEN: "the lid is open",
    CommandFailure.BUSY: "another movement is still running",
    CommandFailure.NO_TILES: "the hopper is empty",
    CommandFailure.FAULT_ACTIVE: "a fault is still active",
    CommandFailure.NO_WALLS_BELOW: "no complete walls are waiting under the table",
    CommandFailure.SURFACE_HOLDS_TILES: "the playing surface still holds tiles",
    CommandFailure.WALLS_DO_NOT_FIT: "it cannot build walls of that layout from its tile set",
    CommandFailure.BAD_ARGUMENT: "the firmware does not take the command as it was sent",
    CommandFailure.UNKNOWN_COMMAND: "the firmware does not know this command",
}
"""Each refusal of the MCU in words (the advice follows from the same failure)."""
SURFACE_HOLDS_TILES = 1
"""The detail of `raise_walls` refused NOT_READY when the surface still holds tiles (0: no
complete walls below), as the protocol (hardware/protocol.md, section 4) defines it."""


def refused_as(command: Command[Accepted], error: CommandRejected) -> CommandFailure:
    """The table's failure for the MCU's refusal of `command`: the reject code, told apart by
    its detail where one code covers causes a technician fixes differently."""
    reason = RejectReason(error.reason)  # decoded: a known code
    if reason is RejectReason.NOT_READY:
        if error.detail == SURFACE_HOLDS_TILES:
            return CommandFailure.SURFACE_HOLDS_TILES
        return CommandFailure.NO_WALLS_BELOW
    if (
        reason is RejectReason.BAD_ARGUMENT
        and isinstance(command, BuildWalls)
        and error.detail == command.tiles_per_side != 0
    ):
        return CommandFailure.WALLS_DO_NOT_FIT  # the layout refused (detail: tiles_per_side)
    return CommandFailure[reason.name]


def part_words(code: FaultCode, detail: int) -> str:
    """The motor or antenna a fault detail names, in words."""
    if code is FaultCode.READER_ERROR:
        return antenna_words(detail)
    if code in (FaultCode.JAM, FaultCode.OVERCURRENT, FaultCode.MOTOR_TIMEOUT):
        with contextlib.suppress(ValueError):
            return MOTOR_WORDS[Motor(detail)]
        return f"motor {detail}"
    return ""


def antenna_words(antenna: int) -> str:
    """A reader antenna number in words: 'wall reader', 'HAND antenna of seat S'."""
    if antenna == 0:
        return "wall reader"
    seat, zone = divmod(antenna - 1, 3)
    if seat >= len(SEATS):
        return f"antenna {antenna}"
    return f"{WireZone(zone).name} antenna of seat {SEATS[seat]}"


class LinkMcu:
    """The table MCU reached through the firmware bridge's Link."""

    def __init__(self, link: Link) -> None:
        self.link = link
        self._handlers: list[Callable[[McuEvent], None]] = []
        self._pump: asyncio.Task[None] | None = None
        self._status_task: asyncio.Task[None] | None = None

    def subscribe(self, handler: Callable[[McuEvent], None]) -> None:
        """Call `handler` for every event of the MCU and its link."""
        self._handlers.append(handler)

    async def run(self) -> None:
        """Connect (in the background, reconnecting) and pass events on until cancelled."""
        stop_listening = self.link.listen(self._on_item)
        try:
            await self.link.start(wait=False)
            await asyncio.Event().wait()
        finally:
            stop_listening()
            if self._status_task is not None:
                self._status_task.cancel()
            await self._stop_motors()
            await self.link.close()

    def _on_item(self, item: Item) -> None:
        """Each MCU event and link notice as it comes off the line (no queue in between: the
        handlers only take note)."""
        if isinstance(item, Connected) and not item.reconnected:
            self._status_task = asyncio.create_task(self._read_status())
        event = translate(item)
        if event is not None:
            self._publish(event)

    async def _read_status(self) -> None:
        """At the first handshake, the status (the hand cycle counts dice rolls from it)."""
        with contextlib.suppress(LinkError):
            self._publish(_status(await self.link.request(QueryStatus())))

    async def _stop_motors(self) -> None:
        """On the way out, stop the motors now rather than when the heartbeat is missed."""
        if self.link.connected:
            with contextlib.suppress(LinkError, TimeoutError):
                async with asyncio.timeout(STOP_WAIT_S):
                    await self.link.request(StopAll())

    def _publish(self, event: McuEvent) -> None:
        for handler in self._handlers:
            handler(event)

    async def build_walls(self, tiles: int, tiles_per_side: int, layers: int, max_s: float) -> None:
        """Build four walls under the table from the next set in the hopper."""
        kind = TILE_SETS.get(tiles)
        if kind is None:
            raise McuCommandFailed(
                McuCommand.BUILD, CommandFailure.NO_SUCH_SET, f"this table has no {tiles}-tile set"
            )
        await self._run(McuCommand.BUILD, BuildWalls(kind, tiles_per_side, layers, _ms(max_s)))

    async def raise_walls(self, max_s: float) -> None:
        """Lift the built walls."""
        await self._run(McuCommand.RAISE, RaiseWalls(_ms(max_s)))

    async def lower_platform(self, max_s: float) -> None:
        """Drop the surface's tiles into the hopper."""
        await self._run(McuCommand.LOWER, LowerPlatform(_ms(max_s)))

    async def roll_dice(self, max_s: float) -> None:
        """Spin the dice."""
        await self._run(McuCommand.ROLL, RollDice(_ms(max_s)))

    async def stop_all(self) -> None:
        """Stop every motor now."""
        await self._run(McuCommand.STOP_ALL, StopAll())

    async def read_zones(self, asked_at: float) -> None:
        """Read every zone antenna once more; the reads come as `ZoneRead` events in their
        place among the MCU's events, then `ZonesReadAgain(asked_at)`. A read that fails
        answers nothing (the next ask reads again): never raises."""
        try:
            await self.link.read_zones(asked_at)
        except LinkError as error:
            log.info("re-reading the zones stopped: %s", error)

    async def _run(self, what: McuCommand, command: Command[Accepted]) -> None:
        try:
            await self.link.request(command)
        except CommandRejected as error:
            failure = refused_as(command, error)
            words = f"the table refused: {REFUSALS[failure]}"
            raise McuCommandFailed(what, failure, words) from error
        except (CommandTimeout, McuReset) as error:
            words = f"the table MCU did not answer ({error})"
            raise McuCommandFailed(what, CommandFailure.NO_ANSWER, words) from error
        except (LinkDown, ProtocolMismatch, LinkError) as error:
            raise McuCommandFailed(what, CommandFailure.LINK_DOWN, str(error)) from error


def _ms(seconds: float) -> int:
    return max(1, round(seconds * 1000))


def translate(item: Item) -> McuEvent | None:
    """The hand cycle's event for one link item (None: nothing the cycle needs)."""
    match item:  # the commonest first: a hand brings hundreds of zone reads and wall tiles
        case ZoneInventory(seat, zone, uids):
            return ZoneRead(seat, ZONES[zone], frozenset(uids))
        case WallTile(side, stack, layer, uid):
            return WallTilePlaced(side, stack, layer, uid)
        case WallBuilt(side, count):
            return WallSideBuilt(side, count)
        case WallSide(side, _, _, slots):
            return WallSideRead(side, tuple((s.stack, s.layer, s.uid) for s in slots))
        case MotionDone(motion, outcome) if motion in MOTIONS:
            return MotionEnded(MOTIONS[motion], OUTCOMES[outcome])
        case Dice(d1, d2):
            return DiceRolled(d1, d2)
        case Fault(code, detail):
            return _fault(code, detail)
        case FaultCleared(code, _):
            return McuFaultCleared(FAULTS[code])
        case Status():
            return _status(item)
        case Connected(identify, reconnected, mcu_reset):
            cause = identify.reset_cause.name.lower().replace("_", " ")
            return McuOnline(mcu_reset, reconnected, cause)
        case Disconnected(reason, final):
            return McuOffline(reason, final)
        case EventGap(missed, number):
            return McuEventsLost(missed, number)
        case Resynced(_, covers):
            return McuResynced(covers)
        case ZonesRead(token):
            return ZonesReadAgain(token)
    return None


def _status(status: Status) -> McuStatusRead:
    return McuStatusRead(
        walls_built=status.build_state is BuildState.BUILT,
        estop=status.estop,
        lid_open=status.lid_open,
        lifts_up=bool(status.lifts_up),
        dice_rolls=status.dice_rolls,
        dice=(status.last_d1, status.last_d2),
        dice_spinning=bool(status.motors_running & (1 << Motor.DICE)),
        platform_moving=bool(status.motors_running & (1 << Motor.PLATFORM)),
        faults=tuple(_fault(active.code, active.detail) for active in status.faults),
    )


def _fault(code: FaultCode, detail: int) -> McuFault:
    antenna = detail if code is FaultCode.READER_ERROR else None
    return McuFault(FAULTS[code], part_words(code, detail), antenna)
