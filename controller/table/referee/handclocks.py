"""The referee's hold on the hand's clocks: the turn and hand clocks (started at the first
input), what they said during the input being handled, and whether a fault stopped them.
Changed only through the steps below; `timing` decides which moves start and stop a turn."""

from collections.abc import Sequence

from controller.rules.timing import TimingRules
from controller.table.clocks import ClockEvent, TableClocks


class HandClocks:
    """The clocks of one hand, and what they said during the present input."""

    def __init__(self) -> None:
        self._clocks: TableClocks | None = None
        self._events: list[ClockEvent] = []
        self._paused = False

    @property
    def clocks(self) -> TableClocks | None:
        """The turn and hand clocks (None before the first input)."""
        return self._clocks

    @property
    def events(self) -> Sequence[ClockEvent]:
        """What the clocks said during the input being handled."""
        return self._events

    @property
    def paused(self) -> bool:
        """A fault has stopped the clocks."""
        return self._paused

    def new_input(self) -> None:
        """An input is handled: nothing said during it yet."""
        self._events = []

    def start(self, rules: TimingRules, t: float) -> TableClocks | None:
        """The clocks start now (None: they had started already)."""
        if self._clocks is not None:
            return None
        self._clocks = TableClocks(rules, t)
        return self._clocks

    def said(self, events: Sequence[ClockEvent]) -> None:
        """The clocks said these during the present input."""
        self._events.extend(events)

    def pause(self) -> bool:
        """A fault stops the clocks (False: they were stopped already)."""
        if self._paused:
            return False
        self._paused = True
        return True

    def resume(self) -> bool:
        """Play goes on after a fault (False: the clocks were not stopped)."""
        if not self._paused:
            return False
        self._paused = False
        return True
