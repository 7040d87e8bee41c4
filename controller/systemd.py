"""systemd readiness and watchdog notifications over $NOTIFY_SOCKET (Type=notify units)."""

import contextlib
import os
import socket

WATCHDOG_FRACTION = 0.5  # ping at half the watchdog interval, as sd_watchdog_enabled(3) advises


class SystemdNotifier:
    """Sends READY=1, WATCHDOG=1 and STATUS= lines; does nothing when not run by systemd."""

    def __init__(self, environ: dict[str, str] | None = None) -> None:
        env = os.environ if environ is None else environ
        self.address = env.get("NOTIFY_SOCKET", "")
        usec = env.get("WATCHDOG_USEC", "")
        self.watchdog_interval_s = int(usec) / 1e6 * WATCHDOG_FRACTION if usec.isdigit() else None

    @property
    def enabled(self) -> bool:
        """True when systemd asked for notifications."""
        return bool(self.address)

    def notify(self, *lines: str) -> None:
        """Send `KEY=value` lines in one datagram without blocking; errors are ignored (systemd
        may be gone, or its queue full: a lost status line is better than a frozen loop)."""
        if not self.address:
            return
        target = "\0" + self.address[1:] if self.address.startswith("@") else self.address
        with (
            contextlib.suppress(OSError),
            socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock,
        ):
            sock.setblocking(False)
            sock.sendto("\n".join(lines).encode(), target)

    def ready(self, status: str = "") -> None:
        """Tell systemd the daemon is up."""
        self.notify("READY=1", *([f"STATUS={status}"] if status else []))

    def watchdog(self) -> None:
        """Keep-alive ping; must come from the event loop so a stuck loop gets restarted."""
        self.notify("WATCHDOG=1")

    def status(self, text: str) -> None:
        """One-line status shown by `systemctl status`."""
        self.notify(f"STATUS={text}")

    def stopping(self) -> None:
        """Tell systemd the daemon is shutting down."""
        self.notify("STOPPING=1")
