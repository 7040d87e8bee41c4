"""A soak session: the simulated table on virtual time, sending to a real mosquitto and a venue
recorder in the same process (same event loop), both of which the session may restart; the
process's RSS is sampled as hands end."""

import asyncio
import contextlib
import errno
import gc
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiomqtt

from controller.hub.mqtt.aiomqtt_transport import AiomqttConnector
from controller.hub.mqtt.transport import BrokerAddress
from controller.sim.demo import DemoPlan, DemoSession, Outcome
from controller.table.records import FinishedHand
from controller.venue.async_store import AsyncStore
from controller.venue.program import RecorderPlan, open_recorder
from controller.venue.recorder import Recorder
from devsupport.mosquitto import Broker

KEY = "a1b2c3d4e5f60718293a4b5c6d7e8f90"
RSS_EVERY = 50
"""The soak samples the process's RSS after every this many hands."""


def rss_bytes() -> int:
    """This process's resident set size now."""
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE")


class RecorderInProcess:
    """The venue recorder on the running loop, with its store file; restartable."""

    def __init__(self, broker: Broker, workdir: Path, table: str = "sim-table") -> None:
        self.broker = broker
        self.keys = workdir / "hub-keys.toml"
        self.keys.write_text(f'[tables]\n{table} = "{KEY}"\n')
        self.keys.chmod(0o600)
        self.db = workdir / "hub.sqlite3"
        self.recorder: Recorder | None = None
        self.store: AsyncStore | None = None
        self._task: asyncio.Task[None] | None = None
        self.restarts = 0

    async def start(self) -> None:
        """Open the store, connect to the broker and record."""
        plan = RecorderPlan(name="soak-hub", keys_path=self.keys, db=str(self.db))
        address = BrokerAddress.from_url(
            self.broker.url, client_id="mahjong-hub-soak", persistent=True
        )  # as `mahjong-table hub` connects: the broker keeps its messages while it is away
        connector = AiomqttConnector(address)
        self.recorder, self.store = open_recorder(plan, connector)
        self._task = asyncio.create_task(self.recorder.run(), name="recorder")
        await self.recorder.connected.wait()

    async def stop(self) -> None:
        """Stop recording and close the store."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        if self.store is not None:
            self.store.close()
            self.store = None

    async def restart_recorder(self) -> None:
        """HubRestarts: stop, then start again on the same store."""
        await self.stop()
        self.restarts += 1
        await self.start()

    async def restart_broker(self) -> None:
        """HubRestarts: the broker stops (saving its state) and starts on the same port."""
        await asyncio.get_running_loop().run_in_executor(None, self.broker.restart)


@dataclass
class SoakRun:
    """What one soak session left behind."""

    outcome: Outcome
    rss_after: dict[int, int] = field(default_factory=dict)
    """RSS by hands finished (every RSS_EVERY hands)."""
    errors: list[logging.LogRecord] = field(default_factory=list)
    """Log records with a traceback (an exception caught only to be logged)."""
    unhandled: list[str] = field(default_factory=list)
    """What the event loop reported: exceptions nobody handled (tasks, futures, callbacks)."""
    aiomqtt_quirks: int = 0
    """Reports of the aiomqtt races `aiomqtt_quirk` names."""


class _Tracebacks(logging.Handler):
    def __init__(self, into: list[logging.LogRecord]) -> None:
        super().__init__(logging.ERROR)
        self.into = into

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info and record.name != "asyncio":  # asyncio's come via the loop
            self.into.append(record)


def aiomqtt_quirk(context: dict[str, Any]) -> bool:
    """Two known aiomqtt races at a broker restart, where nothing of ours raised: its own
    "disconnected" future failed while no one waited on it (asyncio reports it when the
    client is collected), and the watch it asks the loop to put on paho's socket arriving
    after the socket closed (EBADF). Anything else the loop reports counts."""
    error = context.get("exception")
    future = context.get("future")
    if isinstance(future, asyncio.Future) and not isinstance(future, asyncio.Task):
        return isinstance(error, aiomqtt.MqttError)
    callback = getattr(context.get("handle"), "_callback", None)
    return (
        isinstance(error, OSError)
        and error.errno == errno.EBADF
        and getattr(callback, "__name__", "") in {"add_reader", "add_writer"}
    )


async def soak(plan: DemoPlan, scratch: Path, recorder: RecorderInProcess) -> SoakRun:
    """Play `plan` against the running recorder; sample RSS after each hand. The log goes to
    `scratch/soak.log`, not to the test runner's capture: that keeps every record in memory,
    and a noisy line logs tens of megabytes in 200 hands (the RSS must be the table's)."""
    rss: dict[int, int] = {}
    errors: list[logging.LogRecord] = []
    handler = _Tracebacks(errors)
    root = logging.getLogger()
    runner_handlers = root.handlers[:]
    for other in runner_handlers:
        root.removeHandler(other)
    to_file = logging.FileHandler(scratch / "soak.log")
    to_file.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    root.addHandler(to_file)
    root.addHandler(handler)
    loop = asyncio.get_running_loop()
    unhandled: list[str] = []
    lost = [0]

    def on_loop_error(_: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        if aiomqtt_quirk(context):
            lost[0] += 1
        else:
            unhandled.append(f"{context.get('message')}: {context.get('exception')!r}")

    loop.set_exception_handler(on_loop_error)

    finished = [0]

    def sample(_: FinishedHand) -> None:
        finished[0] += 1
        if finished[0] % RSS_EVERY == 0:
            gc.collect()  # garbage waiting for the collector is not what the soak looks for
            rss[finished[0]] = rss_bytes()

    try:
        outcome = await DemoSession(plan, scratch, on_result=sample).run()
    finally:
        root.removeHandler(handler)
        root.removeHandler(to_file)
        to_file.close()
        for other in runner_handlers:
            root.addHandler(other)
    return SoakRun(outcome, rss, errors, unhandled, lost[0])
