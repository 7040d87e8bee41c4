"""Hub link benchmark: results delivered end to end (recorded and acked) against plain aiomqtt,
and how long the outbox's disk writes hold up the table's event loop.

    .venv/bin/python bench/hub_bench.py [--results 1000] [--rounds 3] [--tables 50]
                                        [--per-table 100] [--events 2000] [--rate 200]
                                        [--only stalls|delivery] [--profile DIR]
                                        [--other-window N]

1. One table: --results signed results wait in a table's outbox; the link sends them and the
   recorder (`mahjong-table hub`, its own process) verifies, records and acks each. Baseline
   in the same run, to the same broker, doing the same trip without our code: plain aiomqtt
   QoS 1 publishes of the same payloads to a plain aiomqtt subscriber in another process,
   which acks back on another topic (one ack per batch of what has arrived, as the recorder
   does); the publisher counts a payload delivered when its ack is back. Once one at a time
   (each waits for its ack), once windowed (as many in flight as the link keeps: the goal is
   judged against this one) and, with --other-window N, once with N in flight (to see what
   another window would give the plain baseline). They take turns for --rounds rounds;
   ratio = end to end / plain, per round, printed as the median and the range over the rounds.
2. Venue: --tables tables (one process, one link each) with --per-table results each, and one
   recorder run as `mahjong-table hub` in its own process; figures: results/s end to end and
   the recorder's CPU (user+system seconds per second of wall time, from /proc).
3. Event-loop stalls: --events public events (a status every 10, a result every 100, an ack
   for each result) written through the outbox while a probe task notes the longest time the
   loop was held between two of its turns. Baseline in the same run, to the same kind of file:
   the same writes committed in the loop one transaction (one fsync) each, and each event
   deleted once "published" (as the outbox did before its writer thread). Once as fast as the
   loop goes, once paced at --rate events a second for 3 s. Figures: the loop's worst and
   99.9th-percentile stall, the worst and total time the loop spent inside outbox calls,
   commits (fsyncs) made, and before/after ratios.
A real mosquitto is started on a free port (devsupport/mosquitto.py, as in the tests).
"""

import argparse
import asyncio
import contextlib
import os
import socket
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path

import aiomqtt

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.hub_stalls import stall_report
from bench.hub_support import KEY_TEXT, Broker, make_link, sample_result, start_broker
from controller.clock import SystemClock
from controller.hub.contract.envelopes import ResultMessage, encode, new_header
from controller.hub.contract.signing import TableKey
from controller.hub.mqtt.aiomqtt_transport import UNLIMITED
from controller.hub.mqtt.link_timing import LinkTiming
from controller.hub.table_side.outbox import Outbox
from controller.venue.store import open_store

ROOT = Path(__file__).resolve().parents[1]
TIMING = LinkTiming()  # the table's production timing
WINDOW = TIMING.window


def fill_outbox(path: Path, table: str, count: int) -> list[bytes]:
    """Put `count` signed results into a table's outbox; returns their payloads."""
    path.parent.mkdir(exist_ok=True)
    outbox, key, clock = Outbox(path).open(), TableKey(KEY_TEXT), SystemClock()
    payloads: list[bytes] = []
    for hand in range(1, count + 1):

        def build(seq: int, hand: int = hand) -> tuple[str, bytes]:
            head = new_header(table, outbox.boot, seq, clock, outbox=outbox.id)
            message = key.sign(ResultMessage(result=sample_result(hand), **head))
            payloads.append(encode(message))
            return message.id, payloads[-1]

        outbox.add_result(build, clock.wall())
    outbox.close()
    return payloads


@contextlib.asynccontextmanager
async def running(*jobs: object) -> AsyncIterator[None]:
    """Run coroutines as tasks for the duration of the block."""
    tasks = [asyncio.ensure_future(job) for job in jobs]  # type: ignore[call-overload]
    try:
        yield
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def wait_until(check: object, limit_s: float = 300.0) -> None:
    """Poll a condition every 5 ms."""
    deadline = time.monotonic() + limit_s
    while not check():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise RuntimeError("benchmark did not finish in time")
        await asyncio.sleep(0.005)


PLAIN_TOPIC, ACK_TOPIC = "bench/plain", "bench/plain-acks"


NO_DELAY = "set_tcp_nodelay true\n"
"""The broker sends small packets at once: without it (mosquitto's default) a lone message of
the one at a time baseline waits for a delayed-ACK timer (~40 ms), which measures nothing of
MQTT; the end to end run goes through the same broker."""


def no_delay(client: aiomqtt.Client) -> None:
    """The plain clients send small packets at once too (TCP_NODELAY)."""
    sock = client._client.socket()
    assert isinstance(sock, socket.socket), "the client is not connected over TCP"
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


async def acker(host: str, port: int) -> None:
    """The plain baseline's far end: takes every payload off PLAIN_TOPIC and acks what has
    arrived, one ack (the count) per batch, QoS 1, on ACK_TOPIC. Prints 'ready' once subscribed."""
    async with aiomqtt.Client(host, port, max_queued_incoming_messages=0) as client:
        no_delay(client)
        await client.subscribe(PLAIN_TOPIC, qos=1)
        print("ready", flush=True)
        messages = aiter(client.messages)
        while True:
            await anext(messages)
            count = 1
            while len(client.messages):
                await anext(messages)
                count += 1
            await client.publish(ACK_TOPIC, str(count).encode(), qos=1)


async def plain(broker: Broker, payloads: list[bytes], window: int) -> float:
    """Seconds for plain aiomqtt QoS 1 publishes of the payloads to the acker, with at most
    `window` not yet acked, until the last is acked."""
    async with aiomqtt.Client(broker.host, broker.port, max_inflight_messages=UNLIMITED) as c:
        c.pending_calls_threshold = 10 * window
        no_delay(c)
        await c.subscribe(ACK_TOPIC, qos=1)
        acked = 0
        acks = aiter(c.messages)
        start = time.perf_counter()
        sent = 0
        while acked < len(payloads):
            if sent < len(payloads) and sent - acked < window:
                batch = payloads[sent : min(len(payloads), acked + window)]
                await asyncio.gather(*(c.publish(PLAIN_TOPIC, p, qos=1) for p in batch))
                sent += len(batch)
            message = await anext(acks)
            acked += int(bytes(message.payload))
        return time.perf_counter() - start


@contextlib.asynccontextmanager
async def acker_process(broker: Broker) -> AsyncIterator[None]:
    """The plain baseline's acker, in its own process, subscribed, for the block."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, __file__, "--acker", broker.host, str(broker.port),
        stdout=asyncio.subprocess.PIPE, cwd=ROOT,
    )  # fmt: skip
    try:
        assert process.stdout is not None
        await process.stdout.readline()
        yield
    finally:
        process.terminate()
        await process.wait()


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


PROFILE: list[Path] = []
"""Where the recorder's wall-time samples go (--profile), one file per run; empty: no sampling."""


async def venue(
    broker: Broker, work: Path, tables: int, per_table: int
) -> tuple[float, float, list[bytes]]:
    """(results/s, recorder CPU fraction, payloads of the first table) for `tables` tables
    sending to one recorder process."""
    names = [f"t{i:02d}" for i in range(tables)]
    payloads = [fill_outbox(work / f"{name}.db", name, per_table) for name in names]
    keys = work / "keys.toml"
    keys.write_text("[tables]\n" + "".join(f'{n} = "{KEY_TEXT}"\n' for n in names))
    keys.chmod(0o600)
    db = work / "hub.db"
    log = (work / "hub.log").open("wb")
    sampled = []
    if PROFILE:  # the recorder's wall time, sampled
        sampled = [str(ROOT / "bench" / "sampled.py"), str(PROFILE[0] / f"{work.name}.txt")]
    hub = await asyncio.create_subprocess_exec(
        sys.executable, *sampled, "-m", "controller", "hub",
        "--mqtt", broker.url, "--db", str(db), "--keys", str(keys), stdout=log, stderr=log,
        cwd=ROOT,
    )  # fmt: skip
    try:
        links = [make_link(broker.url, work / f"{n}.db", n, TIMING) for n in names]
        await wait_until(lambda: db.exists() and _store_ready(db))
        async with running(*(link.run() for link in links)):
            await wait_until(lambda: all(link.hub_online for link in links))
            cpu0, start = cpu_seconds(hub.pid), time.perf_counter()
            await wait_until(lambda: all(link.outbox.pending_count() == 0 for link in links))
            elapsed, cpu = time.perf_counter() - start, cpu_seconds(hub.pid) - cpu0
        for link in links:
            link.outbox.close()
    finally:
        if hub.returncode is None:
            hub.terminate()
        await hub.wait()
        log.close()
        if hub.returncode not in (0, -15):
            tail = (work / "hub.log").read_text(errors="replace")[-2000:]
            print(f"the recorder exited with {hub.returncode}; its log ends:\n{tail}")
    return tables * per_table / elapsed, cpu / elapsed, payloads[0]


def _store_ready(db: Path) -> bool:
    store = open_store(str(db))
    try:
        return store.bump("probe") > 0
    finally:
        store.close()


async def one_table(broker: Broker, work: Path, results: int, rounds: int, other: int) -> list[str]:
    """End to end against the plain baselines, interleaved for `rounds` rounds: one at a time,
    the link's window, and `other` at a time (0: not measured)."""
    ends: list[float] = []
    cpus: list[float] = []
    windows = [1, WINDOW] + ([other] if other and other != WINDOW else [])
    plains: dict[int, list[float]] = {window: [] for window in windows}
    async with acker_process(broker):
        for index in range(rounds):
            rate, cpu, payloads = await venue(broker, work / f"one{index}", 1, results)
            ends.append(rate)
            cpus.append(cpu)
            for window in windows:
                plains[window].append(results / await plain(broker, payloads, window))
    median = statistics.median

    def ratios(baseline: list[float]) -> list[float]:
        return [mine / theirs for mine, theirs in zip(ends, baseline, strict=True)]

    def shown(found: list[float]) -> str:
        return f"{median(found):.2f}x ({min(found):.2f}-{max(found):.2f})"

    verdict = "met" if median(ratios(plains[WINDOW])) >= 0.6 else "NOT met"
    lines = [
        f"one table, {results} results (signed, ~{len(payloads[0])} bytes each), "
        f"median (range) of {rounds} interleaved rounds",
        f"  end to end (recorded + acked):          {median(ends):6.0f} results/s"
        f"   recorder CPU {100 * median(cpus):.0f}% of one core",
    ]
    for window in windows:
        label = "1 at a time" if window == 1 else f"{window} at a time"
        goal = f"  goal >= 0.6x: {verdict}" if window == WINDOW else ""
        if window not in (1, WINDOW):
            goal = "  (not the link's window)"
        lines.append(
            f"  plain publish + ack back, {label + ':':<16}{median(plains[window]):6.0f} msg/s"
            f"   ratio {shown(ratios(plains[window]))}{goal}"
        )
    return lines


async def main(args: argparse.Namespace) -> None:
    """Run the measurements and print the figures."""
    with tempfile.TemporaryDirectory(prefix="hub-bench-", dir=args.dir) as tmp:
        work = Path(tmp)
        if args.only in (None, "stalls"):
            for line in await stall_report(work / "stalls", args.events, args.rate):
                print(line)
        if args.only == "stalls":
            return
        broker = start_broker(work / "broker", NO_DELAY)
        try:
            lines = await one_table(broker, work, args.results, args.rounds, args.other_window)
            for line in lines:
                print(line)
            rps, cpu, _ = await venue(broker, work / "venue", args.tables, args.per_table)
            print(f"{args.tables} tables x {args.per_table} results -> one recorder process")
            print(f"  end to end: {rps:6.0f} results/s, recorder CPU {100 * cpu:.0f}% of one core")
        finally:
            broker.kill()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=int, default=1000, help="results from one table")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds, one table")
    parser.add_argument(
        "--other-window",
        type=int,
        default=0,
        help="also time the plain baseline with this many in flight (0: not)",
    )
    parser.add_argument("--tables", type=int, default=50, help="tables sending at once")
    parser.add_argument("--per-table", type=int, default=100, help="results per table")
    parser.add_argument("--events", type=int, default=2000, help="events for the stall figures")
    parser.add_argument("--rate", type=float, default=200, help="events a second, paced run")
    parser.add_argument("--only", choices=("stalls", "delivery"), help="run one part only")
    parser.add_argument(
        "--dir", help="where the files go (the disk being measured; default: the temp dir)"
    )
    parser.add_argument(
        "--profile",
        metavar="DIR",
        help="sample the recorder's threads each ms (bench/sampled.py), one report per run in DIR",
    )
    parser.add_argument("--acker", nargs=2, help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.profile:
        PROFILE.append(Path(arguments.profile).resolve())
        PROFILE[0].mkdir(parents=True, exist_ok=True)
    if arguments.acker:
        asyncio.run(acker(arguments.acker[0], int(arguments.acker[1])))
    else:
        asyncio.run(main(arguments))
