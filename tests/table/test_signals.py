"""Seat LEDs and the buzzer follow the turn clocks: lit on turn, blinking and one buzz when a
limit passes, one more buzz per penalty step, on the GPIO panel (MockFactory pins)."""

from collections.abc import AsyncIterator

import pytest
from gpiozero.pins.mock import MockFactory

from controller.clock import ManualClock
from controller.devices.mcu import LinkMcu
from controller.devices.panel import GpioPanel
from controller.devices.pinout import load_pinout
from controller.rules import get_ruleset
from controller.table import effects as fx
from controller.table.clocks import TableClocks
from controller.table.cycle import HandCycle
from controller.table.log_sink import LogSink
from controller.table.ports import Beep, LightMode
from controller.table.runner import TableRunner
from controller.table.signals import clock_signals, turn_light
from firmware_bridge.link import Link
from firmware_bridge.serial_port import serial_opener
from tests.table.helpers import tile_map

WMC = get_ruleset("zung-jung")
E, S = 0, 1


def test_limit_passing_blinks_and_buzzes_once_then_once_per_step() -> None:
    clocks = TableClocks(WMC.timing, dealt_at=0.0)
    clocks.turn_starts(S, 15.0)
    at_limit = clock_signals(clocks.tick(30.5))  # the limit and the first step together
    assert at_limit == [fx.SeatLight(S, LightMode.BLINK), fx.Sound(Beep.OVERTIME)]
    assert clock_signals(clocks.tick(44.0)) == []
    assert clock_signals(clocks.tick(46.0)) == [fx.Sound(Beep.OVERTIME)]  # the second step
    two_steps_late = clock_signals(clocks.tick(80.0))
    assert two_steps_late == [fx.Sound(Beep.OVERTIME)] * 2


def test_a_seat_over_its_hand_total_starts_its_next_turn_blinking() -> None:
    clocks = TableClocks(WMC.timing, dealt_at=0.0)
    clocks.turn_starts(E, 15.0)
    clocks.turn_ends(E, 15.0 + 190)  # one very slow turn: over both limits
    clocks.turn_starts(E, 300.0)
    assert turn_light(E, clocks.seat_time(E, 300.0).overtime) == [fx.ShowTurn(E, True)]


@pytest.fixture
async def runner(pins: MockFactory) -> AsyncIterator[TableRunner]:
    panel = GpioPanel(load_pinout())
    pins.pin(load_pinout()["estop"]).drive_low()
    mcu = LinkMcu(Link(serial_opener("/dev/null")))  # never opened: no movement is asked for
    yield TableRunner(HandCycle(tile_map(WMC)), mcu, panel, ManualClock(), LogSink())
    panel.close()


async def test_the_runner_shows_the_clock_signals_on_the_panel_pins(
    runner: TableRunner, pins: MockFactory
) -> None:
    pinout = load_pinout()
    led_s, buzzer = pins.pin(pinout["led_s"]), pins.pin(pinout["buzzer"])
    clocks = TableClocks(WMC.timing, dealt_at=0.0)
    clocks.turn_starts(S, 15.0)
    for effect in turn_light(S):
        runner._carry_out(effect)
    assert led_s.state and not pins.pin(pinout["led_e"]).state
    buzzer.clear_states()
    for effect in clock_signals(clocks.tick(31.0)):
        runner._carry_out(effect)
    panel = runner.panel
    assert isinstance(panel, GpioPanel)
    assert panel.seat_leds[S]._blink_thread is not None  # blinking
    assert panel.buzzer._blink_thread is not None
    panel.buzzer._blink_thread.join()
    assert [s.state for s in buzzer.states] == [False, True, False]  # one buzz
    for effect in turn_light(None):
        runner._carry_out(effect)
    assert not led_s.state and panel.seat_leds[S]._blink_thread is None
