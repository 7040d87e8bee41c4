"""Recorded conversations with the table MCU, and a port that plays the MCU's side back.

A trace is a JSON-lines file: one line per frame the host wrote (`"tx"`) and per chunk of bytes
the MCU sent (`"rx"`), in the order they happened, as hex. `ReplayPort` checks each frame the
link writes against the next recorded one and answers with the bytes the MCU sent after it, so
the link's decoding, sequencing and gap handling are tested against a real conversation with
no MCU at all (as python-kasa replays device captures).

Re-record the traces after a protocol change: `.venv/bin/python -m tests.firmware_bridge.traces`.
"""

import asyncio
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from firmware_bridge.events import Resynced
from firmware_bridge.frame import Frame, decode_frame
from firmware_bridge.link import Link, LinkSettings
from firmware_bridge.messages import (
    BuildWalls,
    MotionDone,
    Ping,
    RaiseWalls,
    RollDice,
    TileSetKind,
)
from firmware_bridge.port import Port, PortListener, PortOpener
from firmware_bridge.sim.table import SimulatedTable

TRACES = Path(__file__).parent / "traces"
QUIET = LinkSettings(heartbeat_interval=3600, silence_timeout=7200, connect_timeout=5)
"""No heartbeats: what the link writes depends only on what it is asked and what it hears."""


@dataclass(frozen=True)
class Step:
    """One recorded write of the host or chunk from the MCU."""

    direction: str
    data: bytes


def load(name: str) -> list[Step]:
    """The steps of `traces/<name>.jsonl`."""
    lines = (TRACES / f"{name}.jsonl").read_text().splitlines()
    return [Step(row["dir"], bytes.fromhex(row["hex"])) for row in map(json.loads, lines)]


def _frame(data: bytes) -> Frame:
    return decode_frame(data.rstrip(b"\0"))


# ---- recording ---------------------------------------------------------------------------


class _Tap:
    """Between a link and a port: writes down both directions."""

    def __init__(self, steps: list[Step], listener: PortListener) -> None:
        self.steps = steps
        self.listener = listener
        self.port: Port | None = None

    def write(self, data: bytes) -> None:
        for chunk in data.split(b"\0"):
            if chunk:
                self.steps.append(Step("tx", chunk + b"\0"))
        assert self.port is not None
        self.port.write(data)

    def close(self) -> None:
        assert self.port is not None
        self.port.close()

    def data_received(self, data: bytes) -> None:
        self.steps.append(Step("rx", data))
        self.listener.data_received(data)

    def connection_lost(self, exc: Exception | None) -> None:
        self.listener.connection_lost(exc)


def recording(opener: PortOpener, steps: list[Step]) -> PortOpener:
    """An opener that records everything through `opener` into `steps`."""

    async def open_port(listener: PortListener) -> Port:
        tap = _Tap(steps, listener)
        tap.port = await opener(tap)
        return tap

    return open_port


# ---- replaying ---------------------------------------------------------------------------


@dataclass
class ReplayPort:
    """Plays the MCU's side of a trace to whatever the link writes."""

    steps: list[Step]
    listener: PortListener | None = None
    position: int = 0
    mismatches: list[str] = field(default_factory=list)

    def opener(self) -> PortOpener:
        """A PortOpener for a Link."""

        async def open_port(listener: PortListener) -> Port:
            self.listener = listener
            return self

        return open_port

    def write(self, data: bytes) -> None:
        """The link wrote a frame: it must be the next one recorded; the MCU's answer follows."""
        for chunk in data.split(b"\0"):
            if chunk:
                self._host_frame(chunk + b"\0")

    def _host_frame(self, data: bytes) -> None:
        self._deliver_until_tx()
        if self.position >= len(self.steps):
            self.mismatches.append(f"wrote past the end of the trace: {_frame(data).describe()}")
            return
        expected = self.steps[self.position]
        # The ack byte says how many events the host had seen when it wrote; an event and a
        # write racing each other may order differently than when recorded.
        if _frame(expected.data)._replace(ack=0) != _frame(data)._replace(ack=0):
            self.mismatches.append(
                f"step {self.position}: wrote {_frame(data).describe()}, "
                f"recorded {_frame(expected.data).describe()}"
            )
        self.position += 1
        asyncio.get_running_loop().call_soon(self._deliver_until_tx)

    def _deliver_until_tx(self) -> None:
        while self.position < len(self.steps) and self.steps[self.position].direction == "rx":
            data = self.steps[self.position].data
            self.position += 1
            assert self.listener is not None
            self.listener.data_received(data)

    @property
    def finished(self) -> bool:
        """Every recorded step was played."""
        return self.position >= len(self.steps)

    def close(self) -> None:
        """The link closed the port."""


# ---- the conversations -------------------------------------------------------------------


async def pings(link: Link, _: SimulatedTable | None) -> None:
    """Handshake, then ten pings in one window."""
    await asyncio.gather(*(link.request(Ping(token)) for token in range(10)))


async def build_and_raise(link: Link, _: SimulatedTable | None) -> None:
    """Build a 136-tile wall (a tile event each), raise it, roll the dice."""
    events = link.subscribe(MotionDone)
    await link.request(BuildWalls(TileSetKind.NO_FLOWERS_136, 34, 2, 60_000))
    await events.next(MotionDone)
    await link.request(RaiseWalls(10_000))
    await events.next(MotionDone)
    await link.request(RollDice(5_000))
    await events.next(MotionDone)


async def lost_events(link: Link, sim: SimulatedTable | None) -> None:
    """The first two tile events of a build are lost: a gap, then the state re-read."""
    events = link.subscribe(MotionDone, Resynced)
    if sim is not None:
        sim.drop_next_events(2)
    await link.request(BuildWalls(TileSetKind.NO_FLOWERS_136, 34, 2, 60_000))
    seen: set[type] = set()
    while seen != {MotionDone, Resynced}:
        seen.add(type(await events.get()))


Conversation = Callable[[Link, SimulatedTable | None], Awaitable[None]]
CONVERSATIONS: dict[str, Conversation] = {
    "pings": pings,
    "build_and_raise": build_and_raise,
    "lost_events": lost_events,
}


async def record(name: str, conversation: Conversation) -> list[Step]:
    """Hold `conversation` with a fresh simulated table (seed 7, instant machine)."""
    steps: list[Step] = []
    sim = SimulatedTable(seed=7, speed=0, inventory_period=None)
    async with sim, Link(recording(sim.memory_opener(), steps), QUIET) as link:
        await conversation(link, sim)
    return steps


def save(name: str, steps: list[Step]) -> Path:
    """Write a trace file."""
    path = TRACES / f"{name}.jsonl"
    rows = (json.dumps({"dir": step.direction, "hex": step.data.hex()}) for step in steps)
    path.write_text("\n".join(rows) + "\n")
    return path


async def _record_all() -> None:
    TRACES.mkdir(exist_ok=True)
    for name, conversation in CONVERSATIONS.items():
        print(save(name, await record(name, conversation)))


if __name__ == "__main__":
    asyncio.run(_record_all())
