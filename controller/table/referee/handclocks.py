"""The referee's hold on the hand's clocks: the turn and hand clocks (started at the first
input), what they said during the input being handled, and whether a fault stopped them.
Changed only through the steps below (the referee holds them as `ClockSteps`, whose fields
are read-only); `timing` decides which moves start and stop a turn."""

from collections.abc import Sequence
from typing import Protocol

from controller.rules.timing import TimingRules
from controller.table.clocks import ClockEvent, TableClocks


class ClockSteps(Protocol):
    """The hand's clocks as the referee holds them: fields read-only, changed by the steps."""

    @property
    def clocks(self) -> TableClocks | None:
        """The turn and hand clocks (None before the first input)."""

    @property
    def events(self) -> Sequence[ClockEvent]:
        """What the clocks said during the input being handled."""

    @property
    def paused(self) -> bool:
        """A fault has stopped the clocks."""

    def new_input(self) -> None:
        """An input is handled: nothing said during it yet."""

    def start(self, rules: TimingRules, t: float) -> TableClocks:
        """The clocks start now."""

    def said(self, events: Sequence[ClockEvent]) -> None:
        """The clocks said these during the present input."""

    def pause(self) -> bool:
        """A fault stops the clocks (False: they were stopped already)."""

    def resume(self) -> bool:
        """Play goes on after a fault (False: the clocks were not stopped)."""


class HandClocks:
    """The clocks of one hand, and what they said during the present input (held as
    `ClockSteps`)."""

    def __init__(self) -> None:
        self.clocks: TableClocks | None = None
        self.events: list[ClockEvent] = []
        self.paused = False

    def new_input(self) -> None:
        self.events = []

    def start(self, rules: TimingRules, t: float) -> TableClocks:
        self.clocks = TableClocks(rules, t)
        return self.clocks

    def said(self, events: Sequence[ClockEvent]) -> None:
        self.events.extend(events)

    def pause(self) -> bool:
        if self.paused:
            return False
        self.paused = True
        return True

    def resume(self) -> bool:
        if not self.paused:
            return False
        self.paused = False
        return True
