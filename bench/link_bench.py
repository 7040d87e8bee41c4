"""Link benchmark: request/response round trips over a pty, the link against two clients that
do no protocol work, measured in the same run; plus framing overhead.

    .venv/bin/python bench/link_bench.py [--count 2000] [--rounds 5]
                                         [--firmware BINARY | --simulator] [--profile]
    .venv/bin/python bench/link_bench.py --in-process | --instructions

The far end is the host build of the C firmware, the code a table's MCU runs (made in a
temporary folder with make; --firmware BINARY names a build), or with --simulator, or where
no C compiler is at hand, the Python MCU simulator. A table's MCU is a chip of its own that
answers within microseconds; the simulator spends some 50 us of Python on each reply on the
same cores as the client, which leaves the client's caches colder after every wait (the raw
client below pays for that too). Its round trips also check the protocol's reply-time budget
(an answer within 10 ms). Every server runs in its own process behind a pseudo-terminal and
is reached through the same serial_port (pyserial-asyncio-fast).

Three clients, one round each per repeat, their order turned around at every repeat (link,
raw, echo; echo, raw, link; ...) so that none always runs first or after the same one:
- the link: `Link.request(Ping(n))`, the daemon's whole path;
- the raw client: writes a ready-made ping frame to a second instance of the same far end and
  waits for the reply's frame end: the same bytes, the same MCU, the same wait, and no
  protocol work (the fair baseline for the link's CPU);
- the echo client: writes the same frame to a raw pty echo (a blocking loop) and counts the
  bytes coming back (the floor for a request over asyncio and a serial port: its far end
  answers at once).

Figures: round trips per second; the client's CPU per round trip (this process's user +
system time over the round divided by its round trips): what the table's daemon pays; warm
(after 200 round trips on each connection, the median and range of the per-repeat ratios)
and cold (the first 200 round trips of each fresh connection, one figure each).
The goal: the link's client CPU <= 1.5x the baseline's. --profile adds a cProfile of one
more link round (the top functions by own time).

--in-process measures the link's own Python work, without the pty and the other process
whose wake-ups make the figures above swing with the machine's load: the link and an echo
client in one process, each on a port that answers on the next turn of the event loop (the
link's port with the MCU session's reply to each frame, computed once and kept), 30
interleaved rounds of 2000 round trips; the CPU per round trip, minimum and median.

--instructions counts the CPU instructions per round trip of the same two in one process
under valgrind's cachegrind: a figure the load of the machine does not move (the two timings
above swing with it).
"""

import argparse
import asyncio
import contextlib
import cProfile
import functools
import io
import os
import pstats
import pty
import re
import statistics
import subprocess
import sys
import tempfile
import time
import tty
from collections.abc import Awaitable, Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from firmware_bridge.fields import Message, encode_payload
from firmware_bridge.frame import OVERHEAD, Flag, Frame, FrameDecoder, encode_frame
from firmware_bridge.link import Link, LinkSettings
from firmware_bridge.link_stats import percentile_ms
from firmware_bridge.messages import (
    HeartbeatReply,
    Identify,
    IdentifyReply,
    Ping,
    Pong,
    WallTile,
    Zone,
    ZoneInventory,
)
from firmware_bridge.port import Port, PortListener
from firmware_bridge.serial_port import serial_opener
from firmware_bridge.sim.firmware import FIRMWARE_DIR
from firmware_bridge.sim.mcu import SoftwareMcu
from firmware_bridge.sim.model import TableModel
from firmware_bridge.sim.session import McuSession

COLD = 200
"""Round trips counted as cold on a fresh connection (and the warm-up before warm rounds)."""


def echo_server() -> None:
    """Serve a raw pty echo: print its path, then send back every byte received, in a plain
    blocking loop (no event loop between a read and its write: the far end answers at once)."""
    master, slave = pty.openpty()
    for fd in (master, slave):
        tty.setraw(fd)
    print(os.ttyname(slave), flush=True)
    with contextlib.suppress(OSError):  # (the line is gone: the bench is over)
        while True:
            os.write(master, os.read(master, 4096))


def start(command: list[str]) -> tuple[subprocess.Popen[str], str]:
    """Start a server process; returns it and the first line it prints."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    return process, process.stdout.readline().strip()


def ping_frame(seq: int) -> bytes:
    """The ping the link sends as command `seq` (token = seq)."""
    return encode_frame(Frame(Ping.TYPE, encode_payload(Ping(seq)), seq & 0xFF))


Round = tuple[list[float], float]
"""Round-trip times (s) of a round and the client's CPU seconds per round trip."""


class _Waiter:
    """Resolves a future once `target` units (bytes or frame ends) have come."""

    def __init__(self) -> None:
        self.count = 0
        self.waiting: tuple[int, asyncio.Future[None]] | None = None

    def connection_lost(self, exc: Exception | None) -> None:
        """Nothing to do."""

    def _arrived(self, units: int) -> None:
        self.count += units
        if self.waiting and self.count >= self.waiting[0]:
            self.waiting[1].set_result(None)
            self.waiting = None

    def round_trip(self, port: Port, data: bytes, units: int) -> asyncio.Future[None]:
        """Write `data`; the future is done once `units` have come back. (A future, not a
        coroutine: the link's request hands its caller the reply's future too, and each client
        is timed through the same `timed`, with no coroutine of its own per round trip.)"""
        future = asyncio.get_running_loop().create_future()
        self.waiting = (self.count + units, future)
        port.write(data)
        return future


class EchoClient(_Waiter):
    """Waits until as many bytes came back as it wrote."""

    def data_received(self, data: bytes) -> None:
        self._arrived(len(data))


class RawClient(_Waiter):
    """Waits for the end of the MCU's reply frame; reads frames only while it identifies."""

    def __init__(self) -> None:
        super().__init__()
        self.decoder: FrameDecoder | None = None
        self.identified: asyncio.Future[None] | None = None

    def data_received(self, data: bytes) -> None:
        if self.decoder is not None:
            for item in self.decoder.feed(data):
                if isinstance(item, Frame) and item.type == IdentifyReply.TYPE:
                    assert self.identified is not None
                    self.identified.set_result(None)
            return
        self._arrived(data.count(b"\0"))

    async def identify(self, port: Port) -> int:
        """Start a session (anything the MCU said before is read and dropped); returns the
        number of the next command."""
        self.decoder = FrameDecoder()
        self.identified = asyncio.get_running_loop().create_future()
        port.write(b"\0" + encode_frame(Frame(Identify.TYPE, b"", 0, 0, Flag.SYNC)))
        await asyncio.wait_for(self.identified, 5)
        self.decoder = None
        return 1


async def timed(count: int, one: Callable[[int], Awaitable[object]]) -> Round:
    """`count` round trips of `one(n)`: their times and the CPU per round trip."""
    samples = []
    cpu = time.process_time()
    for n in range(count):
        begin = time.perf_counter()
        await one(n)
        samples.append(time.perf_counter() - begin)
    return samples, (time.process_time() - cpu) / count


class Clients:
    """The three clients and their far ends, with the figures of every round."""

    def __init__(self, link: Link, raw_path: str, echo_path: str) -> None:
        self.link = link
        self.raw_path, self.echo_path = raw_path, echo_path
        self.frames = [ping_frame(seq) for seq in range(256)]
        self.samples: dict[str, list[float]] = {"link": [], "raw": [], "echo": []}
        self.cpu: dict[str, list[float]] = {"link": [], "raw": [], "echo": []}
        self.cold: dict[str, float] = {}
        self._raw: tuple[RawClient, Port] | None = None
        self._seq = 1

    async def link_round(self, count: int) -> Round:
        return await timed(count, lambda n: self.link.request(Ping(n)))

    async def open_raw(self) -> None:
        client = RawClient()
        port = await serial_opener(self.raw_path)(client)
        self._raw = (client, port)
        self._seq = await client.identify(port)

    async def raw_round(self, count: int) -> Round:
        assert self._raw is not None
        client, port = self._raw
        self._seq = await client.identify(port)  # after a pause the MCU may have said more
        frames, first = self.frames, self._seq

        def one(n: int) -> asyncio.Future[None]:
            return client.round_trip(port, frames[(first + n) & 0xFF], 1)

        done = await timed(count, one)
        self._seq = (first + count) & 0xFF
        return done

    async def echo_round(self, count: int, warm: int = COLD) -> Round:
        client = EchoClient()
        port = await serial_opener(self.echo_path)(client)
        frames = self.frames

        def one(n: int) -> asyncio.Future[None]:
            frame = frames[n & 0xFF]
            return client.round_trip(port, frame, len(frame))

        try:
            if warm:
                await timed(warm, one)
            return await timed(count, one)
        finally:
            port.close()
            await asyncio.sleep(0.05)  # the port's lock goes with its transport, a moment later

    async def measure_cold(self) -> None:
        """The first round trips of each fresh connection."""
        self.cold["link"] = (await self.link_round(COLD))[1]
        await self.open_raw()
        self.cold["raw"] = (await self.raw_round(COLD))[1]
        self.cold["echo"] = (await self.echo_round(COLD, warm=0))[1]
        await self.link_round(COLD)
        await self.raw_round(COLD)

    async def repeat(self, count: int, order: list[str]) -> None:
        rounds = {"link": self.link_round, "raw": self.raw_round, "echo": self.echo_round}
        for name in order:
            samples, cpu = await rounds[name](count)
            self.samples[name] += samples
            self.cpu[name].append(cpu)


def overhead_lines() -> list[str]:
    """Bytes on the line against payload bytes for typical messages."""
    examples = {
        "ping": Ping(1),
        "pong (reply)": Pong(1),
        "wall_tile (event)": WallTile(2, 11, 1, 0xE004_0123_4567_89AB),
        "zone_inventory, 14 tiles": ZoneInventory(1, Zone.HAND, tuple(range(14))),
    }
    lines = []
    for name, message in examples.items():
        payload = encode_payload(message)
        wire = encode_frame(Frame(message.TYPE, payload, 1, 1, Flag.RESPONSE))
        extra = len(wire) - len(payload)
        lines.append(f"  {name:26} payload {len(payload):3} B, on the line {len(wire):3} B "
                     f"(+{extra} B)")  # fmt: skip
    return lines


def summary(name: str, samples: list[float]) -> tuple[float, str]:
    """Rate and a printable line for a list of round-trip times."""
    ordered = sorted(samples)
    rate = len(samples) / sum(samples)
    p50, p99 = percentile_ms(ordered, 0.5), percentile_ms(ordered, 0.99)
    return rate, f"  {name:30} {rate:8.0f} round trips/s   p50 {p50:.3f} ms   p99 {p99:.3f} ms"


def cpu_lines(clients: Clients, baseline: str, words: str) -> list[str]:
    """The link's CPU against one baseline's, warm and cold."""
    mine, theirs = clients.cpu["link"], clients.cpu[baseline]
    ratios = [a / b for a, b in zip(mine, theirs, strict=True)]
    median = statistics.median(ratios)
    cold = clients.cold["link"] / clients.cold[baseline]
    verdict = "met" if median <= 1.5 else "NOT met"
    return [
        f"  link / {words}: warm {median:.2f}x ({min(ratios):.2f}-{max(ratios):.2f}), "
        f"cold {cold:.2f}x; goal <= 1.5x (warm): {verdict}"
    ]


async def run(count: int, rounds: int, firmware: str | None, profile: bool) -> None:
    """Cold figures first, then warm rounds in turned-around orders, then the pipeline."""
    python = sys.executable
    mcu = ["--firmware", firmware] if firmware else []
    far_end = [python, "-m", "firmware_bridge.sim", "--pty", "--speed", "0",
               "--inventory-period", "0", *mcu]  # fmt: skip
    sim, sim_path = start(far_end)
    raw_sim, raw_path = start(far_end)
    echo, echo_path = start([python, __file__, "--echo-server"])
    profiled = ""
    try:
        async with Link(serial_opener(sim_path), LinkSettings()) as link:
            clients = Clients(link, raw_path, echo_path)
            await clients.measure_cold()
            orders = [["link", "raw", "echo"], ["echo", "raw", "link"]]
            for index in range(rounds):
                await clients.repeat(count, orders[index % 2])
            pipelined = count / sum((await timed(1, lambda _: pipeline(link, count)))[0])
            stats = link.stats()
            if profile:
                profiled = await profile_round(clients, count)
    finally:
        for process in (sim, raw_sim, echo):
            process.terminate()
            process.wait()
    far = "C firmware (host)" if firmware else "simulated MCU"
    print(f"Round trips over a pty, {rounds} x {count} each per client, order turned around:")
    link_rate, link_line = summary(f"link -> {far}", clients.samples["link"])
    raw_rate, raw_line = summary(f"raw client -> {far}", clients.samples["raw"])
    echo_rate, echo_line = summary("raw pty echo, same bytes", clients.samples["echo"])
    print("\n".join([link_line, raw_line, echo_line]))
    print(f"  ratio link / raw client: {link_rate / raw_rate:.2f}, "
          f"link / raw echo: {link_rate / echo_rate:.2f}")  # fmt: skip
    print("Client CPU per round trip (this process, user + system), median over the rounds:")
    for name, words in (("link", "link"), ("raw", "raw client, same MCU"), ("echo", "echo client")):
        warm = 1e6 * statistics.median(clients.cpu[name])
        print(f"  {words:22} warm {warm:6.1f} us   cold {1e6 * clients.cold[name]:6.1f} us")
    print("\n".join(cpu_lines(clients, "raw", "raw client on the same MCU (fair baseline)")))
    print("\n".join(cpu_lines(clients, "echo", "echo client (its far end answers at once)")))
    p99 = percentile_ms(sorted(clients.samples["link"]), 0.99)
    print(f"  MCU reply time: p99 round trip {p99:.3f} ms (protocol budget: 10 ms)")
    print(f"  link with {link.settings.window} in flight: {pipelined:.0f} round trips/s")
    print(f"  retransmits {stats.retransmits}, CRC errors {stats.crc_errors}")
    print(f"Framing overhead ({OVERHEAD} B: header 4 B + CRC 2 B + COBS + 0x00):")
    print("\n".join(overhead_lines()))
    if profiled:
        print(profiled)


async def pipeline(link: Link, count: int) -> None:
    """`count` pings with the whole window in flight."""
    await asyncio.gather(*(link.request(Ping(token)) for token in range(count)))


async def profile_round(clients: Clients, count: int) -> str:
    """A cProfile of one more link round: the top functions by own time."""
    profiler = cProfile.Profile()
    profiler.enable()
    await clients.link_round(count)
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.sort_stats("tottime").print_stats(18)
    return f"Profile of one more link round ({count} round trips, cProfile):\n{out.getvalue()}"


class _LoopPort:
    """A port whose answer to each write comes on the next turn of the event loop."""

    def __init__(self, listener: PortListener, answer: Callable[[bytes], bytes]) -> None:
        self._listener, self._answer = listener, answer
        self._loop = asyncio.get_running_loop()

    def write(self, data: bytes) -> None:
        if reply := self._answer(data):
            self._loop.call_soon(self._listener.data_received, reply)

    def close(self) -> None:
        """Nothing to close."""


def _mcu_answers() -> Callable[[bytes], bytes]:
    """The simulated MCU's session answering pings and the handshake, each answer kept."""
    kept: dict[bytes, bytes] = {}
    written: list[bytes] = []
    session = McuSession(lambda data, _: written.append(data))
    decoder = FrameDecoder()

    def execute(command: Message) -> Message:
        if isinstance(command, Ping):
            return Pong(command.token)
        if isinstance(command, Identify):
            return SoftwareMcu(TableModel(0), inventory_period=None).identify()
        return HeartbeatReply(0, 0)

    def answer(data: bytes) -> bytes:
        if data not in kept:
            written.clear()
            for frame in decoder.feed(data):
                assert isinstance(frame, Frame)
                session.receive(frame, execute)
            kept[data] = b"".join(written)
        return kept[data]

    return answer


def ping(link: Link, first: int, n: int) -> Awaitable[Pong]:
    """Ping number `first + n`: the tokens go round with the sequence numbers, so that the
    MCU's answers are the ones kept."""
    return link.request(Ping((first + n) & 0xFF))


async def in_process(rounds: int = 30, count: int = 2000) -> None:
    """The link's own work per round trip against an echo client's, in one process."""
    answers = _mcu_answers()

    async def opener(listener: PortListener) -> Port:
        return _LoopPort(listener, answers)

    echo = EchoClient()
    echo_port = _LoopPort(echo, lambda data: data)
    frames = [ping_frame(seq) for seq in range(256)]
    link_cpu, echo_cpu = [], []

    def echo_trip(frame: bytes) -> asyncio.Future[None]:
        return echo.round_trip(echo_port, frame, len(frame))

    async with Link(opener, LinkSettings()) as link:
        for n in range(512):
            await link.request(Ping(n & 0xFF))  # every answer kept, both sides warm
        for index in range(rounds):
            link_cpu.append((await timed(count, functools.partial(ping, link, index * count)))[1])
            echo_cpu.append((await timed(count, lambda n: echo_trip(frames[n & 0xFF])))[1])
    link_us, echo_us = sorted(1e6 * c for c in link_cpu), sorted(1e6 * c for c in echo_cpu)
    print(f"In one process, {rounds} x {count} round trips each, interleaved (CPU per round trip):")
    for name, figures in (("link", link_us), ("echo client", echo_us)):
        print(f"  {name:12} min {figures[0]:6.2f} us   median {statistics.median(figures):6.2f} us")
    extra = link_us[0] - echo_us[0]
    print(f"  the link's own work: {extra:.2f} us (minimum against minimum)")


async def trips(kind: str, count: int) -> None:
    """`count` round trips of the link or of the echo client as --in-process makes them, after
    the same warm-up (512 round trips): what --instructions counts."""
    answers = _mcu_answers()

    async def opener(listener: PortListener) -> Port:
        return _LoopPort(listener, answers)

    if kind == "echo":
        echo = EchoClient()
        echo_port = _LoopPort(echo, lambda data: data)
        frames = [ping_frame(seq) for seq in range(256)]

        def echo_trip(frame: bytes) -> asyncio.Future[None]:
            return echo.round_trip(echo_port, frame, len(frame))

        await timed(512 + count, lambda n: echo_trip(frames[n & 0xFF]))
        return
    async with Link(opener, LinkSettings()) as link:
        for n in range(512):
            await link.request(Ping(n & 0xFF))
        await timed(count, functools.partial(ping, link, 0))


INSTRUCTION_TRIPS = (500, 3000)


def instructions() -> None:
    """CPU instructions per round trip of the link and of the echo client in one process, as
    valgrind's cachegrind counts them (which a busy machine does not change): the count of a
    run of 3000 round trips less that of a run of 500, over the 2500 between."""
    per_trip = {}
    for kind in ("link", "echo"):
        counts = []
        for count in INSTRUCTION_TRIPS:
            command = ["valgrind", "--tool=cachegrind", "--cache-sim=no",
                       "--cachegrind-out-file=/dev/null",
                       sys.executable, __file__, "--trips", kind, str(count)]  # fmt: skip
            environment = {**os.environ, "PYTHONHASHSEED": "0"}
            done = subprocess.run(command, capture_output=True, text=True, env=environment)
            found = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
            if done.returncode or found is None:
                raise SystemExit(f"valgrind failed: {done.stderr[-2000:]}")
            counts.append(int(found.group(1).replace(",", "")))
        per_trip[kind] = (counts[1] - counts[0]) / (INSTRUCTION_TRIPS[1] - INSTRUCTION_TRIPS[0])
    link, echo = per_trip["link"], per_trip["echo"]
    print("In one process, CPU instructions per round trip (valgrind --tool=cachegrind):")
    print(f"  link {link:8.0f}   echo client {echo:8.0f}   link / echo {link / echo:.2f}x")
    print(f"  the link's own work: {link - echo:.0f} instructions per round trip")


def main() -> None:
    """Entry point."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    far_end = parser.add_mutually_exclusive_group()
    far_end.add_argument("--firmware", metavar="BINARY", help="the C firmware's host build")
    far_end.add_argument(
        "--simulator", action="store_true", help="the Python MCU simulator as the far end"
    )
    parser.add_argument("--profile", action="store_true", help="profile one more link round")
    parser.add_argument("--in-process", action="store_true", help="the link's own work only")
    parser.add_argument(
        "--instructions", action="store_true", help="count instructions (needs valgrind)"
    )
    parser.add_argument("--echo-server", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--trips", nargs=2, metavar=("KIND", "COUNT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.echo_server:
        echo_server()
    elif args.trips:
        asyncio.run(trips(args.trips[0], int(args.trips[1])))
    elif args.in_process:
        asyncio.run(in_process())
    elif args.instructions:
        instructions()
    elif args.firmware or args.simulator:
        asyncio.run(run(args.count, args.rounds, args.firmware, args.profile))
    else:
        with tempfile.TemporaryDirectory(prefix="link-bench-") as build:
            firmware = firmware_build(Path(build))
            if firmware is None:
                print("The C firmware could not be made here: the far end is the simulator.")
            asyncio.run(run(args.count, args.rounds, firmware, args.profile))


def firmware_build(build: Path) -> str | None:
    """The C firmware's host build, made in `build` (None where it cannot be made here)."""
    command = ["make", "-s", "-C", str(FIRMWARE_DIR), f"BUILD={build}", "host"]
    try:
        made = subprocess.run(command, capture_output=True, text=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired):
        return None
    binary = build / "host" / "mahjong-fw-host"
    return str(binary) if made.returncode == 0 and binary.exists() else None


if __name__ == "__main__":
    main()
