"""The GPIO panel on MockFactory pins, as a technician would check it with a meter and a finger."""

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

from controller.devices.panel import STATUS_LIGHTS, GpioPanel
from controller.devices.pinout import load_pinout
from controller.errors import ConfigError
from controller.table.ports import (
    Beep,
    DeclarePressed,
    DicePressed,
    EmergencyStop,
    LightMode,
    StatusPattern,
)


@pytest.fixture
async def panel(pins: MockFactory) -> AsyncIterator[GpioPanel]:
    instance = GpioPanel(load_pinout())
    # The e-stop circuit is closed (safe) when the table is powered normally.
    pins.pin(load_pinout()["estop"]).drive_low()
    yield instance
    instance.close()


async def _settle() -> None:
    for _ in range(3):
        await asyncio.sleep(0)


async def test_buttons_arrive_as_events(panel: GpioPanel, pins: MockFactory) -> None:
    events: list[object] = []
    panel.subscribe(events.append)
    pinout = load_pinout()
    pins.pin(pinout["dice_button"]).drive_low()
    pins.pin(pinout["declare_w"]).drive_low()
    await _settle()
    assert events == [DicePressed(), DeclarePressed(seat=2)]


async def test_emergency_stop_opens_and_closes(panel: GpioPanel, pins: MockFactory) -> None:
    events: list[object] = []
    panel.subscribe(events.append)
    estop = pins.pin(load_pinout()["estop"])
    readings = [panel.emergency_stop_engaged]
    estop.drive_high()
    await _settle()
    readings.append(panel.emergency_stop_engaged)
    estop.drive_low()
    await _settle()
    readings.append(panel.emergency_stop_engaged)
    assert readings == [False, True, False]
    assert events == [EmergencyStop(engaged=True), EmergencyStop(engaged=False)]


async def test_status_led_shows_each_state(panel: GpioPanel) -> None:
    panel.show_status(StatusPattern.READY)
    assert panel.status_led.color == STATUS_LIGHTS[StatusPattern.READY][0]
    panel.show_status(StatusPattern.FAULT)
    assert panel.status == StatusPattern.FAULT
    assert panel.status_led._blink_thread is not None


async def test_turn_led_lights_one_seat(panel: GpioPanel) -> None:
    panel.show_turn(1)
    assert [led.is_lit for led in panel.seat_leds] == [False, True, False, False]
    panel.show_turn(None)
    assert not any(led.is_lit for led in panel.seat_leds)


async def test_a_turn_shown_again_writes_no_pin_and_a_test_blink_is_lit_over(
    panel: GpioPanel, pins: MockFactory
) -> None:
    led_s = pins.pin(load_pinout()["led_s"])
    panel.show_turn(1)
    writes = len(led_s.states)
    panel.show_turn(1)  # the same turn shown again
    assert len(led_s.states) == writes and led_s.state
    panel.test_seat_light(1, times=3)  # a technician's LED test (it ends dark)
    assert panel.seat_leds[1]._blink_thread is not None
    panel.show_turn(1)  # play goes on: the seat is lit steadily again
    assert led_s.state and panel.seat_leds[1]._blink_thread is None


def test_pinout_override_and_conflict(tmp_path: Path) -> None:
    assert load_pinout(overrides={"buzzer": 4})["buzzer"] == 4
    with pytest.raises(ConfigError, match="buzzer and dice_button both use GPIO5"):
        load_pinout(overrides={"buzzer": 5})
    with pytest.raises(ConfigError, match="unknown signal 'horn'"):
        load_pinout(overrides={"horn": 4})


async def test_one_seat_led_blinks_while_the_others_stay(
    panel: GpioPanel, pins: MockFactory
) -> None:
    pinout = load_pinout()
    panel.show_turn(2)
    panel.light_seat(0, LightMode.ON)
    assert pins.pin(pinout["led_e"]).state and pins.pin(pinout["led_w"]).state
    panel.light_seat(2, LightMode.BLINK)
    assert panel.seat_leds[2]._blink_thread is not None
    assert pins.pin(pinout["led_e"]).state and not pins.pin(pinout["led_s"]).state
    panel.light_seat(2, LightMode.OFF)
    assert panel.seat_leds[2]._blink_thread is None
    assert not pins.pin(pinout["led_w"]).state


async def test_overtime_sounds_the_buzzer_once(panel: GpioPanel, pins: MockFactory) -> None:
    buzzer = pins.pin(load_pinout()["buzzer"])
    buzzer.clear_states()
    panel.beep(Beep.OVERTIME)
    thread = panel.buzzer._blink_thread
    assert thread is not None
    thread.join()  # the buzz is over: one rise, one fall
    assert [state.state for state in buzzer.states] == [False, True, False]
