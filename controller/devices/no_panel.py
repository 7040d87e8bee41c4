"""The Panel port of a table without a control panel (`[gpio] enabled = false`): a bench table
driven from the hub and `diag`; lights and sounds go nowhere, no button is ever pressed."""

import logging
from collections.abc import Callable

from controller.table.ports import Beep, LightMode, PanelEvent, StatusPattern

log = logging.getLogger(__name__)


class NoPanel:
    """No buttons, no lights; the emergency stop is not wired (never engaged)."""

    def subscribe(self, handler: Callable[[PanelEvent], None]) -> None:
        """Nothing will ever be pressed."""

    def show_status(self, pattern: StatusPattern) -> None:
        """Logged at debug level instead of lit."""
        log.debug("status light (no panel): %s", pattern.name.lower())

    def show_turn(self, seat: int | None, overtime: bool = False) -> None:
        """No seat LEDs."""

    def light_seat(self, seat: int, mode: LightMode) -> None:
        """No seat LEDs."""

    def beep(self, sound: Beep) -> None:
        """No buzzer."""

    @property
    def emergency_stop_engaged(self) -> bool:
        """No emergency stop circuit on a bench table."""
        return False

    def close(self) -> None:
        """No pins to release."""
