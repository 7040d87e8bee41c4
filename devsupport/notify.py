"""systemd's side of readiness, for tests: a NOTIFY_SOCKET a test owns, and a wait for the
daemon's READY=1 (or for the daemon to end first) without reading its log."""

import os
import select
import shutil
import socket
import tempfile
import time
from pathlib import Path


class DaemonEnded(AssertionError):
    """The daemon ended, or said nothing, before it told systemd it was ready."""


class NotifySocket:
    """A datagram socket where a child started with `env()` sends its notifications (use it
    with `contextlib.closing`, or call `close`)."""

    def __init__(self) -> None:
        # A short folder of its own: a socket path must fit in 108 bytes.
        self._folder = Path(tempfile.mkdtemp(prefix="notify-"))
        self.path = self._folder / "notify.sock"
        self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self._socket.bind(str(self.path))
        self.said: list[str] = []
        """Every notification line received so far (READY=1, STATUS=..., ...)."""

    def env(self, base: dict[str, str] | None = None) -> dict[str, str]:
        """The environment for a child (this process's, or `base`) with NOTIFY_SOCKET set."""
        return {**(os.environ if base is None else base), "NOTIFY_SOCKET": str(self.path)}

    def wait_ready(self, pid: int, within: float = 90.0) -> list[str]:
        """Block until process `pid` sends READY=1; its lines so far. DaemonEnded if it exits
        first or nothing comes within `within` s."""
        ended = os.pidfd_open(pid)
        deadline = time.monotonic() + within
        try:
            while "READY=1" not in self.said:
                left = deadline - time.monotonic()
                readable, _, _ = select.select([self._socket.fileno(), ended], [], [], max(0, left))
                if self._socket.fileno() in readable:
                    self.said += self._socket.recv(65536).decode().splitlines()
                elif readable:
                    raise DaemonEnded(f"the daemon ended before READY=1 (it said {self.said})")
                else:
                    raise DaemonEnded(f"no READY=1 within {within} s (it said {self.said})")
        finally:
            os.close(ended)
        return self.said

    def close(self) -> None:
        """Close the socket and remove its folder."""
        self._socket.close()
        shutil.rmtree(self._folder, ignore_errors=True)
