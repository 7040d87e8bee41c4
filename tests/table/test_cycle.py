"""The hand cycle as a pure machine: inputs and instants in, effects out."""

import dataclasses

from controller.table import effects as fx
from controller.table import inputs as ev
from controller.table.cycle import CycleSettings, Phase
from controller.table.ports import (
    Beep,
    DeclarePressed,
    DicePressed,
    EmergencyStop,
    McuFault,
    McuFaultKind,
    McuOffline,
    McuOnline,
    StatusPattern,
    Zone,
    ZoneRead,
)
from controller.table.records import IncidentKind
from tests.table.driver import Driver
from tests.table.helpers import full_wall


def kinds(effects: list[fx.Effect]) -> list[str]:
    return [type(effect).__name__ for effect in effects]


def test_a_session_starts_by_lowering_and_building_at_once() -> None:
    driver = Driver()
    out = driver.start()
    assert [e for e in out if isinstance(e, fx.LowerPlatform | fx.BuildWalls)] == [
        fx.LowerPlatform(20.0),
        fx.BuildWalls(136, 34, 2, 85.0),
    ]
    assert fx.ShowStatus(StatusPattern.BUILDING) in out
    assert driver.view().phase is Phase.BUILDING


def test_a_build_over_80_seconds_stops_every_motor() -> None:
    driver = Driver()
    driver.start()
    assert driver.feed(ev.Tick(), after=79.9) == []
    out = driver.feed(ev.Tick(), after=0.2)
    assert kinds(out)[:3] == ["StopAll", "ShowStatus", "ShowTurn"] or "StopAll" in kinds(out)
    assert fx.ShowStatus(StatusPattern.FAULT) in out and fx.Sound(Beep.ALARM) in out
    assert driver.view().fault == (
        "building the walls took over 80 s: check the shuffler and the stacking head"
    )


def test_the_build_timeout_follows_the_config() -> None:
    driver = Driver(settings=CycleSettings(build_timeout_s=30))
    driver.start()
    driver.feed(ev.Tick(), after=31)
    assert "took over 30 s" in str(driver.view().fault)


def test_a_bad_wall_is_reshuffled_once_and_never_rises() -> None:
    driver = Driver()
    driver.start()
    wall = full_wall(driver.ruleset)
    wall.pop(max(wall))
    out = driver.build(wall)
    assert kinds(out).count("BuildWalls") == 1 and "RaiseWalls" not in kinds(out)
    assert driver.view().phase is Phase.BUILDING
    driver.build(wall)
    assert "RaiseWalls" not in kinds(driver.effects)
    assert driver.view().phase is Phase.FAULT
    assert driver.cycle.wall_checks == [(1, driver.cycle.wall_checks[0][1])] * 2
    assert str(driver.view().fault).endswith(
        "side 3 (N) has 33 tiles where 34 belong: check the stacking head"
    )


def test_the_dice_button_rolls_only_when_the_walls_are_up() -> None:
    driver = Driver()
    driver.start()
    assert driver.feed(DicePressed()) == []
    driver.build()
    assert driver.view().phase is Phase.WALLS_CHECKED
    assert "RollDice" not in kinds(driver.feed(DicePressed()))
    driver.raise_and_roll((3, 4))
    assert driver.view().phase is Phase.DICE and driver.view().notice.endswith("(roll 2 of 2)")
    driver.raise_and_roll((2, 2))
    assert driver.view().phase is Phase.DEALING
    assert driver.view().dice == (3, 4, 2, 2)
    assert kinds(driver.effects).count("RollDice") == 2


def test_the_deal_checked_then_play() -> None:
    driver = Driver()
    driver.to_playing()
    assert driver.cycle.deal_checks == [(1, ())]
    assert driver.view().turn == 0, "the dealer's LED: they hold 14 tiles"
    assert any(isinstance(e, fx.HandBegan) for e in driver.effects)


def test_a_zone_read_of_the_last_hand_that_comes_after_the_next_began_is_not_dealt() -> None:
    # A re-read asked in the last hand answers after the new hand cleared the board: the
    # last hand's set shows in a MELD zone again, and the lowering's one empty read of it
    # would not count its tags gone (two reads must miss a tag). The lowered platform does.
    driver = Driver()
    driver.start()
    old_set = frozenset(list(full_wall(driver.ruleset).values())[:3])
    driver.feed(ZoneRead(2, Zone.MELD, old_set))
    driver.feed(ZoneRead(2, Zone.MELD, frozenset()))
    driver.build()
    assert driver.cycle.board.count(Zone.MELD) == 0
    driver.raise_and_roll((3, 4), (2, 2))
    hand = driver.cycle.hand
    assert hand is not None and hand.dealt is not None
    for place in range(4):  # the players take their tiles; no MELD zone changes
        driver.feed(ZoneRead(place, Zone.HAND, hand.dealt.expected.hands[place]), after=0.2)
    driver.feed(ev.Tick(), after=driver.cycle.settings.settle_s)
    assert driver.cycle.deal_checks == [(1, ())], "no tile of the last hand is dealt"


def test_the_result_is_stored_before_the_next_hand_starts() -> None:
    driver = Driver()
    driver.to_playing()
    out = driver.feed(ev.EndHand())
    [record] = [e for e in out if isinstance(e, fx.RecordHand)]
    assert record.hand.drawn and record.hand.payments == (0, 0, 0, 0)
    assert driver.view().phase is Phase.HAND_OVER
    assert "BuildWalls" not in kinds(out)
    out = driver.feed(ev.RecordFailed("disk full"))
    assert driver.view().fault == "the result of hand 1 could not be stored: disk full"
    out = driver.feed(DicePressed())
    assert any(isinstance(e, fx.RecordHand) for e in out), "acknowledging stores it again"
    out = driver.feed(ev.HandRecorded("r-1"))
    assert "BuildWalls" in kinds(out) and driver.view().hand == 2 and driver.view().dealer == 1


def test_the_emergency_stop_holds_until_released_and_acknowledged() -> None:
    driver = Driver()
    driver.to_playing()
    out = driver.feed(EmergencyStop(engaged=True))
    assert "StopAll" in kinds(out) and driver.view().phase is Phase.FAULT
    driver.feed(DicePressed())
    assert driver.view().phase is Phase.FAULT
    assert driver.view().notice == "cannot go on yet: release the emergency stop first"
    driver.feed(EmergencyStop(engaged=False))
    assert driver.view().phase is Phase.FAULT
    driver.feed(ev.Acknowledge("diag"))
    assert driver.view().phase is Phase.PLAYING, "the hand on the table goes on"


def test_the_lid_holds_like_the_emergency_stop() -> None:
    driver = Driver()
    driver.start()
    driver.feed(McuFault(McuFaultKind.LID_OPEN))
    driver.feed(DicePressed())
    assert driver.view().fault == "the lid is open: every motor stopped"
    driver.feed(ev.Tick(), after=60)
    assert driver.view().phase is Phase.FAULT


def test_an_mcu_restart_mid_play_is_an_incident_and_mid_build_a_fault() -> None:
    driver = Driver()
    driver.to_playing()
    out = driver.feed(McuOnline(restarted=True, reset_cause="watchdog"))
    assert driver.view().phase is Phase.PLAYING
    [note] = [e for e in out if isinstance(e, fx.NoteIncident)]
    assert note.incident.kind is IncidentKind.TABLE_RESTARTED

    building = Driver()
    building.start()
    building.feed(McuOffline("the table MCU restarted"))
    building.feed(McuOnline(restarted=True, reset_cause="brownout"))
    assert building.view().fault == (
        "the table MCU restarted (brownout) while it had to build the walls: "
        "press the dice button to go on"
    )


def test_a_false_declaration_is_an_incident_and_play_goes_on() -> None:
    driver = Driver()
    driver.to_playing()
    driver.feed(DeclarePressed(2))
    assert driver.view().declared == (2,), "a press may come before the tiles it follows"
    asked = driver.feed(ev.Tick(), after=1.5)
    assert any(isinstance(e, fx.ReadZones) for e in asked), (
        "the zones are read again: an antenna may have missed"
    )
    assert not [e for e in asked if isinstance(e, fx.NoteIncident)]
    out = driver.feed(ev.Tick(), after=1.5)
    [note] = [e for e in out if isinstance(e, fx.NoteIncident)]
    assert note.incident.kind == IncidentKind.FALSE_WIN and note.incident.place == 2
    assert "out of turn" in note.incident.detail
    assert driver.view().phase is Phase.PLAYING and driver.view().declared == ()
    assert driver.view().turn == 0, "the dealer still has to discard"


def test_no_hand_starts_in_the_last_minutes_before_the_deadline() -> None:
    driver = Driver()
    driver.start(hands=0, deadline_s=600, margin_s=120)
    driver.build()
    driver.raise_and_roll((3, 4), (2, 2))
    driver.deal_as_planned()
    driver.feed(ev.EndHand(), after=470)
    driver.feed(ev.HandRecorded("r-1"))
    assert driver.view().phase is Phase.SESSION_OVER
    assert driver.view().over_reason == "the session's time is up"
    assert driver.view().pattern is StatusPattern.IDLE


def test_a_setup_failure_cannot_be_acknowledged_away() -> None:
    driver = Driver()
    driver.feed(ev.SetupFailed("the tile-set file cannot be used"))
    driver.feed(DicePressed())
    assert driver.view().phase is Phase.FAULT
    assert driver.view().notice.endswith("fix it and restart the daemon")


def test_pause_waits_between_hands() -> None:
    driver = Driver()
    driver.to_playing()
    driver.feed(ev.PauseSession("tea"))
    driver.feed(ev.EndHand())
    driver.feed(ev.HandRecorded("r-1"))
    assert driver.view().phase is Phase.IDLE and driver.view().paused
    out = driver.feed(ev.ResumeSession())
    assert "BuildWalls" in kinds(out)


def test_waiting_too_long_for_the_mcu_is_a_fault() -> None:
    driver = Driver()
    session_ruleset = driver.ruleset
    from controller.table.session import SessionPlan

    plan = SessionPlan("s-2", session_ruleset.name, ("a", "b", "c", "d"))
    driver.feed(ev.StartSession(plan, session_ruleset))
    assert driver.view().notice == "waiting for the table MCU"
    driver.feed(ev.Tick(), after=11)
    assert driver.view().fault == "no answer from the table MCU: check its USB cable and its power"


def test_a_tag_one_antenna_read_missed_at_the_deal_is_read_again_not_a_wrong_deal() -> None:
    driver = Driver()
    driver.start()
    driver.build()
    driver.raise_and_roll((3, 4), (2, 2))
    hand = driver.cycle.hand
    assert hand is not None and hand.dealt is not None
    expected = hand.dealt.expected
    missed = min(expected.hands[1])
    for place in range(4):
        held = expected.hands[place] - {missed}
        driver.feed(ZoneRead(place, Zone.HAND, frozenset(held)), after=0.2)
        driver.feed(ZoneRead(place, Zone.MELD, expected.flowers[place]))
    out = driver.feed(ev.Tick(), after=driver.cycle.settings.settle_s)
    assert any(isinstance(e, fx.ReadZones) for e in out) and driver.view().phase is Phase.DEALING
    driver.feed(ZoneRead(1, Zone.HAND, frozenset(expected.hands[1])), after=0.1)
    out = driver.feed(ev.Tick(), after=driver.cycle.settings.settle_s)
    assert driver.view().phase is Phase.PLAYING
    assert not [e for e in driver.effects if isinstance(e, fx.NoteIncident)], "no wrong deal"


def test_the_view_is_built_field_by_field_in_its_own_order() -> None:
    driver = Driver()
    driver.to_playing()
    view, session = driver.view(), driver.cycle.session
    assert session is not None
    assert len(driver.cycle.view_fields()) == len(dataclasses.fields(view))
    assert (view.phase, view.ruleset, view.hand, view.dealer, view.turn) == (
        Phase.PLAYING,
        "zung-jung",
        1,
        0,
        0,
    )
    assert (view.session, view.players, view.scores) == (
        session.plan.id,
        session.plan.players,
        (0, 0, 0, 0),
    )
