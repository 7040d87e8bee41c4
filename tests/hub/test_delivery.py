"""End-to-end delivery when things break: the broker killed twice, the table daemon killed
mid-publish, the network stalled for 30 simulated seconds. The hub ends with every result once."""

import asyncio
import dataclasses
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from controller.clock import ManualClock
from controller.hub.contract.envelopes import StatusMessage, decode
from controller.venue.recorder import Recorder
from devsupport.mosquitto import Broker
from tests.hub.factories import FAST, SessionBook, hand_result
from tests.hub.helpers import eventually, let_pass, make_link, make_recorder, running
from tests.hub.proxy import PausingProxy

pytestmark = [pytest.mark.broker, pytest.mark.slow]
ROOT = Path(__file__).parents[2]


def _held_once(recorder: Recorder) -> dict[int, str]:
    """seq -> id of everything the hub holds, failing if a result is there twice."""
    stored = list(recorder.store.sync.results())
    by_seq = {s.seq: s.id for s in stored}
    assert len(by_seq) == len(stored), "a sequence number was recorded twice"
    return by_seq


async def test_1000_results_survive_two_broker_kills(broker: Broker, tmp_path: Path) -> None:
    link = make_link(broker.url, tmp_path / "outbox.db", SessionBook())
    recorder = make_recorder(broker.url, tmp_path / "hub.db")
    ids: list[str] = []
    async with running(recorder.run()), running(link.run()):
        for kill_at in (300, 650):
            while len(ids) < kill_at + 50:
                ids.append(link.record_result(hand_result(len(ids) + 1)).id)
                if len(ids) % 25 == 0:
                    await asyncio.sleep(0)  # let the link send while results keep coming
            await eventually(_count_at_least(recorder, kill_at), f"{kill_at} recorded")
            broker.restart(hard=True)
        while len(ids) < 1000:
            ids.append(link.record_result(hand_result(len(ids) + 1)).id)
        await eventually(lambda: link.pending_results == 0, "all 1000 acked", limit_s=60)
    print(f"link {link.stats}, recorder {recorder.counters}")
    held = _held_once(recorder)
    assert sorted(held) == list(range(1, 1001))
    assert set(held.values()) == set(ids)


def _count_at_least(recorder: Recorder, count: int) -> Callable[[], bool]:
    return lambda: recorder.store.sync.count() >= count


def _start_table(broker: Broker, outbox: Path, count: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.hub.table_process", broker.url, str(outbox), str(count)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )


def _lines(process: subprocess.Popen[str]) -> Iterator[str]:
    assert process.stdout is not None
    yield from iter(process.stdout.readline, "")


async def test_a_table_killed_mid_publish_loses_nothing(broker: Broker, tmp_path: Path) -> None:
    recorder = make_recorder(broker.url, tmp_path / "hub.db")
    outbox = tmp_path / "outbox.db"
    committed: dict[int, str] = {}
    async with running(recorder.run()):
        table = _start_table(broker, outbox, 400)
        lines = _lines(table)
        while len(committed) < 120:
            seq, result_id = (await asyncio.to_thread(next, lines)).split()
            committed[int(seq)] = result_id
        table.kill()  # SIGKILL: no goodbye, nothing flushed
        table.wait()
        committed.update((int(s), i) for s, i in (line.split() for line in lines))
        await eventually(lambda: _table_online(recorder) is False, "the table's will: offline")
        table = _start_table(broker, outbox, 0)
        try:
            await eventually(
                lambda: recorder.store.sync.count() >= len(committed), "all recorded", 30
            )
        finally:
            table.kill()
            table.wait()
    held = _held_once(recorder)
    assert {s: held[s] for s in committed} == committed
    assert sorted(held) == list(range(1, len(held) + 1))


def _table_online(recorder: Recorder) -> bool | None:
    payload = recorder.store.sync.status("t1")
    return None if payload is None else decode(payload, StatusMessage).online


async def test_a_network_stall_of_30_simulated_seconds(broker: Broker, tmp_path: Path) -> None:
    proxy = PausingProxy(broker.host, broker.port)
    await proxy.start()
    clock = ManualClock()
    impatient = dataclasses.replace(FAST, connect_timeout_s=0.3, publish_timeout_s=0.3)
    link = make_link(
        proxy.url, tmp_path / "outbox.db", SessionBook(), clock=clock, timing=impatient
    )
    recorder = make_recorder(broker.url, tmp_path / "hub.db")
    ids = []
    try:
        async with running(recorder.run()), running(link.run()):
            ids += [link.record_result(hand_result(h)).id for h in range(1, 11)]
            await eventually(lambda: link.pending_results == 0, "first ten acked")
            proxy.pause()
            ids += [link.record_result(hand_result(h)).id for h in range(11, 41)]
            for _ in range(30):  # 30 s on the table's clock, in a few seconds of real time
                await let_pass(clock, 1.0, link)
            await eventually(lambda: not link.connected, "the table notices the stall")
            assert recorder.store.sync.count() == 10
            proxy.resume()
            for _ in range(100):
                if link.pending_results == 0:
                    break
                await let_pass(clock, 1.0, link)
            await eventually(lambda: link.pending_results == 0, "all forty acked")
    finally:
        await proxy.stop()
    held = _held_once(recorder)
    assert sorted(held) == list(range(1, 41)) and set(held.values()) == set(ids)
    assert link.stats.connects >= 2
