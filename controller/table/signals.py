"""What the seat LEDs and the buzzer show of the turn clocks. Pure: clock events in, panel
effects out; the runner carries them out on the GPIO panel.

    cycle.emit(*turn_light(seat, clocks.seat_time(seat, now).overtime))  # a turn starts
    cycle.emit(*clock_signals(clocks.tick(now)))                         # after any clock call

The seat on turn has its LED lit (all others off). When its turn or its hand total passes a
limit the LED blinks until the turn ends (and from the start of its later turns while its hand
total stays over) and the buzzer sounds once; it sounds once more for each further penalty
step. Events at one instant (a limit passing and its first step) make one buzz.
"""

from collections.abc import Iterable

from controller.table import effects as fx
from controller.table.clocks import ClockEvent, HandLimitPassed, TurnLimitPassed
from controller.table.ports import Beep, LightMode


def turn_light(seat: int | None, overtime: bool = False) -> list[fx.Effect]:
    """Light the seat now on turn (blinking if it is already over a limit); None: all off."""
    return [fx.ShowTurn(seat, overtime)]


def clock_signals(events: Iterable[ClockEvent]) -> list[fx.Effect]:
    """Blink the seat whose limit passed and buzz once per instant something fell due."""
    effects: list[fx.Effect] = []
    buzzed: set[tuple[int, float]] = set()
    for event in events:
        if isinstance(event, TurnLimitPassed | HandLimitPassed):
            blink = fx.SeatLight(event.seat, LightMode.BLINK)
            if blink not in effects:
                effects.append(blink)
        if (event.seat, event.at) not in buzzed:
            buzzed.add((event.seat, event.at))
            effects.append(fx.Sound(Beep.OVERTIME))
    return effects
