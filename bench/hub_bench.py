"""Hub link benchmark: results delivered end to end (recorded and acked) against plain aiomqtt,
and how long the outbox's disk writes hold up the table's event loop.

    .venv/bin/python bench/hub_bench.py [--results 2000] [--tables 50] [--per-table 100]
                                        [--events 2000] [--rate 200] [--only stalls|delivery]

1. One table: --results signed results wait in a table's outbox; the link sends them and the
   recorder (`mahjong-table hub`, its own process) verifies, records and acks each. Baseline
   in the same run, to the same broker: plain aiomqtt QoS 1 publishes of the same payloads,
   one at a time (each waits for its PUBACK) and a window at a time (as many as the link keeps
   in flight). Ratio = end to end / plain.
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
from controller.hub.mqtt.link_timing import LinkTiming
from controller.hub.table_side.outbox import Outbox
from controller.venue.store import open_store

ROOT = Path(__file__).resolve().parents[1]
TIMING = LinkTiming()  # the table's production timing
WINDOW = TIMING.window


def fill_outbox(path: Path, table: str, count: int) -> list[bytes]:
    """Put `count` signed results into a table's outbox; returns their payloads."""
    path.parent.mkdir(exist_ok=True)
    outbox, key, clock = Outbox(path), TableKey(KEY_TEXT), SystemClock()
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


async def plain(broker: Broker, payloads: list[bytes], window: int) -> float:
    """Seconds for plain aiomqtt QoS 1 publishes of the payloads, `window` awaited at a time."""
    async with aiomqtt.Client(broker.host, broker.port, max_inflight_messages=max(20, window)) as c:
        c.pending_calls_threshold = 10 * window
        start = time.perf_counter()
        for i in range(0, len(payloads), window):
            batch = payloads[i : i + window]
            await asyncio.gather(*(c.publish("bench/plain", p, qos=1) for p in batch))
        return time.perf_counter() - start


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


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
    hub = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "controller", "hub", "--mqtt", broker.url, "--db", str(db),
        "--keys", str(keys), stdout=log, stderr=log, cwd=ROOT,
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
        hub.terminate()
        await hub.wait()
        log.close()
    return tables * per_table / elapsed, cpu / elapsed, payloads[0]


def _store_ready(db: Path) -> bool:
    store = open_store(str(db))
    try:
        return store.bump("probe") > 0
    finally:
        store.close()


async def main(args: argparse.Namespace) -> None:
    """Run the measurements and print the figures."""
    with tempfile.TemporaryDirectory(prefix="hub-bench-", dir=args.dir) as tmp:
        work = Path(tmp)
        if args.only in (None, "stalls"):
            for line in await stall_report(work / "stalls", args.events, args.rate):
                print(line)
        if args.only == "stalls":
            return
        broker = start_broker(work / "broker")
        try:
            rate, cpu, payloads = await venue(broker, work / "one", 1, args.results)
            one = args.results / await plain(broker, payloads, 1)
            windowed = args.results / await plain(broker, payloads, WINDOW)
            print(f"one table, {args.results} results (signed, ~{len(payloads[0])} bytes each)")
            print(f"  end to end (recorded + acked):    {rate:6.0f} results/s"
                  f"   recorder CPU {100 * cpu:.0f}% of one core")  # fmt: skip
            print(f"  plain aiomqtt QoS 1, 1 at a time: {one:6.0f} msg/s   ratio {rate / one:.2f}")
            print(f"  plain aiomqtt QoS 1, {WINDOW} at a time: {windowed:6.0f} msg/s"
                  f"   ratio {rate / windowed:.2f}")  # fmt: skip
            rps, cpu, _ = await venue(broker, work / "venue", args.tables, args.per_table)
            print(f"{args.tables} tables x {args.per_table} results -> one recorder process")
            print(f"  end to end: {rps:6.0f} results/s, recorder CPU {100 * cpu:.0f}% of one core")
        finally:
            broker.kill()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=int, default=2000, help="results from one table")
    parser.add_argument("--tables", type=int, default=50, help="tables sending at once")
    parser.add_argument("--per-table", type=int, default=100, help="results per table")
    parser.add_argument("--events", type=int, default=2000, help="events for the stall figures")
    parser.add_argument("--rate", type=float, default=200, help="events a second, paced run")
    parser.add_argument("--only", choices=("stalls", "delivery"), help="run one part only")
    parser.add_argument(
        "--dir", help="where the files go (the disk being measured; default: the temp dir)"
    )
    asyncio.run(main(parser.parse_args()))
