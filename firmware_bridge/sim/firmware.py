"""The C firmware's host build (hardware/firmware) in the simulated table: it speaks the protocol
to the daemon over its own pty, and its hardware layer drives this module's machine over a pipe.

The firmware decides everything the protocol says (sessions, replies, refusals, maximum
durations, fail-safes, events); this side is only the physics: tiles, motors that take time,
antennas that read tags. It reuses the table model the simulated players move tiles in, so a
whole session can be played with the C code in the loop. The pipe's line format is described
at the top of hardware/firmware/host/hal_host.c.
"""

import asyncio
import contextlib
import logging
import random
from collections import deque
from collections.abc import Callable, Sequence
from enum import IntEnum
from pathlib import Path
from typing import Any

from firmware_bridge.errors import MessageError
from firmware_bridge.fields import Command, Message, decode_payload, encode_payload
from firmware_bridge.messages import (
    Component,
    Motor,
    ResetCause,
    TileSetKind,
    Zone,
    antenna_number,
)
from firmware_bridge.sim.mcu import COMMANDS_KEPT, POLL_S
from firmware_bridge.sim.model import Slot, TableModel, TableStateError, WallLayout
from firmware_bridge.sim.motions import Timing
from firmware_bridge.sim.tiles import Tile

log = logging.getLogger(__name__)

FIRMWARE_DIR = Path(__file__).resolve().parents[2] / "hardware" / "firmware"
"""Where the firmware's sources are (a source checkout)."""


class Stroke(IntEnum):
    """The mechanisms' strokes, numbered as in hardware/firmware/src/hal.h."""

    SHUFFLE = 1
    STACK = 2
    RAISE = 3
    LOWER = 4
    DICE = 5
    SELF_TEST = 6


class Result(IntEnum):
    """How a stroke ended (hal_result_t)."""

    DONE = 0
    EMPTY = 1
    JAM = 2


class FirmwareMcu:
    """The host build of the C firmware, its machine in `model`; the same handles as the
    software MCU offers to the simulated table (reset, lid, e-stop, line noise, lost events)."""

    def __init__(
        self,
        model: TableModel,
        binary: Path,
        *,
        seed: int = 0,
        speed: float = 1.0,
        timing: Timing | None = None,
        heartbeat_timeout: float = 2.0,
        inventory_period: float | None = 2.0,
        link_path: Path | None = None,
    ) -> None:
        self.model = model
        self.binary = binary
        self.seed = seed
        self.speed = speed
        self.timing = timing or Timing()
        self.heartbeat_timeout = heartbeat_timeout
        self.inventory_period = inventory_period
        self.link_path = link_path
        self.commands: deque[Command[Any]] = deque(maxlen=COMMANDS_KEPT)
        """The latest sequenced commands the firmware ran, oldest first."""
        self._ran = asyncio.Event()
        self.device = ""
        """The pty the firmware serves (its link path if one was given)."""
        self.jam_at: int | None = model.faults.jam_at_tile
        self.motors = 0
        self._jammed = False
        self._plan: dict[Slot, Tile] = {}
        self._placed = 0
        self._wall_tag = 0
        self._dice_rng = random.Random(f"{seed}:dice")
        self._read_rng = random.Random(f"{seed}:reads")
        self._pending: dict[Stroke, asyncio.Handle] = {}
        self._process: asyncio.subprocess.Process | None = None
        self._reader: asyncio.Task[None] | None = None
        model.listeners.append(self._zone_changed)

    # ---- life --------------------------------------------------------------------------------

    async def start(self) -> None:
        """Power on: start the firmware process and wait for its pty."""
        args = [str(self.binary), "--seed", str(self.seed)]
        args += ["--heartbeat-timeout", str(round(self.heartbeat_timeout * 1000))]
        args += ["--inventory-period", str(round((self.inventory_period or 0) * 1000))]
        faults = self.model.faults
        args += ["--corrupt", str(faults.corrupt), "--drop", str(faults.drop)]
        if self.link_path is not None:
            args += ["--link", str(self.link_path)]
        self._process = await asyncio.create_subprocess_exec(
            *args, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
        )
        assert self._process.stdout is not None
        hello = (await self._process.stdout.readline()).decode().split()
        if hello[:1] != ["hello"]:
            raise RuntimeError(f"{self.binary} did not start (it said {hello!r})")
        self.device = hello[1]
        self._reader = asyncio.create_task(self._serve(), name="firmware-machine")

    async def stop(self) -> None:
        """Power off (the firmware ends when its machine goes away)."""
        for handle in self._pending.values():
            handle.cancel()
        self._pending.clear()
        process, self._process = self._process, None
        if process is None:
            return
        if process.stdin is not None:
            process.stdin.close()
        try:
            await asyncio.wait_for(process.wait(), 5)
        except TimeoutError:
            process.kill()
            await process.wait()
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader
        if self.link_path is not None:
            self.link_path.unlink(missing_ok=True)

    # ---- what a test or a technician does to the table ---------------------------------------

    def reset(self, cause: ResetCause = ResetCause.WATCHDOG) -> None:
        """The MCU restarts (motors stop; session and event counter start again)."""
        self._tell(f"reset {int(cause)}")

    def set_lid(self, open_: bool) -> None:
        """Open or close the lid."""
        self.model.lid_open = open_
        self._tell(f"lid {int(open_)}")

    def set_estop(self, pressed: bool) -> None:
        """Press or release the emergency stop."""
        self.model.estop = pressed
        self._tell(f"estop {int(pressed)}")

    def set_line_noise(self, corrupt: float = 0.0, drop: float = 0.0) -> None:
        """A bad cable: the chance of a damaged byte and of a lost frame, both ways."""
        self._tell(f"noise {corrupt} {drop}")

    def drop_next_events(self, count: int) -> None:
        """The next `count` events are lost on the line."""
        self._tell(f"dropevents {count}")

    def jam_next_build(self, after_tiles: int) -> None:
        """The next build jams after placing this many tiles."""
        self.jam_at = after_tiles

    async def told(self, done: Callable[[Sequence[Command[Any]]], bool]) -> None:
        """Wait until the commands the firmware told it ran make `done` true (it tells them on
        its machine pipe, which may come after their replies on the line)."""
        while not done(self.commands):
            self._ran.clear()
            await self._ran.wait()

    def send_event(self, message: Message) -> None:
        """Make the firmware send this event (to test what the host does with it)."""
        self._tell(f"event {message.TYPE} {encode_payload(message).hex() or '-'}")

    def _tell(self, line: str) -> None:
        self._write(f"! {line}")

    def _write(self, line: str) -> None:
        process = self._process
        if process is not None and process.stdin is not None and not process.stdin.is_closing():
            process.stdin.write(line.encode() + b"\n")

    # ---- the machine the firmware drives -----------------------------------------------------

    async def _serve(self) -> None:
        assert self._process is not None and self._process.stdout is not None
        stdout = self._process.stdout
        while line := await stdout.readline():
            words = line.decode().split()
            try:
                self._request(words)
            except (ValueError, IndexError, TableStateError, MessageError) as error:
                log.error("firmware machine: %r refused: %s", words, error)

    def _request(self, words: list[str]) -> None:
        match words:
            case ["motors", mask]:
                self.motors = int(mask)
            case ["stroke", stroke, tag, a, b, c]:
                self._stroke(Stroke(int(stroke)), int(tag), int(a), int(b), int(c))
            case ["stop", stroke]:
                handle = self._pending.pop(Stroke(int(stroke)), None)
                if handle is not None:
                    handle.cancel()
            case ["hopper"]:
                has = bool(self.model.hopper) or self.model.below_set is not None
                self._write(f"= {int(has)}")
            case ["walltag"]:
                self._write(f"= {self._wall_tag:x}")
            case ["zone", antenna]:
                self._write(self._read_zone(int(antenna)))
            case ["ran", kind, payload]:
                data = b"" if payload == "-" else bytes.fromhex(payload)
                command = decode_payload(int(kind), data)
                assert isinstance(command, Command)
                self.commands.append(command)
                self._ran.set()
            case _:
                log.error("firmware machine: unknown request %r", words)

    def _stroke(self, stroke: Stroke, tag: int, a: int, b: int, c: int) -> None:
        seconds = {
            Stroke.SHUFFLE: 0.0,
            Stroke.STACK: self.timing.per_tile,
            Stroke.RAISE: self.timing.raise_walls,
            Stroke.LOWER: self.timing.lower_platform,
            Stroke.DICE: self.timing.dice,
            Stroke.SELF_TEST: self.timing.self_test,
        }[stroke]
        loop = asyncio.get_running_loop()
        delay = seconds * self.speed if self.speed > 0 else 0.0
        self._pending[stroke] = loop.call_later(delay, self._finish, stroke, tag, a, b, c)

    def _finish(self, stroke: Stroke, tag: int, a: int, b: int, c: int) -> None:
        self._pending.pop(stroke, None)
        result, x, y = Result.DONE, 0, 0
        match stroke:
            case Stroke.SHUFFLE:
                plan = self.model.plan_build(TileSetKind(a), WallLayout(b, c))
                self._plan = dict(plan)
                self._placed = 0
                self._jammed = False
            case Stroke.STACK:
                result = self._stack((a, b, c))
            case Stroke.RAISE:
                self.model.raise_walls()
            case Stroke.LOWER:
                self.model.lower_platform()
            case Stroke.DICE:
                x, y = self._dice_rng.randint(1, 6), self._dice_rng.randint(1, 6)
            case Stroke.SELF_TEST:
                x, y = self._self_test(Component(a))
        self._tell(f"done {int(stroke)} {tag} {int(result)} {x} {y}")

    def _stack(self, slot: Slot) -> Result:
        if self.jam_at is not None and self._placed == self.jam_at:
            self.jam_at = None
            self._jammed = True
            return Result.JAM
        tile = self._plan.pop(slot, None)
        if tile is None:
            return Result.EMPTY
        self.model.place_below(slot, tile)
        self._placed += 1
        self._wall_tag = 0 if 0 in self.model.faults.dead_antennas else tile.uid
        return Result.DONE

    def _self_test(self, component: Component) -> tuple[int, int]:
        dead = self.model.faults.dead_antennas
        jammed = self.jam_at is not None or self._jammed
        failing = {
            Component.WALL_READER: [a for a in dead if a == 0],
            Component.ZONE_READERS: [a for a in dead if a > 0],
            Component.STACKER: [int(Motor.STACKER)] if jammed else [],
        }.get(component, [])
        return (0, failing[0]) if failing else (1, 0)

    def _read_zone(self, antenna: int) -> str:
        if antenna in self.model.faults.dead_antennas:
            return "= err"
        seat, zone = divmod(antenna - 1, len(Zone))
        tiles = self.model.zones[(seat, Zone(zone))]
        miss = self.model.faults.zone_miss.get(Zone(zone), 0.0)
        uids = [t.uid for t in tiles if not miss or self._read_rng.random() >= miss]
        if len(uids) < len(tiles):  # a missed tag is heard again at the next poll
            asyncio.get_running_loop().call_later(
                POLL_S * self.speed if self.speed > 0 else 0, self._tell, f"zone {antenna}"
            )
        return " ".join(["=", str(len(uids)), *(f"{uid:x}" for uid in uids)])

    def _zone_changed(self, seat: int, zone: Zone) -> None:
        self._tell(f"zone {antenna_number(seat, zone)}")
