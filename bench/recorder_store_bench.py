"""Recorder store benchmark: results/s end to end with the recorder on SQLite and on PostgreSQL,
beside plain aiomqtt QoS 1 in the same run, and with the recorder's dashboard under a login flood.

    .venv/bin/python bench/recorder_store_bench.py [--tables 10] [--per-table 100] [--rounds 3]
                                                   [--flood-clients 12] [--only NAME ...]

Every configuration runs once per round, the configurations interleaved round by round (so a
slow spell of the machine hits all of them), in reverse order every other round (so none always
runs first); the median and the spread (min-max) are printed.

- plain: aiomqtt QoS 1, --tables publishers sending --per-table payloads of the same size each
  (a window of 256 in flight, as the table's link keeps), and one subscriber that publishes an
  ack (QoS 1) on another topic for every message, as the recorder does; a publisher's message
  counts once its ack came back.
- sqlite / postgresql: `mahjong-table hub` in its own process (store on a SQLite file, or on a
  fresh database of a throwaway PostgreSQL cluster); --tables table links (this process) whose
  outboxes hold --per-table signed results each; results/s from the moment every link sees the
  hub online until every outbox is acked empty.
- sqlite + dashboard: as sqlite, with the dashboard (`--http`, an operators file).
- sqlite + dashboard + flood: the same while --flood-clients clients (another process, each
  from its own loopback address 127.0.0.N) open the login form and send a wrong password for a
  random name, over and over. Goal: recording within 1.2x of sqlite + dashboard.

For the recorder configurations the processor time the recorder process spent over the
measured span is printed too, in ms per result and split by thread: its event loop, the
password hashing thread (the one at the lowest priority) and the other threads (the store's
worker, mostly). On a machine shared with other work that is steadier than results/s.

A real mosquitto is started on a free port; PostgreSQL as the tests start it (tests/venue).
"""

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import aiomqtt

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.hub_bench import TIMING, WINDOW, fill_outbox, running, wait_until
from bench.hub_support import KEY_TEXT, Broker, make_link, start_broker
from controller.venue.dashboard.auth import hash_password
from tests.venue.postgres import PgCluster, cluster

ROOT = Path(__file__).resolve().parents[1]
FLOOD = """
import http.client, random, sys, threading, time, urllib.parse
port, clients, stop_at = int(sys.argv[1]), int(sys.argv[2]), float("inf")
counts = {}
lock = threading.Lock()
def one(n):
    while time.time() < stop_at:
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=10,
                                           source_address=(f"127.0.0.{n + 2}", 0))
            c.request("GET", "/login")
            r = c.getresponse(); body = r.read().decode(); c.close()
            cookie = (r.getheader("Set-Cookie") or "").split(";")[0]
            token = body.split('name=token value="')[1].split('"')[0]
            form = urllib.parse.urlencode({"token": token, "name": f"u{random.randrange(10**6)}",
                                           "password": "wrong guess"})
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=10,
                                           source_address=(f"127.0.0.{n + 2}", 0))
            c.request("POST", "/login", body=form, headers={"Cookie": cookie,
                      "Content-Type": "application/x-www-form-urlencoded"})
            status = c.getresponse().status; c.close()
        except Exception as exc:
            status = type(exc).__name__
        with lock:
            counts[status] = counts.get(status, 0) + 1
threads = [threading.Thread(target=one, args=(n,)) for n in range(clients)]
[t.start() for t in threads]; print("flooding", flush=True)
sys.stdin.read(); stop_at = 0; [t.join() for t in threads]
print(" ".join(f"{k}:{v}" for k, v in sorted(counts.items(), key=str)), flush=True)
"""


QUIET, FLOODED = "sqlite + dashboard", "sqlite + dashboard + flood"
CPU_GROUPS = ("loop", "hashing", "store and other threads")
Cpu = dict[str, float]


def process_cpu(pid: int) -> Cpu:
    """Processor seconds each thread group of a process has used so far (Linux /proc): the
    main thread (the event loop), the threads at nice 19 (password hashing), the others."""
    tick = os.sysconf("SC_CLK_TCK")
    used = dict.fromkeys(CPU_GROUPS, 0.0)
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # the thread ended
        seconds = (int(fields[11]) + int(fields[12])) / tick  # utime, stime
        nice = int(fields[16])
        group = "loop" if task.name == str(pid) else "hashing" if nice == 19 else CPU_GROUPS[2]
        used[group] += seconds
    return used


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def plain(broker: Broker, tables: int, per_table: int, size: int) -> float:
    """Messages/s of plain aiomqtt QoS 1 with an acking subscriber."""
    payload = b"x" * size
    acked: dict[int, int] = dict.fromkeys(range(tables), 0)
    ready = asyncio.Event()

    async def acker() -> None:
        async with aiomqtt.Client(broker.host, broker.port, max_inflight_messages=WINDOW) as c:
            await c.subscribe("bench/results/#", qos=1)
            ready.set()
            async for message in c.messages:
                await c.publish(f"bench/acks/{str(message.topic).split('/')[-1]}", b"1", qos=1)

    async def table(n: int) -> None:
        async with aiomqtt.Client(broker.host, broker.port, max_inflight_messages=WINDOW) as c:
            await c.subscribe(f"bench/acks/{n}", qos=1)
            sender = asyncio.ensure_future(_send(c, n, per_table, payload))
            async for _ in c.messages:
                acked[n] += 1
                if acked[n] == per_table:
                    break
            await sender

    async with running(acker()):
        await ready.wait()
        start = time.perf_counter()
        await asyncio.gather(*(table(n) for n in range(tables)))
        return tables * per_table / (time.perf_counter() - start)


async def _send(c: aiomqtt.Client, n: int, count: int, payload: bytes) -> None:
    c.pending_calls_threshold = 10 * WINDOW
    for i in range(0, count, WINDOW):
        batch = range(i, min(count, i + WINDOW))
        await asyncio.gather(*(c.publish(f"bench/results/{n}", payload, qos=1) for _ in batch))


async def recorder(
    broker: Broker, work: Path, db: str, tables: int, per_table: int, flood: int | None
) -> tuple[float, Cpu, str]:
    """(results/s end to end, the recorder's processor ms per result by thread group, what the
    flood got) for one recorder process (with its dashboard unless `flood` is None, and that
    many clients flooding its log in)."""
    work.mkdir(parents=True)
    names = [f"t{i:02d}" for i in range(tables)]
    for name in names:
        fill_outbox(work / f"{name}.db", name, per_table)  # ~1,700 bytes each
    keys = work / "keys.toml"
    keys.write_text("[tables]\n" + "".join(f'{n} = "{KEY_TEXT}"\n' for n in names))
    keys.chmod(0o600)
    command = [sys.executable, "-m", "controller", "hub", "--mqtt", broker.url, "--db", db,
               "--keys", str(keys), "--run-dir", str(work / "run")]  # fmt: skip
    port = _free_port()
    if flood is not None:
        users = work / "operators"
        users.write_text(f"referee:{hash_password('correct horse battery')}\n")
        command += ["--http", f"127.0.0.1:{port}", "--http-users", str(users)]
    log = (work / "hub.log").open("wb")
    hub = subprocess.Popen(command, stdout=log, stderr=log, cwd=ROOT)
    flooder: subprocess.Popen[str] | None = None
    try:
        await wait_until(lambda: (work / "run" / "hub-hub.json").exists(), 60)
        if flood:
            await wait_until(lambda: b"dashboard on" in (work / "hub.log").read_bytes(), 60)
            flooder = subprocess.Popen(
                [sys.executable, "-c", FLOOD, str(port), str(flood)],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
            )  # fmt: skip
            assert flooder.stdout is not None
            await asyncio.to_thread(flooder.stdout.readline)  # "flooding"
        links = [make_link(broker.url, work / f"{n}.db", n, TIMING) for n in names]
        async with running(*(link.run() for link in links)):
            await wait_until(lambda: all(link.hub_online for link in links))
            start, cpu_start = time.perf_counter(), process_cpu(hub.pid)
            await wait_until(lambda: all(link.outbox.pending_count() == 0 for link in links))
            elapsed, cpu_end = time.perf_counter() - start, process_cpu(hub.pid)
        for link in links:
            link.outbox.close()
    finally:
        said = ""
        if flooder is not None:
            said = (await asyncio.to_thread(flooder.communicate, ""))[0].strip()
        hub.terminate()
        hub.wait()
        log.close()
    total = tables * per_table
    cpu = {k: 1000 * (cpu_end[k] - cpu_start[k]) / total for k in CPU_GROUPS}
    return total / elapsed, cpu, said


async def main(args: argparse.Namespace) -> None:
    """Run the rounds and print the figures."""
    with tempfile.TemporaryDirectory(prefix="recorder-bench-") as tmp, cluster() as pg:
        work = Path(tmp)
        broker = start_broker(work / "broker")
        figures: dict[str, list[float]] = {}
        cpus: dict[str, list[Cpu]] = {}
        floods: list[str] = []
        try:
            for round_ in range(args.rounds):
                runs = list(_runs(args, broker, work / f"r{round_}", pg, floods).items())
                for name, run in runs[:: -1 if round_ % 2 else 1]:
                    if args.only and name not in args.only:
                        continue
                    rate, cpu = await run()
                    figures.setdefault(name, []).append(rate)
                    shown = ""
                    if cpu is not None:
                        cpus.setdefault(name, []).append(cpu)
                        shown = f"  recorder {sum(cpu.values()):.2f} ms/result ({_split(cpu)})"
                    said = f"round {round_ + 1}: {name:27s} {rate:7.0f} results/s{shown}"
                    print(said, flush=True)
        finally:
            broker.kill()
    total = args.tables * args.per_table
    print(f"\n{args.tables} tables x {args.per_table} results ({total} a run), "
          f"{args.rounds} rounds; median (min-max) results/s")  # fmt: skip
    for name, rates in figures.items():
        print(f"  {name:27s} {statistics.median(rates):7.0f} ({min(rates):.0f}-{max(rates):.0f})")
    print("the recorder's processor time, ms per result: median (min-max) [median by thread]")
    for name, measured in cpus.items():
        sums = [sum(cpu.values()) for cpu in measured]
        middle = {k: statistics.median(cpu[k] for cpu in measured) for k in CPU_GROUPS}
        print(f"  {name:27s} {statistics.median(sums):5.2f} ({min(sums):.2f}-{max(sums):.2f}) "
              f"[{_split(middle)}]")  # fmt: skip
    quiet, flooded = figures.get(QUIET), figures.get(FLOODED)
    if not (quiet and flooded):
        return
    ratios = [q / f for q, f in zip(quiet, flooded, strict=True)]
    print(
        f"  login flood ({args.flood_clients} clients): recording "
        f"{statistics.median(quiet) / statistics.median(flooded):.2f}x slower than without "
        f"(per round: {', '.join(f'{r:.2f}' for r in ratios)}; goal: within 1.2x)"
    )
    quiet_ms, flooded_ms = ([sum(c.values()) for c in cpus[k]] for k in (QUIET, FLOODED))
    per_round = [f / q for q, f in zip(quiet_ms, flooded_ms, strict=True)]
    print(
        f"  login flood: the recorder's processor time per result "
        f"{statistics.median(flooded_ms) / statistics.median(quiet_ms):.2f}x that without "
        f"(per round: {', '.join(f'{r:.2f}' for r in per_round)})"
    )
    print(f"  flood answers per run (status:count): {' | '.join(floods)}")


def _split(cpu: Cpu) -> str:
    return ", ".join(f"{k} {v:.2f}" for k, v in cpu.items())


Run = Callable[[], Coroutine[Any, Any, tuple[float, Cpu | None]]]


def _runs(
    args: argparse.Namespace, broker: Broker, work: Path, pg: PgCluster, floods: list[str]
) -> dict[str, Run]:
    t, n = args.tables, args.per_table

    async def sqlite(flood: int | None = None, where: str = "sqlite") -> tuple[float, Cpu]:
        rate, cpu, said = await recorder(
            broker, work / where, str(work / f"{where}.sqlite3"), t, n, flood
        )
        if flood:
            floods.append(said)
        return rate, cpu

    async def postgresql() -> tuple[float, Cpu]:
        rate, cpu, _ = await recorder(broker, work / "pg", pg.new_database(), t, n, None)
        return rate, cpu

    async def plain_qos1() -> tuple[float, Cpu | None]:
        return await plain(broker, t, n, 1735), None  # the size of a signed result

    async def dashboard() -> tuple[float, Cpu]:
        return await sqlite(0, "dashboard")

    async def flooded() -> tuple[float, Cpu]:
        return await sqlite(args.flood_clients, "flood")

    return {
        "plain aiomqtt QoS 1": plain_qos1,
        "sqlite": sqlite,
        "postgresql": postgresql,
        QUIET: dashboard,
        FLOODED: flooded,
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=10, help="tables sending at once")
    parser.add_argument("--per-table", type=int, default=100, help="results per table")
    parser.add_argument("--rounds", type=int, default=3, help="repeats of every configuration")
    parser.add_argument("--flood-clients", type=int, default=12, help="login flood clients")
    parser.add_argument(
        "--only", nargs="*", help="run only these configurations (by name, as printed)"
    )
    asyncio.run(main(parser.parse_args()))
