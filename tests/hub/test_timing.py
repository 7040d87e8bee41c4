"""Waits on the link's clock end when they should, cancellations included."""

import asyncio
import contextlib

from controller.clock import ManualClock
from controller.hub.mqtt.link_timing import Pacer


async def test_a_cancellation_a_library_swallowed_still_stops_the_link(clock: ManualClock) -> None:
    pacer = Pacer(clock, tick_s=0.01)

    async def sender() -> None:
        # As asyncio.wait_for of Python 3.11 may do when its result comes with the cancel:
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.sleep(10)
        await pacer.sleep(60.0)  # an idle wait the table would otherwise sit in

    task = asyncio.ensure_future(sender())
    await asyncio.sleep(0)
    task.cancel()
    done, _ = await asyncio.wait({task}, timeout=2.0)
    assert task in done and task.cancelled(), "the sender stopped"
