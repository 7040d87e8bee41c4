"""The recorder's store off the recorder's event loop: every call runs on the store's one worker
thread (the engine's connection belongs to it), so a slow disk or a slow database delays only
the store, never the acks of other work, the broker link or the dashboard.

A failure of the engine (a full disk, a database out of reach) is a state, not a crash: the
call raises `StoreDown`, `outage` says since when and why, and the next call first reopens the
connection. The recorder decides what to do meanwhile (it stops acking).
"""

import asyncio
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TypeVar

from controller.clock import Clock, SystemClock
from controller.venue.store import ResultStore
from controller.venue.store_engines import StoreFault, StoreUnavailable

_log = logging.getLogger(__name__)
T = TypeVar("T")


@dataclass(frozen=True)
class Outage:
    """The store is down: since when (wall clock) and why."""

    since: float
    fault: StoreFault


class StoreDown(Exception):
    """A store call failed because the store is down (`fault` says why)."""

    def __init__(self, fault: StoreFault) -> None:
        super().__init__(fault.text)
        self.fault = fault


class AsyncStore:
    """An opened `ResultStore` used from the event loop through its worker thread."""

    def __init__(self, store: ResultStore, clock: Clock | None = None) -> None:
        self.sync = store
        """The store's own calls: for its worker, and for a caller once the recorder stopped."""
        self.clock = clock or SystemClock()
        self.outage: Outage | None = None
        self.listeners: list[Callable[[], None]] = []
        """Told (on the loop) when the store goes down or comes back."""
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="results-store")
        self._broken = False

    @property
    def where(self) -> str:
        """The store as the venue names it."""
        return self.sync.where

    async def call(self, work: Callable[[ResultStore], T]) -> T:
        """Run `work(store)` on the worker thread; StoreDown if the store fails."""
        loop = asyncio.get_running_loop()
        try:
            result = await loop.run_in_executor(self._worker, self._guarded, work)
        except StoreUnavailable as exc:
            self._down(exc.fault)
            raise StoreDown(exc.fault) from None
        if self.outage is not None:
            self._up()
        return result

    async def transaction(self, work: Callable[[ResultStore], T]) -> T:
        """Run `work(store)` in one transaction on the worker thread: all of it or nothing."""
        return await self.call(lambda store: _in_transaction(store, work))

    def _guarded(self, work: Callable[[ResultStore], T]) -> T:
        """On the worker: reopen a connection that failed, run the work, name a failure."""
        if self._broken:
            self.sync.open()  # StoreUnavailable while the store is still down
            self._broken = False
        try:
            return work(self.sync)
        except StoreUnavailable:
            self._broken = True
            raise
        except Exception as exc:
            fault = self.sync.engine.fault(exc)
            if fault is None:
                raise
            self._broken = True
            raise StoreUnavailable(fault) from exc

    def _down(self, fault: StoreFault) -> None:
        if self.outage is None:
            _log.error(
                "results store down: %s; results are not acked until it returns (the tables "
                "keep them)",
                fault.text,
            )
            self.outage = Outage(self.clock.wall(), fault)
        elif self.outage.fault != fault:
            _log.warning("results store still down: %s", fault.text)
            self.outage = Outage(self.outage.since, fault)
        else:
            return
        self._tell()

    def _up(self) -> None:
        assert self.outage is not None
        down_s = self.clock.wall() - self.outage.since
        _log.warning("results store back after %.0f s: recording again", down_s)
        self.outage = None
        self._tell()

    def _tell(self) -> None:
        for listener in self.listeners:
            listener()

    def close(self) -> None:
        """Wait for the worker's last call, then close the connection."""
        self._worker.shutdown(wait=True)
        self.sync.close()


def _in_transaction(store: ResultStore, work: Callable[[ResultStore], T]) -> T:
    with store:
        return work(store)
