"""A mosquitto of its own on a free loopback port, for a rehearsal (and the test suite).

`venue_broker` configures one as the venue's deployed broker: the shipped mosquitto.conf and
ACL (in the package, beside this module, so that an installed wheel has them; deploy/mosquitto
links to them), with their paths moved into a work folder, TLS with client certificates on a
free loopback port.
`make_certs` makes the CA and certificates with the shipped make-certs.sh (bash, openssl).
Only mosquitto itself must be installed (Debian: apt install mosquitto).
"""

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

SHIPPED = Path(__file__).resolve().parent / "mosquitto"
"""The shipped broker configuration, ACL and make-certs.sh (deploy/mosquitto links here)."""
MOSQUITTO_CANDIDATES = ("/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto")


class MosquittoMissing(RuntimeError):
    """No mosquitto binary on PATH or in the distribution's sbin."""


class BrokerFailed(RuntimeError):
    """The broker exited at start or did not listen; the message ends with its log."""


class CertificatesFailed(RuntimeError):
    """make-certs.sh refused or failed; the message is its own."""


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
    """One mosquitto process with its own config, data dir and log, on a fixed port. The
    config written here allows anonymous clients (a test's broker); `venue_broker` replaces
    it with the venue's."""

    def __init__(self, workdir: Path, extra_config: str = "") -> None:
        binary = find_mosquitto()
        if binary is None:
            raise MosquittoMissing("mosquitto is not installed (Debian: apt install mosquitto)")
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
                _as_root(),
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
        if not wait_listening(self.process, self.host, self.port, timeout):
            if self.process.poll() is not None:
                raise BrokerFailed(f"mosquitto exited at start: {self.log_tail()}")
            raise BrokerFailed(f"mosquitto did not listen on {self.port}: {self.log_tail()}")

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


def wait_listening(
    process: subprocess.Popen[Any], host: str, port: int, timeout: float = 10.0
) -> bool:
    """Whether a broker just started as `process` accepts connections on host:port within
    `timeout` seconds (False at once if it exits)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        with contextlib.suppress(OSError), socket.create_connection((host, port), 0.2):
            return True
        time.sleep(0.02)
    return False


def _as_root() -> str:
    """As root, mosquitto would switch to its own user and could not write the work folder."""
    return "user root" if os.geteuid() == 0 else ""


def venue_broker(workdir: Path, certs: Path, shipped: Path = SHIPPED) -> Broker:
    """A broker (not started) configured as the venue's deployed one: the shipped
    mosquitto.conf and ACL, with their paths moved into `certs` and `workdir` and the TLS
    listener on a free loopback port. `certs` holds the CA and the broker's certificate."""
    broker = Broker(workdir)
    (certs / "acl").write_text((shipped / "acl").read_text())
    config = (
        (shipped / "mosquitto.conf")
        .read_text()
        .replace("/etc/mosquitto/mahjong/", f"{certs}/")
        .replace("/var/lib/mosquitto/", f"{broker.workdir / 'data'}/")
        .replace("listener 8883", f"listener {broker.port} 127.0.0.1")
        .replace("log_dest syslog", f"log_dest file {broker.log_path}")
    )
    broker.config_path.write_text(f"{config}{_as_root()}\n")
    return broker


def make_certs(certs: Path, *args: str) -> None:
    """Run the shipped make-certs.sh on `certs` (e.g. "ca"; "table", "t1", "t2")."""
    done = subprocess.run(
        ["bash", str(SHIPPED / "make-certs.sh"), str(certs), *args],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode:
        raise CertificatesFailed(f"make-certs.sh {args[0]}: {done.stderr.strip()}")
