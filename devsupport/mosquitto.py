"""A real mosquitto broker on a free loopback port, owned by one test: stop, kill -9, restart.

The one throwaway broker of the repo: the tests, the hub benchmarks (bench/) and scripts/demo
use it; `python -m devsupport.mosquitto DIR` serves one from DIR, prints its URL once it listens and
stops it on SIGTERM or SIGINT.
"""

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

MOSQUITTO_CANDIDATES = ("/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto")


def find_mosquitto() -> str | None:
    """The mosquitto binary, from PATH or the distribution's sbin."""
    found = shutil.which("mosquitto")
    if found:
        return found
    return next((p for p in MOSQUITTO_CANDIDATES if Path(p).exists()), None)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Broker:
    """One mosquitto process with its own config, data dir and log, on a fixed port."""

    def __init__(self, workdir: Path, extra_config: str = "") -> None:
        binary = find_mosquitto()
        if binary is None:
            raise RuntimeError("mosquitto is not installed: run the README test command")
        self.binary = binary
        self.workdir = workdir
        self.port = free_port()
        self.host = "127.0.0.1"
        self.log_path = workdir / "mosquitto.log"
        self.config_path = workdir / "mosquitto.conf"
        (workdir / "data").mkdir(parents=True, exist_ok=True)
        self.config_path.write_text(self._config(extra_config))
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """mqtt://host:port of this broker."""
        return f"mqtt://{self.host}:{self.port}"

    def _config(self, extra: str) -> str:
        return "\n".join(
            [
                f"listener {self.port} {self.host}",
                "allow_anonymous true",
                "persistence true",
                f"persistence_location {self.workdir / 'data'}/",
                "autosave_interval 1",
                f"log_dest file {self.log_path}",
                "log_type error",
                "log_type warning",
                "log_type notice",
                "max_queued_messages 100000",
                # As root, mosquitto would switch to its own user and could not write here.
                "user root" if os.geteuid() == 0 else "",
                extra,
                "",
            ]
        )

    def start(self, timeout: float = 10.0) -> None:
        """Start the broker and wait until it accepts connections."""
        if self.running:
            return
        self.process = subprocess.Popen(
            [self.binary, "-c", str(self.config_path)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"mosquitto exited at start: {self.log_tail()}")
            with (
                contextlib.suppress(OSError),
                socket.create_connection((self.host, self.port), 0.2),
            ):
                return
            time.sleep(0.02)
        raise RuntimeError(f"mosquitto did not listen on {self.port}: {self.log_tail()}")

    @property
    def running(self) -> bool:
        """True while the broker process is alive."""
        return self.process is not None and self.process.poll() is None

    def stop(self) -> None:
        """Stop gracefully (SIGTERM): the broker saves its persistence file."""
        self._signal(signal.SIGTERM)

    def kill(self) -> None:
        """Kill -9: the broker loses whatever it had not saved, like a power cut."""
        self._signal(signal.SIGKILL)

    def restart(self, hard: bool = False) -> None:
        """Stop (or kill with hard=True) and start again on the same port."""
        if hard:
            self.kill()
        else:
            self.stop()
        self.start()

    def _signal(self, signum: int) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        os.kill(self.process.pid, signum)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def log_tail(self, lines: int = 20) -> str:
        """The end of the broker's log, for failure messages."""
        if not self.log_path.exists():
            return "(no log)"
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])


def venue_broker(workdir: Path, certs: Path, deploy: Path) -> Broker:
    """A broker (not started) configured as the venue's deployed one: the shipped
    mosquitto.conf and ACL from `deploy`, with its paths moved into `certs` and `workdir`
    and its TLS listener on a free loopback port."""
    broker = Broker(workdir)
    (certs / "acl").write_text((deploy / "acl").read_text())
    config = (
        (deploy / "mosquitto.conf")
        .read_text()
        .replace("/etc/mosquitto/mahjong/", f"{certs}/")
        .replace("/var/lib/mosquitto/", f"{broker.workdir / 'data'}/")
        .replace("listener 8883", f"listener {broker.port} 127.0.0.1")
        .replace("log_dest syslog", f"log_dest file {broker.log_path}")
    )
    broker.config_path.write_text(config + ("user root\n" if os.geteuid() == 0 else ""))
    return broker


def serve(workdir: Path) -> None:
    """Run a broker in `workdir` until SIGTERM/SIGINT; its URL on stdout once it listens."""
    broker = Broker(workdir)
    broker.start()
    sys.stdout.write(broker.url + "\n")
    sys.stdout.flush()
    stop = [signal.SIGTERM, signal.SIGINT]
    signal.pthread_sigmask(signal.SIG_BLOCK, stop)
    try:
        signal.sigwait(stop)
    finally:
        broker.stop()


if __name__ == "__main__":
    serve(Path(sys.argv[1]))
