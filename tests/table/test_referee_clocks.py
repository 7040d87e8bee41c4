"""The turn and hand clocks in play (WMC): the referee starts a seat's turn at the previous
discard, at a claimed discard, after a kong's replacement draw; a 15-second turn limit and an
80-point forfeit on virtual time; the cycle lights, blinks and buzzes the seat on the GPIO
panel (MockFactory pins) and shows the points in the live status."""

from gpiozero.pins.mock import MockFactory

from controller.clock import ManualClock
from controller.devices.mcu import LinkMcu
from controller.devices.panel import GpioPanel
from controller.devices.pinout import load_pinout
from controller.hub.table_side.table_report import table_status
from controller.table import effects as fx
from controller.table import inputs as ev
from controller.table.cycle import Phase
from controller.table.log_sink import LogSink
from controller.table.ports import Beep, EmergencyStop, LightMode, Zone
from controller.table.records import IncidentKind
from controller.table.referee import MoveKind, Pause, Resume, TimeCalled
from controller.table.runner import TableRunner
from firmware_bridge.link import Link
from firmware_bridge.serial_port import serial_opener
from tests.table.driver import Driver
from tests.table.scripted import Table
from tests.table.test_referee import ZJ_E

E, S, W = 0, 1, 2
HANDS = {0: ZJ_E, 1: "22p33p44p66s77s89s7z", 2: "55m2233s778899p1z", 3: "46m77m88m55s9s5566z"}


def timed(table: Table) -> list[tuple[IncidentKind, int | None, int]]:
    return [(i.kind, i.place, i.penalty) for i in table.referee.play.incidents]


def dealt(table: Table) -> Table:
    """The referee's first input: the clocks start, the first 15 s count on no clock."""
    table.wait(0.0)
    return table


def test_a_turn_runs_from_the_previous_discard_and_costs_5_points_per_started_15_s() -> None:
    table = dealt(Table("zung-jung", HANDS))
    table.wait(20.0)  # 15 s grace, then 5 s on East's clock
    table.discard(E, "5m")
    assert timed(table) == []
    table.wait(14.9)  # South's turn started at East's discard
    assert timed(table) == []
    table.wait(0.2)
    assert timed(table) == [(IncidentKind.TURN_TIME, S, 5)]
    assert any(isinstance(o, TimeCalled) for o in table.out)
    table.wait(15.0)
    assert timed(table) == [(IncidentKind.TURN_TIME, S, 5)] * 2, "one more started step"
    table.draw(S)
    table.discard(S, "7z")
    table.wait(10.0)
    assert len(timed(table)) == 2, "West's turn is in time"


def test_a_claim_counts_from_the_discard_and_voids_the_next_seats_turn() -> None:
    table = dealt(Table("zung-jung", HANDS))
    table.wait(15.0)
    table.discard(E, "5m")
    table.wait(2.0)  # South's clock runs ...
    table.meld(W, "55m", discard_of=E)  # ... until West pungs the discard
    assert table.referee.play.moves[-1].kind is MoveKind.PUNG
    table.wait(12.0)  # 14 s since the discard: in time
    assert timed(table) == []
    table.wait(1.5)  # 15.5 s since the discard: West is over, South never had a turn
    assert timed(table) == [(IncidentKind.TURN_TIME, W, 5)]


def test_over_80_points_in_one_hand_forfeit_it_once_and_play_goes_on() -> None:
    table = dealt(Table("zung-jung", HANDS))
    table.wait(15.0)
    table.discard(E, "5m")
    table.wait(400.0)  # South sleeps: turn and hand steps together
    points = sum(p for k, place, p in timed(table) if place == S)
    forfeits = [k for k, place, _ in timed(table) if k is IncidentKind.TIME_FORFEIT]
    assert forfeits == [IncidentKind.TIME_FORFEIT] and 80 < points <= 90
    table.wait(400.0)
    assert sum(p for _, place, p in timed(table) if place == S) == points, "nothing more"
    table.draw(S)
    table.discard(S, "7z")
    assert table.referee.play.moves[-1].kind is MoveKind.DISCARD and table.referee.turn == W


def test_a_pause_stops_every_clock() -> None:
    table = dealt(Table("zung-jung", HANDS))
    table.wait(15.0)
    table.discard(E, "5m")
    table.feed(Pause())
    table.wait(300.0)
    table.feed(Resume())
    table.wait(10.0)
    assert timed(table) == []


def test_clean_scripted_play_in_time_has_no_incident() -> None:
    table = dealt(Table("zung-jung", HANDS))
    for _ in range(3):
        for place in (E, S, W, 3):
            if place != E or table.referee.play.need.value == "draw":
                table.draw(place)
            table.wait(5.0)
            uid = max(table.zones[(place, Zone.HAND)])
            table.move([uid], place, Zone.DISCARD)
            table.wait(3.5)
    assert timed(table) == []


def _playing() -> Driver:
    driver = Driver()
    driver.to_playing()
    return driver


def test_the_cycle_blinks_buzzes_and_shows_the_points_when_a_turn_runs_over() -> None:
    driver = _playing()
    turn = driver.view().turn
    assert turn is not None
    wakes = [e for e in driver.effects if isinstance(e, fx.WakeAt)]
    assert wakes and wakes[-1].monotonic > driver.t, "a wake-up at the turn's deadline"
    out = driver.feed(ev.Tick(), after=wakes[-1].monotonic - driver.t)
    assert fx.SeatLight(turn, LightMode.BLINK) in out and fx.Sound(Beep.OVERTIME) in out
    [note] = [e for e in out if isinstance(e, fx.NoteIncident)]
    assert note.incident.kind is IncidentKind.TURN_TIME and note.incident.penalty == 5
    assert fx.Sound(Beep.WARNING) not in out, "one buzz, not two"
    points = [0, 0, 0, 0]
    points[turn] = 5
    assert driver.view().penalties == tuple(points)
    assert table_status(driver.view()).penalties == points


def test_a_fault_stops_the_clocks_until_it_is_acknowledged() -> None:
    driver = _playing()
    driver.feed(EmergencyStop(True), after=1.0)
    assert driver.view().phase is Phase.FAULT
    driver.feed(ev.Tick(), after=600.0)
    driver.feed(EmergencyStop(False), after=1.0)
    driver.feed(ev.Acknowledge("test"), after=1.0)
    assert driver.view().phase is Phase.PLAYING
    driver.feed(ev.Tick(), after=5.0)
    assert driver.view().penalties == (0, 0, 0, 0), "the fault's 600 s counted on no clock"
    driver.feed(ev.Tick(), after=30.0)
    assert sum(driver.view().penalties) == 10


async def test_the_runner_carries_the_clock_signals_to_the_panel_pins(pins: MockFactory) -> None:
    driver = _playing()
    pinout = load_pinout()
    pins.pin(pinout["estop"]).drive_low()
    panel = GpioPanel(pinout)
    clock = ManualClock(start=driver.t)
    mcu = LinkMcu(Link(serial_opener("/dev/null")))
    runner = TableRunner(driver.cycle, mcu, panel, clock, LogSink())
    turn = driver.view().turn
    assert turn is not None
    led = panel.seat_leds[turn]
    clock.advance(31.0)
    runner.tick()
    assert led._blink_thread is not None, "the seat on turn blinks"
    assert panel.buzzer._blink_thread is not None
    panel.buzzer._blink_thread.join()
    assert runner.view.penalties[turn] == 5
    panel.close()
