"""Dashboard benchmark: how soon a result shows in the browser, and the recorder's memory
after a tournament day.

    .venv/bin/python bench/dashboard_bench.py [--results 200] [--gap 0.05]
                                              [--tables 50] [--per-table 40]

1. Latency: `mahjong-table hub --http` (its own process) records from a real mosquitto while
   one table sends --results results, one every --gap seconds. Headless Chromium (Debian's,
   through selenium) shows the floor; a MutationObserver notes when the floor's result count
   changes. Latency of a result = the time the page showed it minus the time the recorder
   received it (`received` in the store; same machine, same wall clock). Baseline in the same
   run, in the same page: a script that fetches the floor once a second, as a dashboard
   without push would. Figures: p50 / p99 / max of both.
2. Memory: --tables tables x --per-table results (a tournament day) into two recorders on the
   same broker, one with the dashboard (--http) and one without; VmRSS of each after start
   and after recording everything, and the dashboard's floor page size and time to serve.
"""

import argparse
import asyncio
import contextlib
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.hub_bench import TIMING, fill_outbox, running, wait_until
from bench.hub_support import KEY_TEXT, Broker, make_link, sample_result, start_broker

ROOT = Path(__file__).resolve().parents[1]
OBSERVE = """
window.pushSeen = []; window.pollSeen = [];
var live = document.getElementById('live');
function count(text){ var m = /(\\d+) results recorded/.exec(text); return m ? +m[1] : -1; }
new MutationObserver(function(){ window.pushSeen.push([count(live.textContent), Date.now()]); })
  .observe(live, {childList: true, subtree: true, characterData: true});
setInterval(function(){ fetch('/').then(function(r){ return r.text(); }).then(function(t){
  window.pollSeen.push([count(t), Date.now()]); }); }, 1000);
"""


def free_port() -> int:
    """A free loopback TCP port."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def start_hub(url: str, db: Path, keys: Path, log: Path, http: int | None) -> "Hub":
    """`mahjong-table hub` in its own process (with the dashboard on `http` if given)."""
    command = [sys.executable, "-m", "controller", "hub", "--mqtt", url, "--db", str(db),
               "--keys", str(keys), "--name", db.stem]  # fmt: skip
    if http:
        command += ["--http", f"127.0.0.1:{http}"]
    out = log.open("wb")
    process = await asyncio.create_subprocess_exec(*command, stdout=out, stderr=out, cwd=ROOT)
    hub = Hub(process, db, http)
    await wait_until(lambda: "recorder online" in log.read_text(errors="replace"), 30)
    return hub


class Hub:
    """A running recorder process."""

    def __init__(self, process: asyncio.subprocess.Process, db: Path, http: int | None) -> None:
        self.process = process
        self.db = db
        self.http = http

    def rss_mib(self) -> float:
        """Resident memory now."""
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        kib = next(int(x.split()[1]) for x in status.splitlines() if x.startswith("VmRSS:"))
        return kib / 1024

    def received(self) -> list[float]:
        """When the recorder received each recorded result, in order."""
        with contextlib.closing(sqlite3.connect(self.db)) as db:
            return [float(r) for (r,) in db.execute("SELECT received FROM results ORDER BY 1")]

    def count(self) -> int:
        """Results recorded."""
        with contextlib.closing(sqlite3.connect(self.db)) as db:
            return int(db.execute("SELECT count(*) FROM results").fetchone()[0])

    async def stop(self) -> None:
        """SIGTERM and wait."""
        self.process.terminate()
        await self.process.wait()


def browser(profile: Path):  # type: ignore[no-untyped-def]
    """Headless Debian Chromium through Debian's chromedriver."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
                 f"--user-data-dir={profile}"):  # fmt: skip
        options.add_argument(flag)
    driver = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    return webdriver.Chrome(options=options, service=Service(executable_path=driver))


def appeared(seen: list[list[float]], received: list[float]) -> list[float]:
    """Seconds from each result's arrival to the first moment the page counted it."""
    out = []
    for index, arrived in enumerate(received, start=1):
        shown = min((t for n, t in seen if n >= index), default=None)
        if shown is not None:
            out.append(shown / 1000 - arrived)
    return out


def figures(name: str, delays: list[float], total: int) -> str:
    """p50 / p99 / max in milliseconds."""
    if not delays:
        return f"  {name}: nothing seen"
    ordered = sorted(delays)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    p50, top = statistics.median(ordered), ordered[-1]
    return (f"  {name}: p50 {1000 * p50:7.1f} ms   p99 {1000 * p99:7.1f} ms   "
            f"max {1000 * top:7.1f} ms   ({len(delays)}/{total})")  # fmt: skip


async def latency(broker: Broker, work: Path, results: int, gap: float) -> list[str]:
    """Part 1."""
    keys = work / "keys.toml"
    keys.write_text(f'[tables]\nt00 = "{KEY_TEXT}"\n')
    keys.chmod(0o600)
    port = free_port()
    hub = await start_hub(broker.url, work / "latency.db", keys, work / "latency.log", port)
    driver = browser(work / "profile")
    try:
        link = make_link(broker.url, work / "t00.db", "t00", TIMING)
        async with running(link.run()):
            await wait_until(lambda: link.hub_online)
            link.record_result(sample_result(1))
            await wait_until(lambda: hub.count() == 1)
            await asyncio.to_thread(driver.get, f"http://127.0.0.1:{port}/")
            await asyncio.to_thread(driver.execute_script, OBSERVE)
            for hand in range(2, results + 2):
                link.record_result(sample_result(hand))
                await asyncio.sleep(gap)
            await wait_until(lambda: hub.count() == results + 1)
            await asyncio.sleep(2.5)  # the last poll of the baseline
            push = await asyncio.to_thread(driver.execute_script, "return window.pushSeen;")
            poll = await asyncio.to_thread(driver.execute_script, "return window.pollSeen;")
        link.outbox.close()
        received = hub.received()[1:]
        # Counts on the page include the first result, recorded before the page opened.
        shift = [[n - 1, t] for n, t in push], [[n - 1, t] for n, t in poll]
    finally:
        driver.quit()
        await hub.stop()
    return [
        f"latency: result received by the recorder -> shown in Chromium, {results} results, "
        f"one every {1000 * gap:g} ms",
        figures("server-sent events (this dashboard)", appeared(shift[0], received), results),
        figures("baseline: page fetched every 1 s   ", appeared(shift[1], received), results),
    ]


async def memory(broker: Broker, work: Path, tables: int, per_table: int) -> list[str]:
    """Part 2."""
    names = [f"t{i:02d}" for i in range(tables)]
    for name in names:
        fill_outbox(work / f"{name}.db", name, per_table)
    keys = work / "keys.toml"
    keys.write_text("[tables]\n" + "".join(f'{n} = "{KEY_TEXT}"\n' for n in names))
    keys.chmod(0o600)
    port = free_port()
    with_http = await start_hub(broker.url, work / "dash.db", keys, work / "dash.log", port)
    plain = await start_hub(broker.url, work / "plain.db", keys, work / "plain.log", None)
    try:
        start = with_http.rss_mib(), plain.rss_mib()
        links = [make_link(broker.url, work / f"{n}.db", n, TIMING) for n in names]
        async with running(*(link.run() for link in links)):
            await wait_until(lambda: all(link.hub_online for link in links))
            await wait_until(lambda: with_http.count() == plain.count() == tables * per_table)
        for link in links:
            link.outbox.close()
        t0 = time.perf_counter()
        page = await asyncio.to_thread(
            lambda: urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=30).read()
        )
        served = time.perf_counter() - t0
        end = with_http.rss_mib(), plain.rss_mib()
    finally:
        await with_http.stop()
        await plain.stop()
    total = tables * per_table
    return [
        f"memory: a tournament day, {tables} tables x {per_table} hands = {total} results",
        f"  recorder with the dashboard:    RSS {start[0]:6.1f} MiB at start -> {end[0]:6.1f} MiB",
        f"  baseline, recorder without it:  RSS {start[1]:6.1f} MiB at start -> {end[1]:6.1f} MiB",
        f"  floor page of {tables} tables: {len(page) / 1024:.0f} KiB, served in "
        f"{1000 * served:.0f} ms",
    ]


async def main(args: argparse.Namespace) -> None:
    """Run both parts and print the figures."""
    with tempfile.TemporaryDirectory(prefix="dashboard-bench-") as tmp:
        work = Path(tmp)
        broker = start_broker(work / "broker")
        try:
            (work / "one").mkdir()
            for line in await latency(broker, work / "one", args.results, args.gap):
                print(line, flush=True)
            (work / "day").mkdir()
            for line in await memory(broker, work / "day", args.tables, args.per_table):
                print(line, flush=True)
        finally:
            broker.kill()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", type=int, default=200)
    parser.add_argument("--gap", type=float, default=0.05, help="seconds between results")
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--per-table", type=int, default=40)
    asyncio.run(main(parser.parse_args()))
