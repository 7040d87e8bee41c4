"""The MCU adapter: the bridge's messages become the hand cycle's events, and a refusal
becomes plain words."""

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable

import pytest

from controller.devices.mcu import REFUSALS, LinkMcu, antenna_words, refused_as, translate
from controller.table.mcu_events import COMMAND_ADVICE
from controller.table.ports import (
    CommandFailure,
    McuCommandFailed,
    McuEvent,
    McuFault,
    McuFaultKind,
    McuOffline,
    McuOnline,
    Motion,
    MotionEnded,
    Outcome,
    WallTilePlaced,
    Zone,
    ZoneRead,
    ZonesReadAgain,
)
from firmware_bridge.errors import CommandRejected
from firmware_bridge.link import Link, LinkSettings
from firmware_bridge.messages import (
    Fault,
    FaultCode,
    MotionDone,
    Motor,
    QueryZonePage,
    RaiseWalls,
    RejectReason,
    RollDice,
    ZoneInventory,
)
from firmware_bridge.messages import Motion as WireMotion
from firmware_bridge.messages import Outcome as WireOutcome
from firmware_bridge.messages import Zone as WireZone
from firmware_bridge.sim.table import SimulatedTable


def test_messages_become_cycle_events() -> None:
    assert translate(MotionDone(WireMotion.BUILD, WireOutcome.FAILED)) == MotionEnded(
        Motion.BUILD, Outcome.FAILED
    )
    assert translate(Fault(FaultCode.JAM, Motor.STACKER)) == McuFault(
        McuFaultKind.JAM, "stacking head"
    )
    assert translate(Fault(FaultCode.READER_ERROR, 5)) == McuFault(
        McuFaultKind.READER_ERROR, "MELD antenna of seat S", antenna=5
    )
    assert translate(ZoneInventory(2, WireZone.DISCARD, (7, 9))) == ZoneRead(
        2, Zone.DISCARD, frozenset({7, 9})
    )
    assert translate(MotionDone(WireMotion.SELF_TEST, WireOutcome.DONE)) is None
    assert antenna_words(0) == "wall reader"


Adapter = tuple[LinkMcu, SimulatedTable, list[McuEvent], asyncio.Event]


@pytest.fixture
async def adapter() -> AsyncIterator[Adapter]:
    sim = SimulatedTable(seed=3, speed=0, inventory_period=None)
    async with sim:
        mcu = LinkMcu(Link(sim.memory_opener(), LinkSettings()))
        events: list[McuEvent] = []
        built = asyncio.Event()

        def keep(event: McuEvent) -> None:
            events.append(event)
            if event == MotionEnded(Motion.BUILD, Outcome.DONE):
                built.set()

        mcu.subscribe(keep)
        task = asyncio.create_task(mcu.run())
        await mcu.link.wait_connected(within=3)
        yield mcu, sim, events, built
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def test_a_build_streams_its_tiles(
    adapter: Adapter,
) -> None:
    mcu, _, events, built = adapter
    await mcu.build_walls(108, 27, 2, 60.0)
    async with asyncio.timeout(3):
        await built.wait()
    assert isinstance(events[0], McuOnline)
    assert sum(isinstance(e, WallTilePlaced) for e in events) == 108


async def test_a_refusal_is_said_in_words(
    adapter: Adapter,
) -> None:
    mcu, sim, _, _ = adapter
    sim.set_estop(True)
    with pytest.raises(McuCommandFailed) as refused:
        await mcu.roll_dice(5.0)
    assert (
        str(refused.value)
        == "could not roll the dice: the table refused: the emergency stop is pressed"
    )
    assert refused.value.failure is CommandFailure.ESTOP
    with pytest.raises(McuCommandFailed, match="no 100-tile set") as no_set:
        await mcu.build_walls(100, 25, 2, 60.0)
    assert no_set.value.failure is CommandFailure.NO_SUCH_SET


async def test_each_refusal_keeps_the_mcus_code() -> None:
    sim = SimulatedTable(seed=3, speed=1, inventory_period=None)  # movements take their time
    async with sim:
        mcu = LinkMcu(Link(sim.memory_opener(), LinkSettings()))
        task = asyncio.create_task(mcu.run())
        try:
            await mcu.link.wait_connected(within=3)
            await mcu.build_walls(108, 27, 2, 600.0)  # accepted: the build runs
            with pytest.raises(McuCommandFailed) as busy:
                await mcu.build_walls(108, 27, 2, 600.0)
            assert busy.value.failure is CommandFailure.BUSY
            assert busy.value.reason == "the table refused: another movement is still running"
            await mcu.stop_all()
            sim.set_lid(True)
            with pytest.raises(McuCommandFailed) as lid:
                await mcu.roll_dice(5.0)
            assert lid.value.failure is CommandFailure.LID_OPEN
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


async def test_a_firmware_that_speaks_another_protocol_is_final() -> None:
    sim = SimulatedTable(seed=3, speed=0, inventory_period=None, table_hash=0x12345678)
    async with sim:
        mcu = LinkMcu(Link(sim.memory_opener(), LinkSettings(connect_timeout=1.0)))
        events: list[McuEvent] = []
        gave_up = asyncio.Event()

        def keep(event: McuEvent) -> None:
            events.append(event)
            gave_up.set()

        mcu.subscribe(keep)
        task = asyncio.create_task(mcu.run())
        async with asyncio.timeout(3):
            await gave_up.wait()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    [offline] = events
    assert isinstance(offline, McuOffline) and offline.final
    assert "flash the firmware built from this release" in offline.reason


async def test_a_zone_read_again_reads_every_zone_then_names_its_ask(adapter: Adapter) -> None:
    mcu, sim, events, _ = adapter
    read = asyncio.Event()
    mcu.subscribe(lambda event: read.set() if isinstance(event, ZonesReadAgain) else None)
    await mcu.read_zones(7.5)
    async with asyncio.timeout(3):
        await read.wait()
    # Each zone read anew once, page by page: its first page reads the antenna.
    queries = [c for c in sim.mcu.commands if isinstance(c, QueryZonePage) and c.first == 0]
    assert len(queries) == 4 * len(WireZone)
    reads = [e for e in events if isinstance(e, ZoneRead)]
    assert len(reads) == 4 * len(WireZone)
    assert events[-1] == ZonesReadAgain(7.5), "after the reads, naming the ask"


async def _refused(command: Awaitable[None]) -> CommandFailure:
    with pytest.raises(McuCommandFailed) as refused:
        await command
    return refused.value.failure


async def test_a_refused_raise_or_build_is_told_apart_by_what_to_do(adapter: Adapter) -> None:
    """hardware/protocol.md, section 4: a raise is refused NOT_READY with detail 0 when no
    complete walls are below, detail 1 when the surface still holds tiles; a build whose layout
    the table cannot stack is refused BAD_ARGUMENT naming its tiles_per_side."""
    mcu, _, _, built = adapter
    assert await _refused(mcu.raise_walls(30.0)) is CommandFailure.NO_WALLS_BELOW
    assert await _refused(mcu.build_walls(108, 27, 4, 60.0)) is CommandFailure.WALLS_DO_NOT_FIT
    raised = asyncio.Event()
    mcu.subscribe(lambda e: raised.set() if e == MotionEnded(Motion.RAISE, Outcome.DONE) else None)
    await mcu.build_walls(108, 27, 2, 60.0)
    await built.wait()
    await mcu.raise_walls(30.0)
    await raised.wait()  # the first set now lies on the surface
    built.clear()
    await mcu.build_walls(108, 27, 2, 60.0)
    await built.wait()
    assert await _refused(mcu.raise_walls(30.0)) is CommandFailure.SURFACE_HOLDS_TILES
    assert (
        COMMAND_ADVICE[CommandFailure.SURFACE_HOLDS_TILES]
        != (COMMAND_ADVICE[CommandFailure.NO_WALLS_BELOW])
    )


async def test_a_field_the_firmware_does_not_take_is_a_bad_argument(adapter: Adapter) -> None:
    mcu = adapter[0]
    zero = RollDice(max_duration_ms=0)  # refused BAD_ARGUMENT, detail 0
    with pytest.raises(CommandRejected) as refused:
        await mcu.link.request(zero)
    assert refused_as(zero, refused.value) is CommandFailure.BAD_ARGUMENT


@pytest.mark.parametrize("reason", list(RejectReason))
def test_every_reject_code_has_words_and_advice(reason: RejectReason) -> None:
    for detail in (0, 1):
        error = CommandRejected("raise_walls", reason, reason.name, detail)
        failure = refused_as(RaiseWalls(1000), error)
        assert failure in REFUSALS and failure in COMMAND_ADVICE
