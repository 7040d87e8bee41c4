"""What subscribers of the link receive: MCU messages and link notices, through a Subscription."""

import asyncio
import contextlib
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType
from typing import TypeVar

from firmware_bridge.fields import Message
from firmware_bridge.messages import IdentifyReply


@dataclass(frozen=True, slots=True)
class Connected:
    """The handshake succeeded; after a loss `reconnected`, after an MCU restart `mcu_reset`."""

    identify: IdentifyReply
    reconnected: bool
    mcu_reset: bool


@dataclass(frozen=True, slots=True)
class Disconnected:
    """The link went down; commands fail with LinkDown until `Connected` comes again.

    `final`: the link stopped reconnecting (the MCU speaks another protocol); only a restart
    of the daemon after the firmware or the daemon is updated brings it back."""

    reason: str
    final: bool = False


@dataclass(frozen=True, slots=True)
class EventGap:
    """Events from the MCU were lost; a state re-query follows (snapshots, then `Resynced`)."""

    missed: int
    number: int
    """Gaps are numbered from 1 over the link's life; `Resynced.covers` names them."""


@dataclass(frozen=True, slots=True)
class Resynced:
    """The status, every zone inventory and every wall side were re-queried and delivered (the
    walls only if a build or a wall event came since they were last read: in play they stand
    still): what events up to gap `covers` would have told is known. A gap numbered higher
    came during the re-query; another re-query for it follows."""

    reason: str
    covers: int


@dataclass(frozen=True, slots=True)
class ZonesRead:
    """Every zone inventory a `Link.read_zones(token)` asked for was delivered before this."""

    token: float


Notice = Connected | Disconnected | EventGap | Resynced | ZonesRead
Item = Message | Notice
ItemT = TypeVar("ItemT", bound=Item)


class Subscription:
    """A queue of the link's events and notices; iterate it, or `await next(Type)`."""

    def __init__(self, types: tuple[type, ...], on_close: Callable[["Subscription"], None]) -> None:
        self._types = types
        self._items: deque[Item] = deque()
        # Waiters are futures of the subscriber's loop, found once: asyncio's own queue asks
        # for the running loop (a system call) every time a subscriber waits.
        self._waiters: deque[asyncio.Future[None]] = deque()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._on_close = on_close

    def put(self, item: Item) -> None:
        """Queue `item` if this subscription wants its type (called by the link)."""
        if not self._types or isinstance(item, self._types):
            self._items.append(item)
            self._wake_next()

    async def get(self) -> Item:
        """The next item, waiting for it."""
        while not self._items:
            if self._loop is None:
                self._loop = asyncio.get_running_loop()
            waiter = self._loop.create_future()
            self._waiters.append(waiter)
            try:
                await waiter
            except BaseException:
                waiter.cancel()
                with contextlib.suppress(ValueError):
                    self._waiters.remove(waiter)
                if self._items and not waiter.cancelled():
                    self._wake_next()
                raise
        return self._items.popleft()

    def _wake_next(self) -> None:
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                return

    async def next(self, kind: type[ItemT], within: float | None = None) -> ItemT:
        """Skip items until one of type `kind` arrives (TimeoutError after `within` s)."""
        async with asyncio.timeout(within):
            while True:
                item = await self.get()
                if isinstance(item, kind):
                    return item

    async def until(self, kind: type, within: float | None = None) -> list[Item]:
        """Every item up to and including the next one of type `kind`."""
        items: list[Item] = []
        async with asyncio.timeout(within):
            while not items or not isinstance(items[-1], kind):
                items.append(await self.get())
        return items

    def pending(self) -> list[Item]:
        """Take every item already queued, without waiting."""
        items = list(self._items)
        self._items.clear()
        return items

    def close(self) -> None:
        """Stop receiving."""
        self._on_close(self)

    def __aiter__(self) -> "Subscription":
        return self

    async def __anext__(self) -> Item:
        return await self.get()

    def __enter__(self) -> "Subscription":
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
