"""The control panel on the Pi's GPIO through gpiozero: buttons, seat LEDs, status LED, buzzer,
emergency stop and the MCU reset line. Tests and `--sim` run it on gpiozero's MockFactory."""

import asyncio
import logging
import threading
from collections.abc import Callable
from typing import Any

from gpiozero import LED, RGBLED, Button, Buzzer, DigitalOutputDevice

from controller.devices.pinout import Pinout
from controller.table.ports import (
    SEATS,
    Beep,
    DeclarePressed,
    DicePressed,
    EmergencyStop,
    LightMode,
    PanelEvent,
    StatusPattern,
)

log = logging.getLogger(__name__)

Colour = tuple[float, float, float]
# (colour, on seconds, off seconds); off 0 = steady. A technician reads these from across a hall.
STATUS_LIGHTS: dict[StatusPattern, tuple[Colour, float, float]] = {
    StatusPattern.IDLE: ((0.0, 0.0, 0.3), 0.0, 0.0),
    StatusPattern.BUILDING: ((0.0, 0.0, 1.0), 0.5, 0.5),
    StatusPattern.READY: ((0.0, 1.0, 0.0), 0.0, 0.0),
    StatusPattern.PLAYING: ((0.0, 1.0, 0.0), 1.5, 0.25),
    StatusPattern.FAULT: ((1.0, 0.0, 0.0), 0.2, 0.2),
}
BEEPS: dict[Beep, tuple[float, float, int]] = {
    Beep.ACK: (0.05, 0.05, 1),
    Beep.WARNING: (0.1, 0.1, 3),
    Beep.ALARM: (0.5, 0.5, 10),
    Beep.OVERTIME: (0.15, 0.1, 1),
}
OVERTIME_BLINK_S = 0.25
TEST_BLINK_S = 0.3
"""On and off time of an LED blinked for a technician's test."""
DEBOUNCE_S = 0.02
# No button uses "held"; a short hold time lets a pressed button's watcher thread stop quickly.
HOLD_S = 0.05


def _button(pin: int) -> Button:
    return Button(pin, bounce_time=DEBOUNCE_S, hold_time=HOLD_S)


class GpioPanel:
    """The Panel port on real (or MockFactory) pins."""

    def __init__(self, pinout: Pinout, loop: asyncio.AbstractEventLoop | None = None) -> None:
        self._loop = loop or asyncio.get_running_loop()
        self._handlers: list[Callable[[PanelEvent], None]] = []
        self._diag_handlers: list[Callable[[PanelEvent], None]] = []
        self._held = False
        self.status = StatusPattern.IDLE
        self.dice = Button(pinout["dice_button"], bounce_time=DEBOUNCE_S)
        self.declare = [
            Button(pinout[f"declare_{s.lower()}"], bounce_time=DEBOUNCE_S) for s in SEATS
        ]
        self.seat_leds = [LED(pinout[f"led_{s.lower()}"]) for s in SEATS]
        self._seat_modes: list[LightMode | None] = [None] * len(SEATS)
        """What each seat LED was last set to show (None: not known)."""
        self.status_led = RGBLED(
            pinout["status_red"], pinout["status_green"], pinout["status_blue"]
        )
        self.buzzer = Buzzer(pinout["buzzer"])
        # Normally closed: pulled up, reads "pressed" (low) while the circuit is intact.
        self.estop = _button(pinout["estop"])
        self.mcu_reset = DigitalOutputDevice(pinout["mcu_reset"], active_high=False)
        self._wire_inputs()
        self.show_status(StatusPattern.IDLE)

    def _wire_inputs(self) -> None:
        self.dice.when_pressed = lambda: self._emit(DicePressed())
        for seat, button in enumerate(self.declare):
            button.when_pressed = self._declare_callback(seat)
        self.estop.when_released = lambda: self._emit(EmergencyStop(engaged=True))
        self.estop.when_pressed = lambda: self._emit(EmergencyStop(engaged=False))

    def _declare_callback(self, seat: int) -> Callable[[], None]:
        return lambda: self._emit(DeclarePressed(seat))

    def _emit(self, event: PanelEvent) -> None:
        # gpiozero calls back on its own thread; handlers run on the event loop.
        self._loop.call_soon_threadsafe(self._dispatch, event)

    def _dispatch(self, event: PanelEvent) -> None:
        log.debug("panel: %s", event)
        for handler in self._diag_handlers:
            handler(event)
        if self._held and not isinstance(event, EmergencyStop):
            return  # a technician's test press: the table must not act on it
        for handler in self._handlers:
            handler(event)

    def subscribe(self, handler: Callable[[PanelEvent], None]) -> None:
        """Call `handler` on the event loop for every panel event."""
        self._handlers.append(handler)

    def subscribe_diag(self, handler: Callable[[PanelEvent], None]) -> Callable[[], None]:
        """Like `subscribe`, for diagnostics: also called while the buttons are held back;
        returns the way to stop."""
        self._diag_handlers.append(handler)
        return lambda: self._diag_handlers.remove(handler)

    def hold_buttons(self, held: bool) -> None:
        """While held, button presses reach only diagnostics, not the table (a press during
        a self-test must not roll dice or acknowledge a fault); the e-stop always gets through."""
        self._held = held

    def show_status(self, pattern: StatusPattern) -> None:
        """Steady or blinking colour per table state."""
        self.status = pattern
        colour, on_s, off_s = STATUS_LIGHTS[pattern]
        if off_s:
            self.status_led.blink(on_time=on_s, off_time=off_s, on_color=colour)
        else:
            self.status_led.color = colour

    def show_turn(self, seat: int | None, overtime: bool = False) -> None:
        """One seat LED on (blinking when over time), the others off."""
        lit = LightMode.BLINK if overtime else LightMode.ON
        for index in range(len(self.seat_leds)):
            self.light_seat(index, lit if index == seat else LightMode.OFF)

    def light_seat(self, seat: int, mode: LightMode) -> None:
        """One seat LED off, lit or blinking; the others stay as they are."""
        if self._seat_modes[seat] is mode:
            return  # as it is: a blink goes on in its rhythm (and no pin is written)
        self._seat_modes[seat] = mode
        led = self.seat_leds[seat]
        if mode is LightMode.BLINK:
            led.blink(on_time=OVERTIME_BLINK_S, off_time=OVERTIME_BLINK_S)
        elif mode is LightMode.ON:
            led.on()
        else:
            led.off()

    def test_seat_light(self, seat: int, times: int) -> None:
        """Blink a seat LED `times` times for a technician's test (then it is off)."""
        self._seat_modes[seat] = None
        self.seat_leds[seat].blink(on_time=TEST_BLINK_S, off_time=TEST_BLINK_S, n=times)

    def beep(self, sound: Beep) -> None:
        """Sound a short pattern on the buzzer, in the background."""
        on_s, off_s, count = BEEPS[sound]
        self.buzzer.beep(on_time=on_s, off_time=off_s, n=count)

    @property
    def emergency_stop_engaged(self) -> bool:
        """The e-stop circuit is open (button pressed or wire broken)."""
        return not self.estop.is_pressed

    def pulse_mcu_reset(self) -> None:
        """Hold the MCU in reset for 100 ms (a technician's last resort before a power cycle)."""
        self.mcu_reset.blink(on_time=0.1, off_time=0, n=1)

    def close(self) -> None:
        """Release every pin."""
        devices: list[Any] = [self.dice, *self.declare, *self.seat_leds, self.status_led]
        devices += [self.buzzer, self.estop, self.mcu_reset]
        # Each button's hold thread takes ~0.1 s to stop; stop them side by side.
        closers = [threading.Thread(target=device.close) for device in devices]
        for closer in closers:
            closer.start()
        for closer in closers:
            closer.join()
