"""What a technician sees when the table goes wrong: the state, the words on the status line,
the status LED; and that acknowledging (the dice button) picks up where it stopped."""

from pathlib import Path

from gpiozero.pins.mock import MockFactory

from controller.sim.players import Habits
from controller.table.cycle import Phase
from controller.table.ports import McuEvent, StatusPattern, WallTilePlaced
from controller.table.records import IncidentKind
from controller.table.tiles import tag
from firmware_bridge.messages import ResetCause
from firmware_bridge.sim.faults import Faults
from firmware_bridge.sim.mcu import SoftwareMcu
from firmware_bridge.sim.model import TableModel
from firmware_bridge.sim.motions import Machine
from tests.sim.rig import Rig


def machine(rig: Rig) -> Machine:
    """The motors of the rig's software MCU."""
    mcu = rig.sim.table.mcu
    assert isinstance(mcu, SoftwareMcu)
    return mcu.machine


async def test_a_jam_during_the_build_stops_the_table_until_acknowledged(
    tmp_path: Path, pins: MockFactory
) -> None:
    async with Rig(tmp_path, hands=1, faults=Faults(jam_at_tile=40)) as rig:
        view = await rig.until_phase(Phase.FAULT)
        assert view.fault == (
            "the stacking head jammed: clear the jam, then press the dice button to go on"
        )
        assert rig.panel.status is StatusPattern.FAULT
        assert "RaiseWalls" not in rig.commands()
        await rig.acknowledge()
        view = await rig.until_phase(Phase.SESSION_OVER, Phase.FAULT)
    assert view.phase is Phase.SESSION_OVER
    assert rig.commands().count("BuildWalls") == 2
    assert len(rig.sink.results) == 1


async def test_a_missing_tile_is_named_and_the_wall_never_rises(
    tmp_path: Path, pins: MockFactory
) -> None:
    async with Rig(tmp_path, hands=1, faults=Faults(missing_tiles=("5p",))) as rig:
        view = await rig.until_phase(Phase.FAULT, Phase.WALLS_RAISED)
    assert view.phase is Phase.FAULT
    assert view.fault is not None
    assert view.fault.startswith("bad wall after a reshuffle: tile set is short one 5-dot")
    assert "side 3 (N) has 33 tiles where 34 belong" in view.fault
    assert rig.panel.status is StatusPattern.FAULT
    assert [hand for hand, _ in rig.cycle.wall_checks] == [1, 1], "checked, reshuffled once"
    assert rig.commands().count("BuildWalls") == 2
    assert "RaiseWalls" not in rig.commands()


def _duplicated_tag(seed: int) -> int:
    """The tag that two tiles of the first set answer with (badly programmed tags)."""
    uids = [tile.uid for tile in TableModel(seed, Faults(duplicate_uids=1)).sets["A"]]
    return next(uid for uid in uids if uids.count(uid) == 2)


async def test_a_duplicated_tag_is_named_and_the_wall_never_rises(
    tmp_path: Path, pins: MockFactory
) -> None:
    seed = 2
    async with Rig(
        tmp_path, "shanghai", hands=1, seed=seed, faults=Faults(duplicate_uids=1)
    ) as rig:
        view = await rig.until_phase(Phase.FAULT, Phase.WALLS_RAISED)
    assert view.phase is Phase.FAULT
    assert view.fault is not None
    assert f"tag {tag(_duplicated_tag(seed))} read twice: two tiles carry the same tag" in (
        view.fault
    )
    assert rig.panel.status is StatusPattern.FAULT
    assert "RaiseWalls" not in rig.commands()


async def test_the_emergency_stop_mid_build_stops_every_motor_and_holds(
    tmp_path: Path, pins: MockFactory
) -> None:
    async with Rig(tmp_path, hands=1, speed=0.001) as rig:  # a build that takes time
        placed = 0

        def press_mid_build(event: McuEvent) -> None:
            nonlocal placed
            placed += isinstance(event, WallTilePlaced)
            if placed == 30:
                rig.sim.buttons.set_estop(True)

        rig.app.mcu.subscribe(press_mid_build)
        view = await rig.until_phase(Phase.FAULT)
        assert view.fault == "the emergency stop is pressed: every motor stopped"
        assert rig.panel.status is StatusPattern.FAULT
        await rig.until(lambda _: machine(rig).motors == 0)
        assert "StopAll" in rig.commands()
        assert len(machine(rig).wall_record) < 136, "stopped mid-build"

        rig.sim.buttons.press_dice()
        await rig.quiet()
        assert rig.view.phase is Phase.FAULT
        assert rig.view.notice == "cannot go on yet: release the emergency stop first"

        rig.sim.buttons.set_estop(False)
        await rig.quiet()
        assert rig.view.phase is Phase.FAULT, "released is not yet acknowledged"
        await rig.acknowledge()
        view = await rig.until_phase(Phase.SESSION_OVER, Phase.FAULT)
    assert view.phase is Phase.SESSION_OVER
    assert len(rig.sink.results) == 1


async def test_an_mcu_reset_mid_hand_is_an_incident_and_the_hand_goes_on(
    tmp_path: Path, pins: MockFactory
) -> None:
    async with Rig(tmp_path, hands=1) as rig:
        reset = False

        def reset_while_playing(_: object) -> None:
            nonlocal reset
            if rig.view.phase is Phase.PLAYING and not reset:
                reset = True
                rig.sim.table.reset_mcu(ResetCause.WATCHDOG)

        rig.app.runner.observe(reset_while_playing)
        view = await rig.until(lambda v: v.notice.startswith("incident: the table MCU restarted"))
        assert view.phase is Phase.PLAYING
        assert rig.panel.status is StatusPattern.PLAYING
        view = await rig.until_phase(Phase.SESSION_OVER, Phase.FAULT)
    assert view.phase is Phase.SESSION_OVER
    [result] = rig.sink.results
    assert [i.detail for i in result.incidents] == [
        "the table MCU restarted (watchdog) during hand 1; the hand goes on"
    ]


async def test_an_mcu_reset_mid_build_is_a_fault_and_the_build_is_redone(
    tmp_path: Path, pins: MockFactory
) -> None:
    # The build must take some time for the MCU to be in the middle of it (an instant
    # machine places every tile before the daemon hears the first).
    async with Rig(tmp_path, hands=1, speed=0.001) as rig:
        placed = 0

        def reset_mid_build(event: McuEvent) -> None:
            nonlocal placed
            if isinstance(event, WallTilePlaced):
                placed += 1
                if placed == 50:  # once: the rebuild places tiles again
                    rig.sim.table.reset_mcu(ResetCause.BROWNOUT)

        rig.app.mcu.subscribe(reset_mid_build)
        # The link's loss stops the table first; once the MCU answers again and says it
        # restarted, the fault says so (on a loaded machine the two are far apart).
        restart = "the table MCU restarted"
        view = await rig.until(
            lambda v: v.phase is Phase.FAULT and (v.fault or "").startswith(restart)
        )
        assert view.fault == (
            "the table MCU restarted (brownout) while it had to build the walls: "
            "press the dice button to go on"
        )
        await rig.acknowledge()
        view = await rig.until_phase(Phase.SESSION_OVER, Phase.FAULT)
    assert view.phase is Phase.SESSION_OVER


async def test_a_wrong_deal_is_an_incident_naming_seats_and_tiles(
    tmp_path: Path, pins: MockFactory
) -> None:
    async with Rig(tmp_path, hands=1, habits=Habits(wrong_deal_hand=1)) as rig:
        view = await rig.until_phase(Phase.PLAYING)
        assert rig.panel.status is StatusPattern.PLAYING
        [(hand, texts)] = rig.cycle.deal_checks
        await rig.until_phase(Phase.SESSION_OVER)
    assert hand == 1
    assert len(texts) == 2
    south, west = texts
    assert south.startswith("seat S holds ") and "dealt to seat W; lacks " in south
    assert west.startswith("seat W holds ") and "dealt to seat S; lacks " in west
    [result] = rig.sink.results
    assert [(i.kind, i.place) for i in result.incidents] == [
        (IncidentKind.WRONG_DEAL, 1),
        (IncidentKind.WRONG_DEAL, 2),
    ]
    assert view.fault is None


async def test_a_build_over_80_seconds_is_a_fault(tmp_path: Path, pins: MockFactory) -> None:
    async with Rig(tmp_path, hands=1, speed=1.0, players=False, seating_draw=False) as rig:
        view = await rig.until_phase(Phase.FAULT)
        assert view.fault == (
            "building the walls took over 80 s: check the shuffler and the stacking head"
        )
        assert rig.clock.monotonic() > 80
        await rig.until(lambda _: machine(rig).motors == 0)
        assert "StopAll" in rig.commands()
