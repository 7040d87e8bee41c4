"""The software MCU: the table firmware, speaking the real protocol over whatever line it is given.

It runs the link session, executes commands on the machine, reads the zone antennas, watches
the host heartbeat, and injects the line faults it was configured with.
"""

import asyncio
import contextlib
import random
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

from firmware_bridge.errors import ForeignFrame, FrameError
from firmware_bridge.fields import Command, Message
from firmware_bridge.frame import MAX_PAYLOAD, PROTOCOL_VERSION, FrameDecoder
from firmware_bridge.messages import (
    MAX_WINDOW,
    MAX_ZONE_UIDS,
    SEATS,
    SIDES,
    TABLE_HASH,
    WALL_PAGE_STACKS,
    ZONE_PAGE_UIDS,
    Accepted,
    ActiveFault,
    Boot,
    BuildState,
    BuildWalls,
    Fault,
    FaultCleared,
    FaultCode,
    Heartbeat,
    HeartbeatReply,
    Identify,
    IdentifyReply,
    LowerPlatform,
    Motion,
    Ping,
    Pong,
    QueryStatus,
    QueryWall,
    QueryZone,
    QueryZonePage,
    RaiseWalls,
    Rejected,
    RejectReason,
    Reset,
    ResetCause,
    RollDice,
    SelfTest,
    Status,
    StopAll,
    WallSide,
    WallSlot,
    Zone,
    ZoneInventory,
    ZonePage,
    antenna_number,
)
from firmware_bridge.sim.faults import Faults, LineNoise
from firmware_bridge.sim.model import TableModel, WallLayout, len_of
from firmware_bridge.sim.motions import Machine, Timing
from firmware_bridge.sim.session import McuSession
from firmware_bridge.sim.versions import protocol_1_answer, readable, written_as

FIRMWARE_VERSION = (2, 0, 0)
MODEL = 1
COMMANDS_KEPT = 1_000
"""The simulated MCU remembers this many of the latest commands it ran (some 50 hands' worth:
a long session's memory stays flat; a test reads far fewer)."""
MOTOR_FAULTS = (FaultCode.JAM, FaultCode.OVERCURRENT, FaultCode.MOTOR_TIMEOUT)
POLL_S = 0.1
"""The zone readers' polling interval: a tag one poll missed is heard again at the next
(the firmware reports a zone whenever what it hears changes, so a miss shows as a short
flicker: gone on one report, back on the next)."""


class SoftwareMcu:
    """The table MCU in software; feed it bytes with `data_received`, it writes to `attach`ed."""

    def __init__(
        self,
        model: TableModel,
        *,
        seed: int = 0,
        speed: float = 1.0,
        timing: Timing | None = None,
        heartbeat_timeout: float = 2.0,
        inventory_period: float | None = 2.0,
        table_hash: int = TABLE_HASH,
        protocol_version: int = PROTOCOL_VERSION,
    ) -> None:
        self.model = model
        self.faults: Faults = model.faults
        self.session = McuSession(self._emit)
        self.machine = Machine(
            model, self.send_event, self.raise_fault, seed=seed, speed=speed, timing=timing
        )
        self.noise = LineNoise(self.faults.corrupt, self.faults.drop, random.Random(f"{seed}:line"))
        self.commands: deque[Command[Any]] = deque(maxlen=COMMANDS_KEPT)
        """The latest sequenced commands run, oldest first (what the table actually did)."""
        self.boot_count = 0
        self.reset_cause = ResetCause.POWER_ON
        self.heartbeat_timeout = heartbeat_timeout
        self.inventory_period = inventory_period
        self.table_hash = table_hash
        self.protocol_version = protocol_version
        """The protocol its firmware speaks (another than the host's: see sim/versions.py)."""
        self.active_faults: dict[tuple[FaultCode, int], None] = {}
        self.heartbeats = 0
        """Heartbeats the host sent."""
        self.heartbeat_gaps = 0
        """Times the host went silent past the heartbeat timeout (every motor stopped)."""
        self.heartbeat_listeners: list[Callable[[int], None]] = []
        """Told the number of heartbeats so far at each one."""
        self.drop_events = 0
        """Lose this many of the next events (to test gap recovery)."""
        self._late_rng = random.Random(f"{seed}:late")
        self._read_rng = random.Random(f"{seed}:reads")
        self._decoder = FrameDecoder()
        self._writer: Callable[[bytes], None] | None = None
        self._reported: dict[tuple[int, Zone], tuple[int, ...]] = {}
        self._pages: dict[tuple[int, Zone], tuple[int, ...]] = {}
        """Each zone's list kept at its last first page (`query_zone_page`)."""
        self._polls: set[tuple[int, Zone]] = set()
        """Zones whose last read missed a tag: polled again after `POLL_S`."""
        self._boot_time = 0.0
        self._last_host_frame = 0.0
        self._tasks: list[asyncio.Task[None]] = []
        model.listeners.append(self._zone_changed)

    # ---- life --------------------------------------------------------------------------------

    async def start(self) -> None:
        """Power on: boot, then watch the heartbeat and report zones periodically."""
        self._boot(ResetCause.POWER_ON)
        self._tasks = [asyncio.create_task(self._watchdog(), name="mcu-watchdog")]
        if self.inventory_period:
            self._tasks.append(asyncio.create_task(self._periodic_inventory(), name="mcu-zones"))

    async def stop(self) -> None:
        """Power off."""
        self.machine.stop_all(report=False)
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task

    def reset(self, cause: ResetCause = ResetCause.WATCHDOG) -> None:
        """Reboot now: motors stop, the session and event counter restart."""
        self.machine.stop_all(report=False)
        self._boot(cause)

    def _boot(self, cause: ResetCause) -> None:
        self.session.restart()
        self.boot_count += 1
        self.reset_cause = cause
        self.active_faults.clear()
        self._reported.clear()
        self._boot_time = self._now()
        self._last_host_frame = self._now()
        self.send_event(Boot(cause, self.boot_count))

    def attach(self, writer: Callable[[bytes], None] | None) -> None:
        """Connect the MCU's transmit line to `writer` (None: nobody listens)."""
        self._writer = writer

    # ---- line --------------------------------------------------------------------------------

    def data_received(self, data: bytes) -> None:
        """Bytes from the host (damaged at the configured rate first)."""
        for item in self._decoder.feed(self.noise.damage(data)):
            if isinstance(item, ForeignFrame) and self.protocol_version == PROTOCOL_VERSION:
                self._write(protocol_1_answer(self.session.ack))
            elif isinstance(item, FrameError) or not readable(item, self.protocol_version):
                self.session.nak()
            elif not self.noise.lose_frame():
                self._host_frame_seen()
                self.session.receive(item, self._execute)

    def connection_lost(self, exc: Exception | None) -> None:
        """The host side closed; the MCU keeps running."""

    def _emit(self, data: bytes, reply: bool) -> None:
        if self.noise.lose_frame():
            return
        data = self.noise.damage(data)
        if reply and self.faults.late_reply and self._late_rng.random() < self.faults.late_reply:
            asyncio.get_running_loop().call_later(self.faults.late_reply_s, self._write, data)
        else:
            self._write(data)

    def _write(self, data: bytes) -> None:
        if self._writer is not None:
            self._writer(written_as(data, self.protocol_version))

    async def told(self, done: Callable[[Sequence[Command[Any]]], bool]) -> None:
        """As the C firmware's: here each command is kept as it runs, before its reply."""
        if not done(self.commands):
            raise AssertionError("a command answered was not kept as it ran")

    def send_event(self, message: Message) -> None:
        """Send an event to the host (numbered even if it is lost)."""
        if self.drop_events > 0:
            self.drop_events -= 1
            self.session.event_counter += 1
            return
        self.session.send_event(message)

    def drop_next_events(self, count: int) -> None:
        """The next `count` events are lost on the line."""
        self.drop_events = count

    def set_line_noise(self, corrupt: float = 0.0, drop: float = 0.0) -> None:
        """Change the chance of a damaged byte and of a lost frame."""
        self.noise.corrupt, self.noise.drop = corrupt, drop

    def jam_next_build(self, after_tiles: int) -> None:
        """The next build jams after placing this many tiles."""
        self.machine.jam_at = after_tiles

    # ---- faults ------------------------------------------------------------------------------

    def raise_fault(self, code: FaultCode, detail: int) -> None:
        """A fault begins: report it (once) and keep it in the status."""
        if (code, detail) not in self.active_faults:
            self.active_faults[(code, detail)] = None
            self.send_event(Fault(code, detail))

    def clear_fault(self, code: FaultCode, detail: int = 0) -> None:
        """A fault ends."""
        if (code, detail) in self.active_faults:
            del self.active_faults[(code, detail)]
            self.send_event(FaultCleared(code, detail))

    def set_lid(self, open_: bool) -> None:
        """The lid interlock opens (motors stop) or closes."""
        self.model.lid_open = open_
        self._interlock(FaultCode.LID_OPEN, open_)

    def set_estop(self, pressed: bool) -> None:
        """The emergency stop is pressed (motors stop) or released."""
        self.model.estop = pressed
        self._interlock(FaultCode.ESTOP, pressed)

    def _interlock(self, code: FaultCode, active: bool) -> None:
        if active:
            self.machine.stop_all()
            self.raise_fault(code, 0)
        else:
            self.clear_fault(code)

    def _host_frame_seen(self) -> None:
        self._last_host_frame = self._now()
        if (FaultCode.HEARTBEAT_LOST, 0) in self.active_faults:
            self.clear_fault(FaultCode.HEARTBEAT_LOST)

    async def _watchdog(self) -> None:
        while True:
            await asyncio.sleep(min(0.1, self.heartbeat_timeout / 4))
            silent = self._now() - self._last_host_frame
            lost = (FaultCode.HEARTBEAT_LOST, 0) in self.active_faults
            if self.session.synced and silent > self.heartbeat_timeout and not lost:
                self.heartbeat_gaps += 1
                self.machine.stop_all()
                self.raise_fault(FaultCode.HEARTBEAT_LOST, 0)

    # ---- zones -------------------------------------------------------------------------------

    def read_zone(self, seat: int, zone: Zone) -> tuple[int, ...]:
        """One read of a zone antenna: the UIDs it hears (misses at the configured rate)."""
        antenna = antenna_number(seat, zone)
        if antenna in self.faults.dead_antennas:
            self.raise_fault(FaultCode.READER_ERROR, antenna)
            return ()
        miss = self.faults.zone_miss.get(zone, 0.0)
        tiles = self.model.zones[(seat, zone)]
        if miss:
            uids = {t.uid for t in tiles if self._read_rng.random() >= miss}
        else:
            uids = {t.uid for t in tiles}
        if len(uids) < len(tiles):
            self._poll_again(seat, zone)
        return tuple(sorted(uids))[:MAX_ZONE_UIDS]

    def _poll_again(self, seat: int, zone: Zone) -> None:
        """The next poll of a zone that missed a tag (reported if it hears something else)."""
        key = (seat, zone)
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop: nobody polls (a read outside a running table)
        if key in self._polls:
            return
        self._polls.add(key)
        speed = self.machine.speed
        loop.call_later(POLL_S * speed if speed > 0 else 0, self._polled, seat, zone)

    def _polled(self, seat: int, zone: Zone) -> None:
        self._polls.discard((seat, zone))
        self._zone_changed(seat, zone)

    def _zone_changed(self, seat: int, zone: Zone) -> None:
        uids = self.read_zone(seat, zone)
        if self._reported.get((seat, zone), ()) != uids:
            self._reported[(seat, zone)] = uids
            self.send_event(ZoneInventory(seat, zone, uids))

    async def _periodic_inventory(self) -> None:
        assert self.inventory_period
        while True:
            await asyncio.sleep(self.inventory_period)
            for seat in range(SEATS):
                for zone in Zone:
                    uids = self.read_zone(seat, zone)
                    self._reported[(seat, zone)] = uids
                    self.send_event(ZoneInventory(seat, zone, uids))

    # ---- commands ----------------------------------------------------------------------------

    def _execute(self, command: Command[Message]) -> Message:
        if not isinstance(command, Heartbeat | Identify):
            self.commands.append(command)
        handler = _HANDLERS.get(type(command))
        if handler is None:
            return Rejected(RejectReason.UNKNOWN_COMMAND, command.TYPE)
        return handler(self, command)

    def identify(self, _: Any = None) -> IdentifyReply:
        """Who this MCU is."""
        major, minor, patch = FIRMWARE_VERSION
        return IdentifyReply(
            major, minor, patch, self.protocol_version, self.table_hash, MODEL, SEATS, len(Zone),
            MAX_PAYLOAD, MAX_WINDOW, self.reset_cause, self.boot_count, self.session.event_counter,
        )  # fmt: skip

    def status(self, _: Any = None) -> Status:
        """Motors, lifts, lid, e-stop, walls, dice and active faults now."""
        machine, model = self.machine, self.model
        lifts_moving = 0b1111 if Motion.RAISE in machine.running else 0
        return Status(
            self.session.event_counter, self._uptime_ms(), machine.motors,
            0b1111 if model.lifts_up else 0, lifts_moving, Motion.LOWER in machine.running,
            model.lid_open, model.estop, machine.build_state, len(machine.wall_record),
            machine.dice_rolls, *machine.last_dice,
            tuple(ActiveFault(code, detail) for code, detail in self.active_faults),
        )  # fmt: skip

    def _heartbeat(self, _: Heartbeat) -> HeartbeatReply:
        self.heartbeats += 1
        for listener in self.heartbeat_listeners:
            listener(self.heartbeats)
        return HeartbeatReply(self.session.event_counter, self._uptime_ms())

    def _ping(self, command: Ping) -> Pong:
        return Pong(command.token)

    def _query_zone(self, command: QueryZone) -> Message:
        if command.seat >= SEATS:
            return Rejected(RejectReason.BAD_ARGUMENT, command.seat)
        uids = self.read_zone(command.seat, command.zone)
        self._reported[(command.seat, command.zone)] = uids
        return ZoneInventory(command.seat, command.zone, uids)

    def _query_zone_page(self, command: QueryZonePage) -> Message:
        if command.seat >= SEATS:
            return Rejected(RejectReason.BAD_ARGUMENT, command.seat)
        if not 1 <= command.count <= ZONE_PAGE_UIDS:
            return Rejected(RejectReason.BAD_ARGUMENT, command.count)
        key = (command.seat, command.zone)
        if command.first == 0 or key not in self._pages:
            uids = self.read_zone(command.seat, command.zone)
            self._reported[key] = self._pages[key] = uids
        uids = self._pages[key]
        page = uids[command.first : command.first + command.count]
        return ZonePage(command.seat, command.zone, len(uids), command.first, page)

    def _query_wall(self, command: QueryWall) -> Message:
        layout = self.machine.wall_layout
        if command.side >= SIDES:
            return Rejected(RejectReason.BAD_ARGUMENT, command.side)
        if not 1 <= command.stacks <= WALL_PAGE_STACKS:
            return Rejected(RejectReason.BAD_ARGUMENT, command.stacks)
        stacks = range(command.first_stack, command.first_stack + command.stacks)
        record = sorted(self.machine.wall_record.items())
        slots = tuple(
            WallSlot(s, layer, uid)
            for (side, s, layer), uid in record
            if side == command.side and s in stacks
        )
        per_side, layers = (layout.tiles_per_side, layout.layers) if layout else (0, 0)
        return WallSide(command.side, per_side, layers, slots)

    def _refusal(self, max_duration_ms: int, *motions: Motion) -> Rejected | None:
        if self.model.estop:
            return Rejected(RejectReason.ESTOP, 0)
        if self.model.lid_open:
            return Rejected(RejectReason.LID_OPEN, 0)
        if max_duration_ms == 0:
            return Rejected(RejectReason.BAD_ARGUMENT, 0)
        busy = [m for m in motions if m in self.machine.running]
        return Rejected(RejectReason.BUSY, busy[0]) if busy else None

    def _begin(self, motion: Motion, budget_ms: int, routine: Any) -> Accepted:
        for code, detail in list(self.active_faults):
            if code in MOTOR_FAULTS:
                self.clear_fault(code, detail)
        self.machine.start(motion, budget_ms, routine)
        return Accepted()

    def _build(self, command: BuildWalls) -> Message:
        refusal = self._refusal(command.max_duration_ms, Motion.BUILD, Motion.RAISE)
        if refusal:
            return refusal
        layout = WallLayout(command.tiles_per_side, command.layers)
        if (
            command.tiles_per_side * SIDES != len_of(command.tile_set)
            or not 1 <= layout.layers <= 3
        ):
            return Rejected(RejectReason.BAD_ARGUMENT, command.tiles_per_side)
        if not self.model.hopper and self.model.below_set is None:
            return Rejected(RejectReason.NO_TILES, 0)
        return self._begin(
            Motion.BUILD,
            command.max_duration_ms,
            lambda budget: self.machine.build(budget, command.tile_set, layout),
        )

    def _raise(self, command: RaiseWalls) -> Message:
        refusal = self._refusal(command.max_duration_ms, Motion.BUILD, Motion.RAISE, Motion.LOWER)
        if refusal:
            return refusal
        if self.machine.build_state is not BuildState.BUILT:
            return Rejected(RejectReason.NOT_READY, 0)
        if self.model.surface_set is not None:
            return Rejected(RejectReason.NOT_READY, 1)
        return self._begin(Motion.RAISE, command.max_duration_ms, self.machine.raise_walls)

    def _lower(self, command: LowerPlatform) -> Message:
        refusal = self._refusal(command.max_duration_ms, Motion.RAISE, Motion.LOWER)
        return refusal or self._begin(
            Motion.LOWER, command.max_duration_ms, self.machine.lower_platform
        )

    def _roll(self, command: RollDice) -> Message:
        refusal = self._refusal(command.max_duration_ms, Motion.DICE)
        return refusal or self._begin(Motion.DICE, command.max_duration_ms, self.machine.roll_dice)

    def _self_test(self, command: SelfTest) -> Message:
        refusal = self._refusal(command.max_duration_ms, Motion.SELF_TEST)
        return refusal or self._begin(
            Motion.SELF_TEST,
            command.max_duration_ms,
            lambda budget: self.machine.self_test(budget, command.component),
        )

    def _stop_all(self, _: StopAll) -> Accepted:
        self.machine.stop_all()
        return Accepted()

    def _reset(self, _: Reset) -> Accepted:
        asyncio.get_running_loop().call_soon(self.reset, ResetCause.SOFTWARE)
        return Accepted()

    def _uptime_ms(self) -> int:
        return int((self._now() - self._boot_time) * 1000) & 0xFFFFFFFF

    def _now(self) -> float:
        return asyncio.get_running_loop().time()


_HANDLERS: dict[type, Callable[[SoftwareMcu, Any], Message]] = {
    Identify: SoftwareMcu.identify,
    Ping: SoftwareMcu._ping,
    Heartbeat: SoftwareMcu._heartbeat,
    QueryStatus: SoftwareMcu.status,
    QueryZone: SoftwareMcu._query_zone,
    QueryWall: SoftwareMcu._query_wall,
    QueryZonePage: SoftwareMcu._query_zone_page,
    BuildWalls: SoftwareMcu._build,
    RaiseWalls: SoftwareMcu._raise,
    LowerPlatform: SoftwareMcu._lower,
    RollDice: SoftwareMcu._roll,
    SelfTest: SoftwareMcu._self_test,
    StopAll: SoftwareMcu._stop_all,
    Reset: SoftwareMcu._reset,
}
