"""The recorder program assembled: keys file, results store and broker connection in, a
recorder out, run until SIGTERM or SIGINT."""

import asyncio
import contextlib
import signal
from collections.abc import Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiomqtt

from controller.hub.contract.topics import Topics
from controller.hub.mqtt.transport import MqttConnector
from controller.venue.async_store import AsyncStore
from controller.venue.keyring import KeyRing
from controller.venue.recorder import Recorder, RecorderSettings
from controller.venue.store import open_store


@dataclass(frozen=True)
class RecorderPlan:
    """What one recorder process records, from where, under which name."""

    name: str
    keys_path: Path
    db: str
    topic_root: str = "mahjong/"


def open_recorder(plan: RecorderPlan, connector: MqttConnector) -> tuple[Recorder, AsyncStore]:
    """Load the keys, open the store and build the recorder; the caller closes the store."""
    keys = KeyRing.load(plan.keys_path)
    store = AsyncStore(open_store(plan.db, f"mahjong-table recorder {plan.name}"))
    settings = RecorderSettings(name=plan.name, topics=Topics(plan.topic_root))
    return Recorder(settings, store, keys, connector), store


async def run_until_signal(job: Coroutine[Any, Any, None]) -> None:
    """Run the recorder (and what serves beside it) until SIGTERM or SIGINT."""
    task = asyncio.ensure_future(job)
    loop = asyncio.get_running_loop()
    loop.set_exception_handler(_quiet_mqtt_teardown)
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, task.cancel)
    with contextlib.suppress(asyncio.CancelledError):
        await task


def _quiet_mqtt_teardown(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """aiomqtt leaves futures failed with MqttError when SIGTERM tears the connection down;
    nobody awaits them any more, so they are not worth asyncio's "never retrieved" report."""
    if isinstance(context.get("exception"), aiomqtt.MqttError) and "future" in context:
        return
    loop.default_exception_handler(context)
