"""Opens the table MCU's serial device, or any pyserial URL (socket://, spy://), for the link."""

import asyncio
import errno
from pathlib import Path
from typing import Any

import serial
import serial_asyncio_fast

from firmware_bridge.errors import PortBusy, PortUnavailable
from firmware_bridge.port import Port, PortListener, PortOpener

DEFAULT_BAUDRATE = 115200


class _Adapter(asyncio.Protocol):
    """Forwards an asyncio transport's callbacks to a PortListener."""

    def __init__(self, listener: PortListener) -> None:
        self._listener = listener

    def data_received(self, data: bytes) -> None:
        self._listener.data_received(data)

    def connection_lost(self, exc: Exception | None) -> None:
        self._listener.connection_lost(exc)


class SerialPort:
    """An open serial device or URL."""

    def __init__(self, transport: asyncio.BaseTransport) -> None:
        self._transport: Any = transport

    def write(self, data: bytes) -> None:
        """Queue bytes for the device."""
        self._transport.write(data)

    def close(self) -> None:
        """Close the device."""
        self._transport.close()


def serial_opener(
    url: str, baudrate: int = DEFAULT_BAUDRATE, *, exclusive: bool = True
) -> PortOpener:
    """An opener for a device path (`/dev/mahjong-mcu`) or pyserial URL (`socket://host:port`).

    A device is opened with an exclusive lock (flock) unless `exclusive` is False, so a second
    program cannot take the port from under the one using it; it gets PortBusy instead."""
    device = "://" not in url and exclusive

    async def open_port(listener: PortListener) -> Port:
        loop = asyncio.get_running_loop()
        if device and not Path(url).exists():  # noqa: ASYNC240 (a stat of /dev)
            raise PortUnavailable(f"{url}: no such device (is the table's USB cable plugged in?)")
        try:
            transport, _ = await serial_asyncio_fast.create_serial_connection(
                loop, lambda: _Adapter(listener), url, baudrate=baudrate, exclusive=device or None
            )
        except serial.SerialException as error:
            if error.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                raise PortBusy(url) from error
            raise PortUnavailable(f"{url}: cannot open: {error}") from error
        except (OSError, ValueError) as error:
            raise PortUnavailable(f"{url}: cannot open: {error}") from error
        return SerialPort(transport)

    return open_port
