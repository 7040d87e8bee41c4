"""Running links and recorders inside a test, and waiting for their state to change (a real
timeout only bounds how long a failing test waits)."""

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Coroutine
from pathlib import Path
from typing import Any

from controller.clock import Clock, ManualClock
from controller.hub.contract.envelopes import StatusMessage, decode
from controller.hub.contract.signing import TableKey
from controller.hub.contract.topics import Topics
from controller.hub.mqtt.aiomqtt_transport import AiomqttConnector
from controller.hub.mqtt.changes import Changes
from controller.hub.mqtt.link_timing import Backoff, LinkTiming
from controller.hub.mqtt.transport import BrokerAddress
from controller.hub.table_side.dispatcher import TableControl
from controller.hub.table_side.hub_link import HubLink
from controller.hub.table_side.outbox import Outbox
from controller.venue.async_store import AsyncStore
from controller.venue.keyring import KeyRing
from controller.venue.recorder import Recorder, RecorderSettings
from controller.venue.store import open_store
from devsupport.hub_samples import KEY_TEXT, table_link
from tests.hub.factories import FAST

OPENED: list[Outbox] = []  # closed after each test by tests/hub/conftest.py
WATCHED: list[Changes] = []  # the links' and recorders' change signals; cleared likewise


async def eventually(check: Callable[[], bool], what: str, limit_s: float = 20.0) -> None:
    """Wait until `check()` holds, looking again each time a link or recorder this test made
    changes state (no polling); fail saying `what` did not happen within `limit_s`."""
    if not WATCHED:
        raise AssertionError("eventually() needs a link or recorder made by these helpers")
    try:
        async with asyncio.timeout(limit_s):
            while not check():
                await _any_change()
    except TimeoutError:
        raise AssertionError(f"timed out after {limit_s} s waiting for: {what}") from None


async def _any_change() -> None:
    waits = [asyncio.ensure_future(changes.next_change()) for changes in WATCHED]
    try:
        await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for wait in waits:
            wait.cancel()


@contextlib.asynccontextmanager
async def running(job: Coroutine[Any, Any, None]) -> AsyncIterator[asyncio.Task[None]]:
    """Run a coroutine as a task for the duration of the block, then cancel it."""
    task = asyncio.ensure_future(job)
    try:
        yield task
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def retained_status(url: str, table: str = "t1") -> StatusMessage:
    """The table's retained status as a dashboard connecting now would read it."""
    address = BrokerAddress.from_url(url)
    async with AiomqttConnector(address, FAST).session(None) as reader:
        await reader.subscribe(Topics().status(table))
        async with asyncio.timeout(5):
            async for message in reader.incoming():
                return decode(message.payload, StatusMessage)
    raise AssertionError("no retained status")


def connector(
    url: str, client_id: str = "", persistent: bool = False, tls: dict[str, Path] | None = None
) -> AiomqttConnector:
    """An aiomqtt connector with the tests' short timings."""
    address = BrokerAddress.from_url(url, client_id=client_id, persistent=persistent, **(tls or {}))
    return AiomqttConnector(address, FAST)


def make_link(
    url: str,
    outbox_path: Path,
    control: TableControl,
    table: str = "t1",
    clock: Clock | None = None,
    timing: LinkTiming = FAST,
    tls: dict[str, Path] | None = None,
    key: str = KEY_TEXT,
    keep_acked: int = 10_000,
) -> HubLink:
    """A table's hub link on `url` with its own outbox file."""
    outbox = opened(outbox_path, keep_acked)
    link = table_link(url, outbox, control, table, timing, clock, tls, key)
    WATCHED.append(link.changes)
    return link


def opened(path: Path, keep_acked: int = 10_000) -> Outbox:
    """An outbox that the test's teardown closes (its writer thread stops)."""
    OPENED.append(Outbox(path, keep_acked=keep_acked).open())
    return OPENED[-1]


def make_recorder(
    url: str,
    db: Path | str,
    tables: tuple[str, ...] = ("t1",),
    tls: dict[str, Path] | None = None,
    clock: Clock | None = None,
    timing: LinkTiming = FAST,
    name: str = "hub",
    client_id: str = "hub-test",
) -> Recorder:
    """A recorder on `url` that knows the tests' key for every table in `tables`; `db` is a
    SQLite path or a PostgreSQL URL. It tries a store that is down again within 0.4 s."""
    keys = KeyRing({t: TableKey(KEY_TEXT) for t in tables})
    settings = RecorderSettings(name=name, timing=timing, store_retry=Backoff(0.05, 2.0, 0.4))
    hub = connector(url, client_id, persistent=True, tls=tls)
    recorder = Recorder(settings, AsyncStore(open_store(str(db))), keys, hub, clock)
    WATCHED.append(recorder.changes)
    return recorder


async def looked_again(*owners: HubLink | Recorder, turns: int = 2, limit_s: float = 20.0) -> None:
    """Wait until each link or recorder has looked at its clock `turns` more times: anything
    due by then has been done (a witness that something did *not* happen, without a sleep)."""
    async with asyncio.timeout(limit_s):
        for owner in owners:
            for _ in range(turns):
                await owner.pacer.turns.next_change()


async def let_pass(clock: ManualClock, seconds: float, *owners: HubLink | Recorder) -> None:
    """Move the manual clock on by `seconds` and wait until every owner has acted on it."""
    clock.advance(seconds)
    await looked_again(*owners)
