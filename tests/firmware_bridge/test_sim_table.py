"""The simulated table behaves like the reference table: tile sets, walls, zones and faults."""

from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge.errors import CommandRejected
from firmware_bridge.events import Subscription
from firmware_bridge.link import Link
from firmware_bridge.messages import (
    BuildState,
    BuildWalls,
    Component,
    Fault,
    FaultCleared,
    FaultCode,
    Motion,
    MotionDone,
    Motor,
    Outcome,
    QueryStatus,
    QueryZone,
    RaiseWalls,
    RejectReason,
    RollDice,
    SelfTest,
    SelfTestResult,
    StopAll,
    TileSetKind,
    WallBuilt,
    WallTile,
    Zone,
    antenna_number,
)
from firmware_bridge.sim.faults import Faults
from firmware_bridge.sim.model import TableModel, WallLayout, layout_for
from firmware_bridge.sim.table import SimulatedTable
from firmware_bridge.sim.tiles import physical_sets, tile_names
from firmware_bridge.tileset import TileSetFileError, read_tileset
from tests.firmware_bridge.conftest import FAST, settings_for

PROMPT_S = 10.0
"""How long a test waits for an event the table sends at once (in milliseconds, on a quiet
machine): generous, as the C firmware and the simulator share a busy CI machine's cores."""
LAYOUTS = {
    TileSetKind.WITH_FLOWERS_144: (36, 18),
    TileSetKind.NO_FLOWERS_136: (34, 17),
    TileSetKind.SUITS_ONLY_108: (27, 14),
}


@pytest.mark.parametrize("kind", list(TileSetKind))
def test_each_face_four_times_and_flowers_once(kind: TileSetKind) -> None:
    counts = Counter(tile_names(kind))
    assert sum(counts.values()) == LAYOUTS[kind][0] * 4
    assert {face: n for face, n in counts.items() if n != 4} == {
        f"{rank}f": 1 for rank in range(1, 9) if kind is TileSetKind.WITH_FLOWERS_144
    }


@pytest.mark.parametrize("kind", list(TileSetKind))
def test_standard_wall_layouts(kind: TileSetKind) -> None:
    layout = layout_for(kind)
    per_side, stacks = LAYOUTS[kind]
    assert (layout.tiles_per_side, layout.stacks) == (per_side, stacks)
    slots = layout.side_slots()
    assert len(slots) == per_side
    if kind is TileSetKind.SUITS_ONLY_108:
        assert slots[-1] == (13, 0) and (13, 1) not in slots


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 10**6))
def test_every_tag_uid_is_unique_across_both_sets(seed: int) -> None:
    uids = [tile.uid for tiles in physical_sets(seed).values() for tile in tiles]
    assert len(uids) == 288 == len(set(uids))
    assert all(uid >> 48 == 0xE004 for uid in uids)


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10**6), st.sampled_from(list(TileSetKind)))
def test_every_wall_holds_each_tile_exactly_once(seed: int, kind: TileSetKind) -> None:
    model = TableModel(seed)
    plan = model.plan_build(kind, layout_for(kind))
    assert Counter(tile.name for _, tile in plan) == Counter(tile_names(kind))
    assert len({slot for slot, _ in plan}) == len(plan)


def test_wind_tiles_taken_out_for_a_seating_draw_come_back_with_the_platform() -> None:
    model, kind = TableModel(3), TileSetKind.NO_FLOWERS_136
    winds = model.take_out(["1z", "2z", "3z", "4z"])
    assert {t.set_name for t in winds} == {"B"}, "from the set the next build leaves behind"
    for chair, tile in enumerate(winds):
        model.place(tile, chair, Zone.HAND)
    first = model.plan_build(kind, layout_for(kind))  # set A: whole
    assert Counter(tile.name for _, tile in first) == Counter(tile_names(kind))
    model.raise_walls()
    model.lower_platform()  # the winds drop with the surface
    second = model.plan_build(kind, layout_for(kind))  # set B: whole again
    assert {tile.set_name for _, tile in second} == {"B"}
    assert Counter(tile.name for _, tile in second) == Counter(tile_names(kind))


def test_a_set_builds_without_tiles_still_out_of_the_machine() -> None:
    model, kind = TableModel(3), TileSetKind.NO_FLOWERS_136
    (east,) = model.take_out(["1z"])  # from set B, resting behind set A
    model.hopper.rotate()  # set B is built next, the east wind still out
    plan = model.plan_build(kind, layout_for(kind))
    assert east.uid not in {tile.uid for _, tile in plan}
    assert len(plan) == len(tile_names(kind)) - 1


def test_shuffles_are_reproducible_from_the_seed() -> None:
    def order(seed: int) -> list[int]:
        plan = TableModel(seed).plan_build(TileSetKind.NO_FLOWERS_136, WallLayout(34, 2))
        return [tile.uid for _, tile in plan]

    assert order(4) == order(4)
    assert order(4) != order(5)


def test_tileset_file_round_trips_and_names_every_tile(tmp_path: Path) -> None:
    sim = SimulatedTable(seed=9)
    path = sim.write_tileset(tmp_path)
    assert path.name == "sim-9.toml"
    loaded = read_tileset(path)
    assert loaded == sim.tileset()
    assert Counter(loaded.sets["A"].values())["5p"] == 4
    assert len(loaded.tile_of()) == 288


def test_a_broken_tileset_file_names_the_problem(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text('format = 1\nname = "x"\n[sets.A]\nE004000000000001 = "0m"\n')
    with pytest.raises(TileSetFileError, match="'0m' is not a tile name"):
        read_tileset(path)


async def _build(
    link: Link, kind: TileSetKind = TileSetKind.NO_FLOWERS_136, ms: int = 60_000
) -> list[object]:
    events = link.subscribe()
    per_side = LAYOUTS[kind][0]
    await link.request(BuildWalls(kind, per_side, 2, ms))
    items = await events.until(MotionDone, within=PROMPT_S)
    events.close()
    return list(items)


async def test_a_missing_tile_shows_as_a_short_side(mcu_firmware: Path | None) -> None:
    faults = Faults(missing_tiles=("5p",))
    sim = SimulatedTable(
        seed=3, speed=0, faults=faults, inventory_period=None, firmware=mcu_firmware
    )
    async with sim, Link(sim.opener(), settings_for(sim)) as link:
        items = await _build(link)
        counts = [item.count for item in items if isinstance(item, WallBuilt)]
        assert sorted(counts) == [33, 34, 34, 34]
        faces = Counter(sim.tileset().tile_of()[i.uid] for i in items if isinstance(i, WallTile))
        assert faces["5p"] == 3


async def test_a_duplicated_uid_shows_twice_in_the_wall(mcu_firmware: Path | None) -> None:
    sim = SimulatedTable(
        seed=3,
        speed=0,
        faults=Faults(duplicate_uids=1),
        inventory_period=None,
        firmware=mcu_firmware,
    )
    async with sim, Link(sim.opener(), settings_for(sim)) as link:
        uids = Counter(i.uid for i in await _build(link) if isinstance(i, WallTile))
        assert sorted(uids.values())[-1] == 2


async def test_a_jam_stops_the_build_with_a_fault(mcu_firmware: Path | None) -> None:
    sim = SimulatedTable(
        seed=3, speed=0, faults=Faults(jam_at_tile=40), inventory_period=None, firmware=mcu_firmware
    )
    async with sim, Link(sim.opener(), settings_for(sim)) as link:
        items = await _build(link)
        assert sum(isinstance(i, WallTile) for i in items) == 40
        assert Fault(FaultCode.JAM, Motor.STACKER) in items
        assert items[-1] == MotionDone(Motion.BUILD, Outcome.FAILED)
        with pytest.raises(CommandRejected, match="NOT_READY"):
            await link.request(RaiseWalls(5000))
        assert items != await _build(link)


async def test_a_build_longer_than_its_maximum_duration_is_stopped(
    software_sim: SimulatedTable,
) -> None:
    # The software MCU counts the maximum duration in machine time, even on an instant machine.
    async with Link(software_sim.opener(), FAST) as link:
        items = await _build(link, ms=1_000)
    assert sum(isinstance(i, WallTile) for i in items) == 8
    assert Fault(FaultCode.MOTOR_TIMEOUT, Motor.STACKER) in items
    assert items[-1] == MotionDone(Motion.BUILD, Outcome.TIMED_OUT)


async def test_a_build_that_outlasts_its_maximum_duration_on_the_clock_is_stopped(
    mcu_firmware: Path | None,
) -> None:
    # A tile every 1.2 ms: the 136 tiles take 160 ms, the build may take 60.
    sim = SimulatedTable(seed=3, speed=0.01, inventory_period=None, firmware=mcu_firmware)
    async with sim, Link(sim.opener(), settings_for(sim)) as link:
        items = await _build(link, ms=60)
        status = await link.request(QueryStatus())
    assert sum(isinstance(i, WallTile) for i in items) < 136
    assert Fault(FaultCode.MOTOR_TIMEOUT, Motor.STACKER) in items
    assert items[-1] == MotionDone(Motion.BUILD, Outcome.TIMED_OUT)
    assert status.motors_running == 0 and status.build_state is BuildState.FAILED


async def test_sichuan_walls_have_a_single_tile_at_the_end(link: Link) -> None:
    await _build(link, TileSetKind.SUITS_ONLY_108)
    side = await link.wall_side(1)
    assert (side.tiles_per_side, len(side.slots)) == (27, 27)
    assert side.slots[-1].stack == 13 and side.slots[-1].layer == 0


async def test_the_lid_stops_the_motors_and_blocks_new_motions(
    sim: SimulatedTable, link: Link
) -> None:
    sim.set_speed(0.001)
    events = link.subscribe()
    await link.request(BuildWalls(TileSetKind.NO_FLOWERS_136, 34, 2, 60_000))
    await events.next(WallTile, within=PROMPT_S)  # the build is under way
    sim.set_lid(True)
    items = await events.until(Fault, within=PROMPT_S)
    assert MotionDone(Motion.BUILD, Outcome.STOPPED) in items
    with pytest.raises(CommandRejected) as refused:
        await link.request(RollDice(3000))
    assert refused.value.reason == RejectReason.LID_OPEN


async def test_rfid_misses_and_dead_antennas_show_in_the_inventories(
    mcu_firmware: Path | None,
) -> None:
    dead = antenna_number(0, Zone.MELD)
    faults = Faults(zone_miss={Zone.HAND: 1.0}, dead_antennas=(dead,))
    sim = SimulatedTable(
        seed=3, speed=0, faults=faults, inventory_period=None, firmware=mcu_firmware
    )
    async with sim, Link(sim.opener(), settings_for(sim)) as link:
        await _build(link)
        raised = link.subscribe(MotionDone)
        await link.request(RaiseWalls(10_000))
        assert await raised.next(MotionDone, within=PROMPT_S) == MotionDone(
            Motion.RAISE, Outcome.DONE
        )
        tile = sim.draw(seat=0, side=0, stack=0, layer=0)
        assert (await link.request(QueryZone(0, Zone.HAND))).uids == ()
        sim.meld(0, [tile.uid])
        assert (await link.request(QueryZone(0, Zone.MELD))).uids == ()
        events = link.subscribe()
        await link.request(SelfTest(Component.ZONE_READERS, 5000))
        result = await events.next(SelfTestResult, within=PROMPT_S)
        assert result == SelfTestResult(Component.ZONE_READERS, False, dead)


def test_a_meld_is_read_once_in_each_zone_it_touches() -> None:
    # West pungs East's discard: the discard leaves East's river, two tiles leave West's hand,
    # and the MELD antenna reads the set once it lies there (not once per tile).
    model = TableModel(seed=1)
    tiles = model.sets["A"][:3]
    model.place(tiles[0], 0, Zone.DISCARD)
    model.place(tiles[1], 2, Zone.HAND)
    model.place(tiles[2], 2, Zone.HAND)
    read: list[tuple[int, Zone]] = []
    model.listeners.append(lambda seat, zone: read.append((seat, zone)))
    model.meld(2, [t.uid for t in tiles])
    assert read == [(0, Zone.DISCARD), (2, Zone.HAND), (2, Zone.MELD)]
    assert model.zone_tiles(2, Zone.MELD) == tiles


async def test_a_motion_already_running_makes_its_rivals_busy_and_stop_all_ends_it(
    sim: SimulatedTable, link: Link
) -> None:
    # protocol.md section 4: a build refuses a build or a raise while it runs (BUSY, detail:
    # the motion), and stop_all ends every running motion with motion_done STOPPED.
    sim.set_speed(0.01)
    events = link.subscribe(WallTile, MotionDone)
    await link.request(BuildWalls(TileSetKind.NO_FLOWERS_136, 34, 2, 60_000))
    await events.next(WallTile, within=PROMPT_S)
    with pytest.raises(CommandRejected, match="BUSY") as busy:
        await link.request(RaiseWalls(10_000))
    assert busy.value.detail == Motion.BUILD
    await link.request(RollDice(3000))  # the dice are no rival of the build
    await link.request(StopAll())
    stopped = [item async for item in _motions_until(events, 2)]
    assert MotionDone(Motion.BUILD, Outcome.STOPPED) in stopped
    status = await link.request(QueryStatus())
    assert status.motors_running == 0 and status.build_state is BuildState.FAILED


async def _motions_until(events: Subscription, count: int) -> AsyncIterator[MotionDone]:
    while count:
        item = await events.next(MotionDone, within=PROMPT_S)
        count -= 1
        yield item


async def test_the_emergency_stop_refuses_every_motor_command_until_released(
    sim: SimulatedTable, link: Link
) -> None:
    events = link.subscribe(Fault, FaultCleared)
    sim.set_estop(True)
    assert await events.next(Fault, within=PROMPT_S) == Fault(FaultCode.ESTOP, 0)
    for command in (RollDice(3000), BuildWalls(TileSetKind.NO_FLOWERS_136, 34, 2, 60_000)):
        with pytest.raises(CommandRejected) as refused:
            await link.request(command)
        assert refused.value.reason == RejectReason.ESTOP
    assert (await link.request(QueryStatus())).estop
    sim.set_estop(False)
    assert await events.next(FaultCleared, within=PROMPT_S) == FaultCleared(FaultCode.ESTOP, 0)
    await link.request(RollDice(3000))
