"""The lines a software MCU can be reached on: a pseudo-terminal, a TCP socket, or in memory."""

import asyncio
import contextlib
import errno
import functools
import os
import pty
import tty
from collections.abc import Callable
from pathlib import Path

from firmware_bridge.errors import PortUnavailable
from firmware_bridge.port import Port, PortListener, PortOpener
from firmware_bridge.sim.mcu import SoftwareMcu


class PtyLine:
    """A pseudo-terminal whose device end (`path`) a host opens like a USB serial device."""

    def __init__(self, mcu: SoftwareMcu, link_path: Path | None = None) -> None:
        self._mcu = mcu
        self._master, self._slave = pty.openpty()
        for fd in (self._master, self._slave):
            tty.setraw(fd)
        os.set_blocking(self._master, False)
        self.path = os.ttyname(self._slave)
        self.link_path = link_path
        if link_path is not None:
            link_path.unlink(missing_ok=True)
            link_path.symlink_to(self.path)
        self.overruns = 0
        self.bytes_read = 0
        """Bytes the MCU has read from the host so far."""
        self.bytes_written = 0
        """Bytes the MCU has handed to the pty so far."""
        asyncio.get_running_loop().add_reader(self._master, self._readable)
        mcu.attach(self._write)

    @property
    def device(self) -> str:
        """What a host opens: the stable link path if there is one, else the pty itself."""
        return str(self.link_path) if self.link_path is not None else self.path

    def _readable(self) -> None:
        try:
            data = os.read(self._master, 4096)
        except BlockingIOError:
            return
        except OSError as error:
            if error.errno == errno.EIO:
                return
            raise
        self.bytes_read += len(data)
        self._mcu.data_received(data)

    def _write(self, data: bytes) -> None:
        try:
            written = os.write(self._master, data)
        except (BlockingIOError, OSError):
            written = 0
        self.bytes_written += written
        if written < len(data):
            self.overruns += 1

    def close(self) -> None:
        """Unplug: the device disappears (hosts reading it get an error)."""
        self._mcu.attach(None)
        asyncio.get_running_loop().remove_reader(self._master)
        for fd in (self._master, self._slave):
            with contextlib.suppress(OSError):
                os.close(fd)
        if self.link_path is not None:
            self.link_path.unlink(missing_ok=True)


class _TcpSession(asyncio.Protocol):
    def __init__(self, line: "TcpLine") -> None:
        self._line = line
        self._transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self._transport = transport
        self._line.connected(self)

    def data_received(self, data: bytes) -> None:
        self._line.mcu.data_received(data)

    def connection_lost(self, exc: Exception | None) -> None:
        self._line.disconnected(self)

    def write(self, data: bytes) -> None:
        if self._transport is not None:
            self._transport.write(data)

    def close(self) -> None:
        if self._transport is not None:
            self._transport.close()


class TcpLine:
    """A TCP listener; one host at a time reaches the MCU at `socket://host:port`."""

    def __init__(self, mcu: SoftwareMcu, server: asyncio.Server | None = None) -> None:
        self.mcu = mcu
        self._server = server
        self._session: _TcpSession | None = None

    @classmethod
    async def listen(cls, mcu: SoftwareMcu, port: int = 0, host: str = "127.0.0.1") -> "TcpLine":
        """Start listening (port 0: any free port)."""
        line = cls(mcu)
        loop = asyncio.get_running_loop()
        line._server = await loop.create_server(lambda: _TcpSession(line), host, port)
        return line

    @property
    def url(self) -> str:
        """The pyserial URL of this line."""
        assert self._server is not None
        host, port = self._server.sockets[0].getsockname()[:2]
        return f"socket://{host}:{port}"

    def connected(self, session: _TcpSession) -> None:
        """A host connected; a previous one is dropped."""
        if self._session is not None:
            self._session.close()
        self._session = session
        self.mcu.attach(session.write)

    def disconnected(self, session: _TcpSession) -> None:
        """A host went away."""
        if self._session is session:
            self._session = None
            self.mcu.attach(None)

    def close(self) -> None:
        """Stop listening and drop the host."""
        if self._session is not None:
            self._session.close()
        if self._server is not None:
            self._server.close()


class _Bytes:
    """Bytes written in one turn of the event loop, handed on together in the next (as a
    serial driver hands over what arrived since the last read): one callback, not one per
    frame."""

    def __init__(self, receive: Callable[[bytes], None]) -> None:
        self._receive = receive
        self._pending: list[bytes] = []
        self._loop = asyncio.get_running_loop()

    def write(self, data: bytes) -> None:
        if not self._pending:
            self._loop.call_soon(self._hand_on)
        self._pending.append(data)

    def _hand_on(self) -> None:
        data = b"".join(self._pending)
        self._pending.clear()
        self._receive(data)


class _MemoryPort:
    def __init__(self, line: "MemoryLine", listener: PortListener) -> None:
        self._line = line
        self.listener = listener
        self._to_mcu = _Bytes(self._received)

    def write(self, data: bytes) -> None:
        if self._line.port is self:
            self._to_mcu.write(data)

    def _received(self, data: bytes) -> None:
        if self._line.port is self:
            self._line.mcu.data_received(data)

    def close(self) -> None:
        if self._line.port is self:
            self._line.disconnect(None)


class MemoryLine:
    """An in-memory line: no pty, no socket, same bytes (and the MCU's injected faults)."""

    def __init__(self, mcu: SoftwareMcu) -> None:
        self.mcu = mcu
        self.port: _MemoryPort | None = None
        self.plugged = True

    def opener(self) -> PortOpener:
        """A PortOpener for a Link."""

        async def open_port(listener: PortListener) -> Port:
            if not self.plugged:
                raise PortUnavailable("the simulated table is unplugged")
            if self.port is not None:
                self.disconnect(None)
            port = _MemoryPort(self, listener)
            self.port = port
            self.mcu.attach(_Bytes(functools.partial(self._deliver, port)).write)
            return port

        return open_port

    def _deliver(self, port: _MemoryPort, data: bytes) -> None:
        if self.port is port:
            port.listener.data_received(data)

    def disconnect(self, exc: Exception | None) -> None:
        """Close the current connection; its listener learns it."""
        port, self.port = self.port, None
        self.mcu.attach(None)
        if port is not None:
            asyncio.get_running_loop().call_soon(port.listener.connection_lost, exc)
