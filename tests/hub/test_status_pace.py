"""The table's status is published at a bounded pace: a burst of changes within one interval of
the table's clock becomes at most one more status message, always the newest; a change of
phase or a fault goes out at once. Driven on a manual clock against a real broker."""

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import aiomqtt
import pytest

from controller.clock import ManualClock
from controller.hub.contract.envelopes import StatusMessage, decode
from controller.hub.contract.table_events import TableStatus
from controller.hub.contract.topics import Topics
from controller.hub.table_side.hub_link import HubLink
from devsupport.mosquitto import Broker
from tests.hub.factories import PLAYERS, SessionBook
from tests.hub.helpers import eventually, let_pass, looked_again, make_link, running

pytestmark = pytest.mark.broker
TOPICS = Topics()
FAULT = "walls jammed: clear the tiles from the east lift, then press resume"


def _playing(penalty: int) -> TableStatus:
    return TableStatus(
        state="playing", session="s1", hand=2, players=list(PLAYERS), penalties=[penalty, 0, 0, 0]
    )


@contextlib.asynccontextmanager
async def _hub_view(broker: Broker) -> AsyncIterator[list[StatusMessage]]:
    """Every status message the broker passes on, in order, while the block runs."""
    seen: list[StatusMessage] = []
    async with aiomqtt.Client(broker.host, broker.port) as reader:
        await reader.subscribe(TOPICS.status("t1"), qos=1)

        async def listen() -> None:
            async for message in reader.messages:
                seen.append(decode(bytes(message.payload), StatusMessage))

        task = asyncio.ensure_future(listen())
        try:
            yield seen
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


async def _heard(seen: list[StatusMessage], link: HubLink, status: TableStatus) -> None:
    """Wait until the hub has heard `status` (the link's own sends wake the wait)."""
    async with asyncio.timeout(20):
        while not (seen and seen[-1].status == status):
            await looked_again(link, turns=1)


async def test_a_burst_of_changes_becomes_one_status_with_the_newest(
    broker: Broker, tmp_path: Path
) -> None:
    clock = ManualClock()
    link = make_link(broker.url, tmp_path / "outbox.db", SessionBook(), clock=clock)
    interval = link.timing.status_interval_s
    async with running(link.run()), _hub_view(broker) as seen:
        await eventually(lambda: link.connected and not link.outbox.feed_head(1), "online")
        link.update_status(_playing(0))  # a change of phase: at once
        await _heard(seen, link, _playing(0))
        first = seen[-1].seq
        for penalty in range(1, 51):  # fifty changes within one interval
            link.update_status(_playing(penalty))
        await let_pass(clock, interval, link)
        await _heard(seen, link, _playing(50))
        assert seen[-1].seq - first <= 2, "a burst within one interval makes at most 2 statuses"
        assert len([m for m in seen if m.seq > first]) <= 2
        await let_pass(clock, 2 * interval, link)
        assert seen[-1].status == _playing(50), "the newest status is the one the hub keeps"


async def test_a_fault_goes_out_at_once(broker: Broker, tmp_path: Path) -> None:
    clock = ManualClock()
    link = make_link(broker.url, tmp_path / "outbox.db", SessionBook(), clock=clock)
    fault = TableStatus(state="fault", session="s1", hand=2, players=list(PLAYERS), fault=FAULT)
    async with running(link.run()), _hub_view(broker) as seen:
        await eventually(lambda: link.connected and not link.outbox.feed_head(1), "online")
        link.update_status(_playing(0))
        link.update_status(_playing(1))  # within the interval: waits for its end
        link.update_status(fault)  # the clock stands still: the fault may not wait
        await _heard(seen, link, fault)
        assert seen[-1].status.fault == FAULT and clock.monotonic() == 0.0
