"""A signal that a link's or recorder's state changed, for whoever waits on it.

Waiters re-check their own condition after each change instead of polling: a test waiting
for "every result acked" or a demo waiting for the last ack wakes exactly when something
happened.
"""

import asyncio
from collections.abc import Callable


class Changes:
    """Wakes every waiter each time `notify` is called (from the event loop's thread)."""

    def __init__(self) -> None:
        self._next: asyncio.Future[None] | None = None
        self.count = 0

    def notify(self) -> None:
        """Something changed: wake the current waiters."""
        self.count += 1
        if self._next is not None and not self._next.done():
            self._next.set_result(None)
        self._next = None

    async def next_change(self) -> None:
        """Return at the next `notify`."""
        if self._next is None:
            self._next = asyncio.get_running_loop().create_future()
        await asyncio.shield(self._next)

    async def until(self, check: Callable[[], bool]) -> None:
        """Return once `check()` holds, checking it again after every change."""
        while not check():
            await self.next_change()
