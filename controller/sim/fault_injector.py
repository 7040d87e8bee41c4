"""Two more people at the simulated table: one who injects the hostile faults of a session at
their planned hands, and the technician who clears faults the way the technician's guide
tells one to (clear the jam, then press the dice button) and notes how each fault was
cleared."""

import asyncio
import logging
from dataclasses import dataclass

from controller.sim.fault_profiles import JAM_AFTER_TILES, FaultKind, HubRestarts, Injection
from controller.sim.hardware import Buttons
from controller.table.cycle import Phase, TableView
from controller.table.runner import TableRunner
from firmware_bridge.sim.table import SimulatedTable

log = logging.getLogger(__name__)
TECHNICIAN_WALK_S = 5.0
"""The technician reaches the table this long after a fault (then clears it)."""
TECHNICIAN_TRIES = 3
"""Presses of the dice button before the technician gives up on a fault."""
RESET_INTO_PLAY_S = 0.1
"""An injected MCU reset comes this long after play began."""


INJECTING = "being injected when the session ended"


@dataclass(frozen=True)
class FaultRecord:
    """One fault the table went into, and how it was cleared ('' if it was not)."""

    hand: int | None
    fault: str
    cleared: str = ""


@dataclass(frozen=True)
class Injected:
    """One planned fault and whether it was injected (a session may end before its hand)."""

    injection: Injection
    done: bool
    note: str = ""


class _Watcher:
    """Wakes on every change of the table's view."""

    def __init__(self) -> None:
        self._wake = asyncio.Event()
        self.runner: TableRunner | None = None

    def attach(self, runner: TableRunner) -> None:
        self.runner = runner
        runner.observe(lambda _: self._wake.set())

    async def next_view(self) -> TableView:
        assert self.runner is not None
        self._wake.clear()
        await self._wake.wait()
        return self.runner.view


class FaultInjector:
    """Injects each planned fault at its hand: a jam in that hand's build, an MCU reset or a
    broker or recorder restart during its play."""

    def __init__(
        self,
        table: SimulatedTable,
        plan: tuple[Injection, ...],
        hub: HubRestarts | None = None,
    ) -> None:
        self.table = table
        self.plan = plan
        self.hub = hub
        self._done: dict[Injection, str] = {}
        self._watch = _Watcher()

    def report(self) -> tuple[Injected, ...]:
        """Each planned fault, injected or not."""
        return tuple(
            Injected(i, self._done.get(i, INJECTING) != INJECTING, self._done.get(i, ""))
            for i in self.plan
        )

    async def run(self, runner: TableRunner) -> None:
        """Inject faults as the session reaches their hands, until cancelled."""
        self._watch.attach(runner)
        view = runner.view
        while True:
            for injection in self.plan:
                if injection not in self._done and self._due(injection, view):
                    self._done[injection] = INJECTING
                    self._done[injection] = await self._inject(injection)
                    log.warning("injected %s in hand %d", injection.kind.value, injection.hand)
            view = await self._watch.next_view()

    @staticmethod
    def _due(injection: Injection, view: TableView) -> bool:
        if view.phase is not Phase.PLAYING or view.hand is None:
            return False
        if injection.kind is FaultKind.JAM:  # armed while the hand before is played
            return view.hand == injection.hand - 1
        return view.hand == injection.hand

    async def _inject(self, injection: Injection) -> str:
        kind = injection.kind
        if kind is FaultKind.JAM:
            self.table.jam_next_build(JAM_AFTER_TILES)
            return f"the build jams after {JAM_AFTER_TILES} tiles"
        if kind is FaultKind.MCU_RESET:
            await asyncio.sleep(RESET_INTO_PLAY_S)
            self.table.reset_mcu()
            return "the MCU restarted (watchdog)"
        assert self.hub is not None
        if kind is FaultKind.BROKER_RESTART:
            await self.hub.restart_broker()
            return "the broker was stopped and started again"
        await self.hub.restart_recorder()
        return "the recorder was stopped and started again"


class Technician:
    """Clears each fault the table shows: walks up, clears the cause, presses the dice button
    (which acknowledges it); gives up after `TECHNICIAN_TRIES` presses."""

    def __init__(self, buttons: Buttons, walk_s: float = TECHNICIAN_WALK_S) -> None:
        self.buttons = buttons
        self.walk_s = walk_s
        self.records: list[FaultRecord] = []
        self._watch = _Watcher()

    async def run(self, runner: TableRunner) -> None:
        """Clear faults as they come, until cancelled."""
        self._watch.attach(runner)
        while True:
            view = runner.view
            if view.phase is Phase.FAULT and await self._clear(runner, view):
                continue  # look again at once: another fault may be showing already
            await self._watch.next_view()

    async def _clear(self, runner: TableRunner, view: TableView) -> bool:
        fault = view.fault or "fault"
        index = len(self.records)
        self.records.append(FaultRecord(view.hand, fault))
        for press in range(1, TECHNICIAN_TRIES + 1):
            await asyncio.sleep(self.walk_s)
            if runner.view.phase is not Phase.FAULT:
                how = "cleared by the table itself"
                break
            self.buttons.press_dice()
            if await self._left_fault(runner):
                how = (
                    f"the technician cleared it and pressed the dice button "
                    f"({press} press{'es' if press > 1 else ''}, {press * self.walk_s:g} s)"
                )
                break
        else:
            log.error("the technician could not clear: %s", fault)
            return False
        self.records[index] = FaultRecord(view.hand, fault, how)
        return True

    async def _left_fault(self, runner: TableRunner) -> bool:
        """Wait (at most one walk) for the table to leave the fault state."""
        try:
            async with asyncio.timeout(self.walk_s):
                while runner.view.phase is Phase.FAULT:
                    await self._watch.next_view()
        except TimeoutError:
            return False
        return True
