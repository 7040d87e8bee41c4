"""A whole table in the test: the daemon's composition root on the simulated table, its panel
on MockFactory pins, four simulated players, a manual clock that moves only when the table
has gone quiet, and results kept in memory."""

import asyncio
import contextlib
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from types import TracebackType
from typing import Any, ParamSpec, TypeVar

from controller.app import Hardware, Service, TableApp
from controller.clock import ManualClock
from controller.config import (
    ControlSection,
    OutboxSection,
    SessionSection,
    TableConfig,
    TableSection,
)
from controller.devices.panel import GpioPanel
from controller.disk import Disk
from controller.sim.hardware import SimulatedHardware
from controller.sim.players import Habits, SimulatedPlayers
from controller.systemd import SystemdNotifier
from controller.table.cycle import HandCycle, Phase, TableView
from controller.table.log_sink import LogSink
from firmware_bridge.sim.faults import Faults

P = ParamSpec("P")
T = TypeVar("T")

YIELDS = 40
"""Event-loop turns without any input handled that count as 'the table is quiet'."""


class _CountedExecutor(ThreadPoolExecutor):
    """The event loop's default executor in a rig, which knows the jobs it has not finished:
    the serial code opens and closes a port on it, and a table waiting for its port is not
    quiet, however long a busy machine takes to run the job."""

    def __init__(self) -> None:
        super().__init__(thread_name_prefix="rig")
        self.pending: set[Future[Any]] = set()

    def submit(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> "Future[T]":
        future = super().submit(fn, *args, **kwargs)
        self.pending.add(future)
        future.add_done_callback(self.pending.discard)
        return future


class Rig:
    """`async with Rig(...) as rig:` powers a simulated table with the daemon on it."""

    def __init__(
        self,
        tmp_path: Path,
        ruleset: str = "zung-jung",
        *,
        hands: int = 2,
        seed: int = 0,
        faults: Faults | None = None,
        habits: Habits | None = None,
        speed: float = 0.0,
        over_pty: bool = False,
        players: bool = True,
        seating_draw: bool = True,
        config: TableConfig | None = None,
        notifier: SystemdNotifier | None = None,
        tileset: Path | None = None,
        app_sink: bool = False,
        services: tuple[tuple[str, Service], ...] | None = None,
        files: Disk | None = None,
    ) -> None:
        self.sim = SimulatedHardware(
            tmp_path, seed=seed, speed=speed, faults=faults, over_pty=over_pty
        )
        config = config or TableConfig(
            table=TableSection(ruleset=ruleset),
            session=SessionSection(hands=hands, seating_draw=seating_draw),
            outbox=OutboxSection(path=tmp_path / "outbox.sqlite3"),
        )
        # The control socket in the test's folder, never the host's /run (nor another test's).
        self.config = replace(config, control=ControlSection(socket=tmp_path / "control.sock"))
        self.clock = ManualClock()
        self.sink = LogSink(keep=None)
        self.notifier = notifier or SystemdNotifier({})
        self.tileset = tileset
        self.app_sink = app_sink
        self.services = services
        self.files = files
        """The daemon's disk (None: the real one)."""
        self.players = SimulatedPlayers(self.sim.table, self.sim.buttons, habits, keep=True)
        self.with_players = players
        self._task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> "Rig":
        self._executor = _CountedExecutor()
        asyncio.get_running_loop().set_default_executor(self._executor)
        opener = await self.sim.start()
        self.panel: GpioPanel = self.sim.panel()
        services: tuple[tuple[str, Service], ...] = ()
        if self.services is not None:
            services = self.services
        elif self.with_players:
            services = (("simulated players", self.players.run),)
        tileset = self.tileset or self.sim.write_tileset()
        hardware = Hardware(opener, self.panel, tileset, services, self.sim.stop)
        self.app = TableApp(
            self.config,
            hardware,
            clock=self.clock,
            notifier=self.notifier,
            sink=None if self.app_sink else self.sink,
            tick_s=3600,
            restart_s=0.01,
            files=self.files,
        )
        self._task = asyncio.create_task(self.app.run())
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        assert self._task is not None
        if not self._task.done():
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def stopped(self) -> None:
        """Wait for the daemon to end on its own (a bug ends it)."""
        assert self._task is not None
        await self._task

    @property
    def cycle(self) -> HandCycle:
        """The hand cycle inside the daemon."""
        return self.app.cycle

    @property
    def view(self) -> TableView:
        """What the technician sees."""
        return self.app.runner.view

    async def until(
        self, wanted: Callable[[TableView], bool], step: float = 0.5, limit: float = 900.0
    ) -> TableView:
        """Let the table run, moving the clock on whenever it is quiet, until `wanted`."""
        spent = 0.0
        while not wanted(self.view):
            if await self.quiet():
                self.clock.advance(step)
                spent += step
                self.app.runner.tick()
                if spent > limit:
                    raise AssertionError(f"the table never got there; it shows {self.view}")
        return self.view

    async def until_phase(self, *phases: Phase) -> TableView:
        """Run until the table shows one of `phases`."""
        return await self.until(lambda view: view.phase in phases)

    async def acknowledge(self) -> TableView:
        """A technician presses the dice button to go on after a fault."""
        self.sim.buttons.press_dice()
        return await self.until(lambda view: view.phase is not Phase.FAULT)

    async def quiet(self) -> bool:
        """True if no input reached the table for a while: over a pty, that includes no bytes
        still in the kernel between the two ends (counted at both), and no job on a thread
        (a port being opened, a file being written) the table is waiting for."""
        before = self.app.runner.handled
        for _ in range(YIELDS):
            await asyncio.sleep(0)
        while True:
            if jobs := self._jobs():
                await asyncio.wait(jobs)
                for _ in range(YIELDS):  # what the job's end set going
                    await asyncio.sleep(0)
            elif self._bytes_in_flight():
                # The kernel moves pty bytes on its own, with no event to wait on: each loop
                # turn (no timer) reads what has come, until the counts at both ends agree.
                await asyncio.sleep(0)
            else:
                return self.app.runner.handled == before

    def _jobs(self) -> "set[asyncio.Future[Any]]":
        """The rig's executor jobs not yet done, and the daemon's disk worker's (awaitable)."""
        jobs = {asyncio.wrap_future(job) for job in list(self._executor.pending)}
        if self.app.disk.busy:
            jobs.add(asyncio.ensure_future(self.app.disk.call(lambda: None)))  # after its queue
        return jobs

    def _bytes_in_flight(self) -> bool:
        pty = self.sim.table.pty
        if pty is None:
            return False
        link = self.app.mcu.link.stats()
        # `<`: the host also writes bytes of its own outside frames (a delimiter as it opens).
        return pty.bytes_read < link.bytes_sent or link.bytes_received < pty.bytes_written

    def commands(self) -> list[str]:
        """The names of the commands the table MCU ran, in order."""
        return [type(command).__name__ for command in self.sim.table.mcu.commands]
