"""What the link needs from a byte channel: a port it writes to and a listener it is called on."""

from collections.abc import Awaitable, Callable
from typing import Protocol


class Port(Protocol):
    """An open byte channel to the table MCU (serial device, socket, pty or in-memory pipe)."""

    def write(self, data: bytes) -> None:
        """Queue bytes for sending; never blocks."""
        ...

    def close(self) -> None:
        """Close the channel; the listener then gets `connection_lost`."""
        ...


class PortListener(Protocol):
    """Receives what arrives on a port."""

    def data_received(self, data: bytes) -> None:
        """Bytes arrived, cut anywhere."""
        ...

    def connection_lost(self, exc: Exception | None) -> None:
        """The channel closed or the device went away."""
        ...


PortOpener = Callable[[PortListener], Awaitable[Port]]
"""Opens the channel and calls the listener for everything that arrives until it closes."""
