"""Diagnostics' ports on real parts: the MCU through the firmware bridge's Link, the panel on
gpiozero pins (the Pi's, or MockFactory's on the simulated table)."""

import asyncio
import contextlib
import functools
from collections.abc import Callable, Mapping
from enum import IntEnum
from pathlib import Path

import msgspec

from controller.devices.mcu import TILE_SETS, antenna_words, part_words
from controller.devices.panel import TEST_BLINK_S, GpioPanel
from controller.diag.events import Words
from controller.diag.ports import Part, PartResult
from controller.diag.status_report import McuFacts
from controller.errors import RuntimeFailure
from controller.table.ports import SEATS, DeclarePressed, DicePressed, EmergencyStop, PanelEvent
from firmware_bridge.errors import CommandRejected, LinkError
from firmware_bridge.events import Item
from firmware_bridge.link import Link
from firmware_bridge.messages import (
    MODEL_NAMES,
    TABLE_HASH,
    BuildWalls,
    Component,
    FaultCode,
    LowerPlatform,
    Motion,
    MotionDone,
    Outcome,
    QueryStatus,
    QueryZone,
    RaiseWalls,
    RollDice,
    SelfTest,
    SelfTestResult,
    WallTile,
    Zone,
    ZoneInventory,
)
from firmware_bridge.messages import Dice as DiceEvent
from firmware_bridge.tileset import TileSetFile, TileSetFileError, read_tileset, write_tileset

COMPONENTS = {part: Component[part.name] for part in Part}
MOTION_MS = 120_000
WAIT_S = 150.0


class LinkBench:
    """The BenchMcu port on a running Link (the daemon's own, or one opened for a check)."""

    def __init__(self, link: Link, tag_reads: bool = True) -> None:
        self.link = link
        self.tag_reads = tag_reads
        """Tag reads (zone and wall reads: raw UIDs) go into the feed; the daemon, whose
        referee and wall check put them into words, leaves them out."""

    async def facts(self) -> McuFacts:
        """The link figures and the MCU's status."""
        stats = self.link.stats()
        figures = McuFacts(
            connected=False,
            rtt_ms_p50=stats.rtt_ms_p50,
            rtt_ms_p99=stats.rtt_ms_p99,
            crc_errors=stats.crc_errors,
            retransmits=stats.retransmits,
            reconnects=stats.reconnects,
        )
        ident = self.link.identify
        if not self.link.connected or ident is None:
            return msgspec.structs.replace(figures, problem="no link: check the USB cable")
        try:
            status = await self.link.request(QueryStatus())
        except LinkError as error:
            return msgspec.structs.replace(figures, problem=str(error))
        return msgspec.structs.replace(
            figures,
            connected=True,
            firmware=f"{ident.firmware_major}.{ident.firmware_minor}.{ident.firmware_patch}",
            protocol=ident.protocol_version,
            message_table_matches=ident.table_hash == TABLE_HASH,
            model=MODEL_NAMES.get(ident.model, f"model {ident.model}"),
            boot_count=ident.boot_count,
            reset_cause=ident.reset_cause.name.lower().replace("_", " "),
            uptime_s=status.uptime_ms / 1000,
            lid_open=status.lid_open,
            estop=status.estop,
            faults=[_fault_words(f.code, f.detail) for f in status.faults],
        )

    async def self_test(self, part: Part) -> PartResult:
        """SelfTest(component) and its result event."""
        events = self.link.subscribe(SelfTestResult, MotionDone)
        try:
            await self._request(SelfTest(COMPONENTS[part], MOTION_MS))
            async with asyncio.timeout(WAIT_S):
                async for item in events:
                    if isinstance(item, SelfTestResult) and item.component is COMPONENTS[part]:
                        return PartResult(item.passed, _detail_words(part, item.detail))
                    if _failed(item, Motion.SELF_TEST):
                        assert isinstance(item, MotionDone)
                        return PartResult(False, f"the test {item.outcome.name.lower()}")
        finally:
            events.close()
        return PartResult(False, "no result")

    async def roll_dice(self) -> tuple[int, int]:
        """RollDice and the dice event."""
        events = self.link.subscribe(DiceEvent, MotionDone)
        try:
            await self._request(RollDice(MOTION_MS))
            async with asyncio.timeout(WAIT_S):
                async for item in events:
                    if isinstance(item, DiceEvent):
                        return item.d1, item.d2
                    if isinstance(item, MotionDone) and item.outcome is not Outcome.DONE:
                        raise RuntimeFailure(f"the dice {item.outcome.name.lower()}")
        finally:
            events.close()
        raise RuntimeFailure("the dice never reported")

    async def read_zone(self, seat: int, zone: int) -> list[int]:
        """QueryZone."""
        try:
            reply = await self.link.request(QueryZone(seat, Zone(zone)))
        except LinkError as error:
            raise RuntimeFailure(f"the table MCU link failed: {error}") from None
        return list(reply.uids)

    async def build_wall(self, tiles: int) -> list[int]:
        """BuildWalls for `tiles` (2 layers) and every tag placed."""
        events = self.link.subscribe(WallTile, MotionDone)
        uids: list[int] = []
        try:
            await self._request(BuildWalls(TILE_SETS[tiles], tiles // 4, 2, MOTION_MS))
            async with asyncio.timeout(WAIT_S):
                async for item in events:
                    if isinstance(item, WallTile):
                        uids.append(item.uid)
                    elif isinstance(item, MotionDone) and item.motion is Motion.BUILD:
                        if item.outcome is not Outcome.DONE:
                            raise RuntimeFailure(
                                f"the build {item.outcome.name.lower()}: see diag status"
                            )
                        return uids
        finally:
            events.close()
        return uids

    async def raise_walls(self) -> None:
        """RaiseWalls, to its end."""
        await self._motion(RaiseWalls(MOTION_MS), Motion.RAISE)

    async def lower_platform(self) -> None:
        """LowerPlatform, to its end."""
        await self._motion(LowerPlatform(MOTION_MS), Motion.LOWER)

    def watch(self, callback: Callable[[Words], None]) -> Callable[[], None]:
        """Pass each link item on in words (made when asked for), until the returned function
        is called."""
        zones: dict[tuple[int, int], tuple[int, ...]] = {}

        def seen(item: Item) -> None:
            if not self.tag_reads and isinstance(item, ZoneInventory | WallTile):
                return
            if isinstance(item, ZoneInventory):  # periodic reports: only the changes
                key = (item.seat, int(item.zone))
                if zones.get(key) == item.uids:
                    return
                zones[key] = item.uids
            callback(functools.partial(_item_words, item))

        return self.link.listen(seen)

    async def _motion(self, command: RaiseWalls | LowerPlatform, motion: Motion) -> None:
        events = self.link.subscribe(MotionDone)
        try:
            await self._request(command)
            async with asyncio.timeout(WAIT_S):
                async for item in events:
                    if isinstance(item, MotionDone) and item.motion is motion:
                        if item.outcome is not Outcome.DONE:
                            raise RuntimeFailure(f"{motion.name.lower()} {item.outcome.name}")
                        return
        finally:
            events.close()

    async def _request(self, command: object) -> object:
        try:
            return await self.link.request(command)  # type: ignore[arg-type]
        except CommandRejected as error:
            raise RuntimeFailure(f"the table MCU refused: {error}") from None
        except LinkError as error:
            raise RuntimeFailure(f"the table MCU link failed: {error}") from None


def _failed(item: Item, motion: Motion) -> bool:
    return (
        isinstance(item, MotionDone) and item.motion is motion and item.outcome is not Outcome.DONE
    )


def _fault_words(code: FaultCode, detail: int) -> str:
    part = part_words(code, detail)
    return f"{code.name.lower().replace('_', ' ')}" + (f" ({part})" if part else "")


def _detail_words(part: Part, detail: int) -> str:
    if part in (Part.WALL_READER, Part.ZONE_READERS):
        return antenna_words(detail)
    return part_words(FaultCode.JAM, detail) if detail else ""


def _item_words(item: Item) -> str:
    name = type(item).__name__
    fields = getattr(item, "__dataclass_fields__", None) or getattr(item, "__struct_fields__", None)
    fields = fields or ()
    values = ", ".join(f"{key}={_value_words(getattr(item, key))}" for key in fields)
    return f"mcu {name}({values})"


def _value_words(value: object) -> str:
    if isinstance(value, IntEnum):
        return value.name.lower()
    if isinstance(value, int) and value > 0xFFFFFFFF:
        return f"{value:016X}"
    if isinstance(value, tuple):
        return "[" + " ".join(_value_words(v) for v in value) + "]"
    return repr(value)


def _pressed(event: PanelEvent, callback: Callable[[str], None]) -> None:
    match event:
        case DicePressed():
            callback("dice_button")
        case DeclarePressed(seat):
            callback(f"declare_{SEATS[seat].lower()}")
        case EmergencyStop(engaged=True):
            callback("estop")


class PinBench:
    """The BenchPanel port on the daemon's GpioPanel."""

    def __init__(self, panel: GpioPanel) -> None:
        self.panel = panel

    def on_press(self, callback: Callable[[str], None]) -> Callable[[], None]:
        """Pass each press (dice, declare, e-stop pushed) on by input name; meanwhile the
        table does not act on button presses."""
        self.panel.hold_buttons(True)
        unsubscribe = self.panel.subscribe_diag(lambda event: _pressed(event, callback))

        def stop() -> None:
            unsubscribe()
            self.panel.hold_buttons(False)

        return stop

    def inputs(self) -> dict[str, bool]:
        """Each button (True while pressed) and the e-stop (True while its circuit is open)."""
        seats = dict(zip(("e", "s", "w", "n"), self.panel.declare, strict=True))
        readings = {"dice_button": bool(self.panel.dice.is_pressed)}
        readings |= {f"declare_{seat}": bool(b.is_pressed) for seat, b in seats.items()}
        readings["estop"] = self.panel.emergency_stop_engaged
        return readings

    def blink(self, led: str, times: int) -> None:
        """Blink a seat LED or one colour of the status LED."""
        if led.startswith("led_") and led[-1] in "eswn":
            self.panel.test_seat_light("eswn".index(led[-1]), times)
            return
        colour = {"status_red": (1, 0, 0), "status_green": (0, 1, 0), "status_blue": (0, 0, 1)}
        with contextlib.suppress(KeyError):
            self.panel.status_led.blink(
                on_time=TEST_BLINK_S,
                off_time=TEST_BLINK_S,
                on_color=colour[led],
                n=times,
                background=True,
            )


class TileSetFiles:
    """The TileSetStore port on the firmware bridge's tile-set file format."""

    def read(self, path: Path) -> tuple[str, Mapping[str, Mapping[int, str]]]:
        """Read and check a tile-set file."""
        try:
            tileset = read_tileset(path)
        except TileSetFileError as error:
            raise RuntimeFailure(f"the tile-set file cannot be used: {error}") from None
        return tileset.name, tileset.sets

    def write(self, path: Path, name: str, sets: Mapping[str, Mapping[int, str]]) -> Path:
        """Write a new tile-set file (its directory made if need be)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        comment = f"Tile set {name}, enrolled with mahjong-table diag tiles enroll."
        return write_tileset(path, TileSetFile(name, sets), comment)
