"""The virtual-time loop: idle time is jumped over, timers keep their order, and real work in
flight (an executor job, a job on the daemon's disk thread, a thread declared with hold_while)
is never jumped past."""

import asyncio
import hashlib
import threading
import time

from controller.disk import DiskWorker
from controller.sim.virtual_time import LoopClock, VirtualTimeLoop, run_virtual

HOUR = 3600.0


def _real_work() -> bytes:
    """A few milliseconds of CPU in a thread (no sleeping)."""
    return hashlib.pbkdf2_hmac("sha256", b"table", b"salt", 20_000)


def test_an_hour_of_sleeping_passes_at_once_and_timers_keep_their_order() -> None:
    async def main() -> tuple[float, list[str]]:
        loop = asyncio.get_running_loop()
        fired: list[str] = []
        loop.call_later(2.0, fired.append, "second")
        loop.call_later(1.0, fired.append, "first")
        await asyncio.sleep(HOUR)
        return loop.time(), fired

    now, fired = run_virtual(main)
    assert now == HOUR
    assert fired == ["first", "second"]


def test_a_timeout_fires_on_virtual_time() -> None:
    async def main() -> float:
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(30.0):
                await asyncio.Event().wait()
        except TimeoutError:
            return loop.time()
        raise AssertionError("the wait did not time out")

    assert run_virtual(main) == 30.0


def test_time_does_not_jump_past_an_executor_job() -> None:
    async def main() -> tuple[float, float]:
        loop = asyncio.get_running_loop()
        timer = asyncio.ensure_future(asyncio.sleep(HOUR))
        await loop.run_in_executor(None, _real_work)
        at_job_end = loop.time()
        await timer
        return at_job_end, loop.time()

    at_job_end, at_timer = run_virtual(main)
    assert at_job_end < HOUR
    assert at_timer == HOUR


def test_time_does_not_jump_past_a_job_on_the_daemons_disk_thread() -> None:
    """A black box line or an outbox file written on the disk thread takes real time: a timer
    of the simulated table (a turn clock, a hub timeout) must not fire before it is done."""

    async def main() -> tuple[bool, bool]:
        disk = DiskWorker.single_thread()
        try:
            timer = asyncio.ensure_future(asyncio.sleep(HOUR))
            await disk.call(_real_work)
            timer_first = timer.done()
            await timer
            posted = disk.post(_real_work)  # a flush nobody awaits (the black box's lines)
            await asyncio.sleep(HOUR)
            return timer_first, posted.done()
        finally:
            disk.shutdown()

    timer_first, posted_done = run_virtual(main)
    assert not timer_first, "the timer fired while the awaited disk job ran"
    assert posted_done, "the timer fired while a posted disk job ran"


def test_time_does_not_jump_while_a_hold_says_real_work_is_in_flight() -> None:
    async def main() -> float:
        loop = asyncio.get_running_loop()
        assert isinstance(loop, VirtualTimeLoop)
        finished = threading.Event()
        answer: asyncio.Future[None] = loop.create_future()

        def worker() -> None:
            _real_work()
            finished.set()
            loop.call_soon_threadsafe(answer.set_result, None)

        withdraw = loop.hold_while(lambda: not finished.is_set())
        timer = asyncio.ensure_future(asyncio.sleep(HOUR))
        threading.Thread(target=worker).start()
        await answer
        withdraw()
        at_answer = loop.time()
        await timer
        return at_answer

    assert run_virtual(main) < HOUR


def test_the_daemon_clock_reads_the_loop_and_starts_at_the_real_wall_clock() -> None:
    async def main() -> tuple[float, float, float]:
        clock = LoopClock(asyncio.get_running_loop())
        first_wall = clock.wall()
        await asyncio.sleep(60.0)
        return clock.monotonic(), clock.wall() - first_wall, first_wall

    monotonic, wall_moved, first_wall = run_virtual(main)
    assert monotonic == 60.0
    assert wall_moved == 60.0
    assert abs(first_wall - time.time()) < HOUR
