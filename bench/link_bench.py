"""Link benchmark: request/response round trips over a pty to the simulated MCU, against a raw
pty echo of the same bytes measured in the same run; plus framing overhead.

    .venv/bin/python bench/link_bench.py [--count 2000] [--rounds 5] [--firmware BINARY]

With --firmware, the MCU is that host build of the C firmware (make -C hardware/firmware host):
its round trips check the protocol's reply-time budget (an answer within 10 ms).

Both servers run in their own process behind a pseudo-terminal and are reached through the same
serial_port (pyserial-asyncio-fast); the echo server returns each byte as it comes.

Two figures per round, rounds alternated (link, echo, link, echo, ...):
- round trips per second: the link's far end is the Python MCU simulator, whose own protocol
  work (~50 us a round trip, which real firmware does in its own time) is in this figure, so
  it understates the link;
- the client's CPU per round trip (this process's user + system time over the round divided by
  its round trips): what the table's daemon pays. The echo client writes a ready-made frame and
  counts the bytes coming back: the floor for a request over asyncio and a serial port. The
  goal is the link's client CPU <= 1.5x the echo client's. Ratios are per round, printed as the
  median and the range over the rounds.
"""

import argparse
import asyncio
import contextlib
import os
import pty
import statistics
import subprocess
import sys
import time
import tty
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from firmware_bridge.fields import encode_payload
from firmware_bridge.frame import Flag, Frame, encode_frame
from firmware_bridge.link import Link, LinkSettings
from firmware_bridge.link_stats import percentile_ms
from firmware_bridge.messages import Ping, Pong, WallTile, Zone, ZoneInventory
from firmware_bridge.serial_port import serial_opener


def echo_server() -> None:
    """Serve a raw pty echo: print its path, then send back every byte received."""

    async def serve() -> None:
        master, slave = pty.openpty()
        for fd in (master, slave):
            tty.setraw(fd)
        os.set_blocking(master, False)
        loop = asyncio.get_running_loop()

        def readable() -> None:
            with contextlib.suppress(BlockingIOError):
                os.write(master, os.read(master, 4096))

        loop.add_reader(master, readable)
        print(os.ttyname(slave), flush=True)
        await asyncio.Event().wait()

    asyncio.run(serve())


def start(command: list[str]) -> tuple[subprocess.Popen[str], str]:
    """Start a server process; returns it and the first line it prints."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    return process, process.stdout.readline().strip()


class EchoClient:
    """Writes frames to the echo pty and waits until the same number of bytes came back."""

    def __init__(self) -> None:
        self.received = 0
        self.waiting: tuple[int, asyncio.Future[None]] | None = None

    def data_received(self, data: bytes) -> None:
        self.received += len(data)
        if self.waiting and self.received >= self.waiting[0]:
            self.waiting[1].set_result(None)
            self.waiting = None

    def connection_lost(self, exc: Exception | None) -> None:
        """Nothing to do."""

    async def round_trip(self, port: object, data: bytes) -> None:
        future = asyncio.get_running_loop().create_future()
        self.waiting = (self.received + len(data), future)
        port.write(data)  # type: ignore[attr-defined]
        await future


Round = tuple[list[float], float]
"""Round-trip times (s) of a round and the client's CPU seconds per round trip."""


async def measure_echo(path: str, count: int) -> Round:
    """Round trips of `count` ping-sized frames through the raw echo."""
    client = EchoClient()
    port = await serial_opener(path)(client)
    frames = [
        encode_frame(Frame(Ping.TYPE, encode_payload(Ping(token)), token & 0xFF))
        for token in range(count)
    ]
    samples = []
    cpu = time.process_time()
    for frame in frames:
        begin = time.perf_counter()
        await client.round_trip(port, frame)
        samples.append(time.perf_counter() - begin)
    cpu = time.process_time() - cpu
    port.close()
    return samples, cpu / count


async def measure_link(link: Link, count: int) -> Round:
    """Round trips of `count` pings through the link."""
    samples = []
    cpu = time.process_time()
    for token in range(count):
        begin = time.perf_counter()
        await link.request(Ping(token))
        samples.append(time.perf_counter() - begin)
    return samples, (time.process_time() - cpu) / count


async def measure_pipelined(link: Link, count: int) -> float:
    """Pings per second with the whole window in flight."""
    begin = time.perf_counter()
    await asyncio.gather(*(link.request(Ping(token)) for token in range(count)))
    return count / (time.perf_counter() - begin)


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
    return rate, f"  {name:28} {rate:8.0f} round trips/s   p50 {p50:.3f} ms   p99 {p99:.3f} ms"


async def run(count: int, rounds: int, firmware: str | None) -> None:
    """Alternate link and echo rounds so that both see the same machine load."""
    python = sys.executable
    mcu = ["--firmware", firmware] if firmware else []
    sim, sim_path = start([python, "-m", "firmware_bridge.sim", "--pty", "--speed", "0",
                           "--inventory-period", "0", *mcu])  # fmt: skip
    echo, echo_path = start([python, __file__, "--echo-server"])
    try:
        link_samples: list[float] = []
        echo_samples: list[float] = []
        link_cpu: list[float] = []
        echo_cpu: list[float] = []
        async with Link(serial_opener(sim_path), LinkSettings()) as link:
            await measure_link(link, 200)
            await measure_echo(echo_path, 200)
            for _ in range(rounds):
                samples, cpu = await measure_link(link, count)
                link_samples += samples
                link_cpu.append(cpu)
                samples, cpu = await measure_echo(echo_path, count)
                echo_samples += samples
                echo_cpu.append(cpu)
            pipelined = await measure_pipelined(link, count)
            stats = link.stats()
    finally:
        for process in (sim, echo):
            process.terminate()
            process.wait()
    name = "link -> C firmware (host)" if firmware else "link -> simulated MCU"
    link_rate, link_line = summary(name, link_samples)
    echo_rate, echo_line = summary("raw pty echo, same bytes", echo_samples)
    print(f"Round trips over a pty, {rounds} x {count} each, alternated:")
    print(link_line)
    print(echo_line)
    print(f"  ratio link / raw echo: {link_rate / echo_rate:.2f}")
    ratios = [mine / theirs for mine, theirs in zip(link_cpu, echo_cpu, strict=True)]
    median = statistics.median(ratios)
    print("Client CPU per round trip (this process, user + system):")
    print(f"  link:        {1e6 * statistics.median(link_cpu):6.1f} us")
    print(f"  echo client: {1e6 * statistics.median(echo_cpu):6.1f} us")
    print(f"  ratio link / echo client: {median:.2f}x ({min(ratios):.2f}-{max(ratios):.2f}) "
          f"goal <= 1.5x: {'met' if median <= 1.5 else 'NOT met'}")  # fmt: skip
    p99 = percentile_ms(sorted(link_samples), 0.99)
    print(f"  MCU reply time: p99 round trip {p99:.3f} ms (protocol budget: 10 ms)")
    print(f"  link with {link.settings.window} in flight: {pipelined:.0f} round trips/s")
    print(f"  retransmits {stats.retransmits}, CRC errors {stats.crc_errors}")
    print("Framing overhead (header 7 B + CRC 2 B + COBS + 0x00):")
    print("\n".join(overhead_lines()))


def main() -> None:
    """Entry point."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--firmware", metavar="BINARY", help="the C firmware's host build")
    parser.add_argument("--echo-server", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.echo_server:
        echo_server()
    else:
        asyncio.run(run(args.count, args.rounds, args.firmware))


if __name__ == "__main__":
    main()
