"""Dashboard viewers benchmark: what each extra viewer of the floor costs the recorder.

    .venv/bin/python bench/viewers_bench.py [--tables 50] [--results 400] [--gap 0.05]
                                            [--viewers 1 20] [--screens DIR]

`mahjong-table hub --http` (its own process) records from a real mosquitto while --tables
tables send --results results between them, one every --gap seconds, always the same
sequence. Meanwhile N viewers hold the floor's event stream open (plain HTTP clients that
read every event, as a browser would). The figure is the recorder process's CPU seconds
(user + system, from /proc) from the first result to the last, for each N, and the ratio to
one viewer (goal: 20 viewers cost at most 1.5 x one).

With --screens DIR, the floor of the last run is also photographed in headless Chromium at
1366x768 (a wall screen) and 390x844 (a phone), after giving a few tables other states.
"""

import argparse
import asyncio
import contextlib
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.dashboard_bench import Hub, browser, free_port, start_hub
from bench.hub_bench import TIMING, cpu_seconds, running, wait_until
from bench.hub_support import KEY_TEXT, Broker, make_link, start_broker
from controller.hub.contract.table_events import TableStatus
from controller.hub.table_side.hub_link import HubLink
from devsupport.hub_samples import hand_result


async def _viewer(port: int, events: list[int]) -> None:
    """Hold the floor's event stream open and read everything it sends."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"GET /events?view=floor HTTP/1.1\r\nHost: bench\r\n\r\n")
    await writer.drain()
    try:
        while chunk := await reader.read(65536):
            events[0] += chunk.count(b"\nevent: ") + chunk.startswith(b"event: ")
    finally:
        writer.close()


def _players(table: int) -> tuple[str, str, str, str]:
    return tuple(f"p{4 * table + k:03d}" for k in range(4))  # type: ignore[return-value]


async def one_run(
    broker: Broker, work: Path, tables: int, results: int, gap: float, viewers: int
) -> tuple[float, int, Hub, list[HubLink], int]:
    """(recorder CPU seconds, events read, the hub, the links, its port) for one run; the
    caller stops the hub."""
    names = [f"t{i:02d}" for i in range(tables)]
    keys = work / "keys.toml"
    keys.write_text("[tables]\n" + "".join(f'{n} = "{KEY_TEXT}"\n' for n in names))
    keys.chmod(0o600)
    port = free_port()
    hub = await start_hub(broker.url, work / "hub.db", keys, work / "hub.log", port)
    links = [make_link(broker.url, work / f"{n}.db", n, TIMING) for n in names]
    events = [0]
    async with running(*(link.run() for link in links)):
        await wait_until(lambda: all(link.hub_online for link in links))
        for i, link in enumerate(links):
            link.update_status(TableStatus(state="playing", session=f"day.r1.{names[i]}",
                                           hand=1, players=list(_players(i))))  # fmt: skip
        async with running(*(_viewer(port, events) for _ in range(viewers))):
            await asyncio.sleep(1.0)  # the viewers' first full floor
            start = cpu_seconds(hub.process.pid)
            hands = [0] * tables
            for n in range(results):
                i = (n * 7) % tables  # the same spread of tables every run
                hands[i] += 1
                links[i].record_result(hand_result(hands[i], f"day.r1.{names[i]}", _players(i)))
                await asyncio.sleep(gap)
            await wait_until(lambda: hub.count() == results, 120)
            await asyncio.sleep(0.5)  # the last pushes
            used = cpu_seconds(hub.process.pid) - start
    return used, events[0], hub, links, port


async def screens(broker: Broker, work: Path, tables: int, out: Path) -> list[str]:
    """Photograph the floor of `tables` tables at a wall screen's and a phone's size."""
    used, _, hub, links, port = await one_run(broker, work, tables, 2 * tables, 0.0, 0)
    del used
    shots = []
    names = [f"t{i:02d}" for i in range(tables)]
    async with running(*(link.run() for link in links)):
        await wait_until(lambda: all(link.hub_online for link in links))
        states = {
            3: TableStatus(state="paused", session=f"day.r1.{names[3]}", hand=3),
            7: TableStatus(state="fault", fault="motor stalled: the wall lift did not reach "
                           "the top within 4 s. Switch the table off, clear any tile under "
                           "the lift, then switch it on again"),
            11: TableStatus(state="session_over", session=f"day.r1.{names[11]}"),
            15: TableStatus(state="idle"),
        }  # fmt: skip
        for i, status in states.items():
            links[i].update_status(status)
        await asyncio.sleep(2.0)
        driver = browser(work / "profile")
        try:
            for width, height in ((1366, 768), (390, 844)):
                await asyncio.to_thread(driver.set_window_size, width, height)
                await asyncio.to_thread(driver.get, f"http://127.0.0.1:{port}/")
                await asyncio.sleep(1.5)
                path = out / f"floor-{tables}-tables-{width}x{height}.png"
                await asyncio.to_thread(driver.save_screenshot, str(path))
                shots.append(str(path))
        finally:
            driver.quit()
    for link in links:
        link.outbox.close()
    await hub.stop()
    return shots


async def main(args: argparse.Namespace) -> None:
    """Run once per viewer count and print the figures."""
    with tempfile.TemporaryDirectory(prefix="viewers-bench-") as tmp:
        work = Path(tmp)
        broker = start_broker(work / "broker")
        try:
            cpu: dict[int, float] = {}
            for n in args.viewers:
                run = work / f"v{n}"
                run.mkdir()
                t0 = time.perf_counter()
                used, events, hub, links, _ = await one_run(
                    broker, run, args.tables, args.results, args.gap, n
                )
                for link in links:
                    link.outbox.close()
                await hub.stop()
                cpu[n] = used
                print(f"{n:3d} viewers: recorder CPU {used:6.2f} s for {args.results} results "
                      f"at {args.tables} tables ({events} events read, "
                      f"{time.perf_counter() - t0:.0f} s)", flush=True)  # fmt: skip
            first = cpu[args.viewers[0]]
            for n in args.viewers[1:]:
                print(f"{n} viewers / {args.viewers[0]}: {cpu[n] / first:.2f} x", flush=True)
            if args.screens:
                args.screens.mkdir(parents=True, exist_ok=True)
                (work / "screens").mkdir()
                for shot in await screens(broker, work / "screens", args.tables, args.screens):
                    print(f"screenshot: {shot}", flush=True)
        finally:
            broker.kill()
            with contextlib.suppress(OSError):
                shutil.rmtree(work / "screens" / "profile", ignore_errors=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--results", type=int, default=400)
    parser.add_argument("--gap", type=float, default=0.05)
    parser.add_argument("--viewers", type=int, nargs="+", default=[1, 20])
    parser.add_argument("--screens", type=Path, help="where to save the floor screenshots")
    asyncio.run(main(parser.parse_args()))
