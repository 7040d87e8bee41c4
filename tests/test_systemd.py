"""systemd notifications arrive on a real datagram socket, as systemd would read them."""

import socket
from pathlib import Path

from controller.systemd import SystemdNotifier


def test_ready_and_watchdog_reach_the_socket(tmp_path: Path) -> None:
    path = tmp_path / "notify.sock"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as server:
        server.bind(str(path))
        notifier = SystemdNotifier({"NOTIFY_SOCKET": str(path), "WATCHDOG_USEC": "20000000"})
        notifier.ready("table-01 idle")
        notifier.watchdog()
        assert server.recv(256) == b"READY=1\nSTATUS=table-01 idle"
        assert server.recv(256) == b"WATCHDOG=1"
    assert notifier.watchdog_interval_s == 10.0


def test_without_systemd_nothing_happens() -> None:
    notifier = SystemdNotifier({})
    assert not notifier.enabled
    assert notifier.watchdog_interval_s is None
    notifier.ready()


def test_a_full_systemd_queue_never_blocks_the_daemon(tmp_path: Path) -> None:
    path = tmp_path / "notify.sock"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as server:
        server.bind(str(path))
        notifier = SystemdNotifier({"NOTIFY_SOCKET": str(path)})
        for _ in range(5000):  # far more than the socket queue holds; nobody reads
            notifier.status("building walls")
        assert server.recv(256) == b"STATUS=building walls"
