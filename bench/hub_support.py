"""What the hub benchmark needs besides the table's own code: a mosquitto on a free port, sample
hand results, a table that refuses every hub command, and links built from those."""

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from controller.hub.contract.hub_commands import StartSession
from controller.hub.contract.result import HandResult, PatternScore, SeatEntry, WallReveal, Win
from controller.hub.contract.signing import TableKey
from controller.hub.contract.table_events import TableStatus
from controller.hub.mqtt.aiomqtt_transport import AiomqttConnector
from controller.hub.mqtt.link_timing import LinkTiming
from controller.hub.mqtt.transport import BrokerAddress
from controller.hub.table_side.dispatcher import CommandRefused
from controller.hub.table_side.hub_link import HubLink, HubLinkSettings
from controller.hub.table_side.outbox import Outbox

KEY_TEXT = "5f0c1e0b7a2d4c6e8f9a1b3c5d7e9f01"
PLAYERS = ("ann", "bo", "cy", "dee")
WALL = [f"{n}{s}" for s in "mps" for n in range(1, 10) for _ in range(4)] + [
    f"{n}z" for n in range(1, 8) for _ in range(4)
]
START = datetime(2024, 5, 1, 14, 0, tzinfo=UTC)


class Mosquitto:
    """A throwaway mosquitto on a free loopback port, with persistence, killed at the end."""

    def __init__(self, workdir: Path) -> None:
        binary = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
        if not Path(binary).exists():
            raise SystemExit("mosquitto is not installed (apt install mosquitto)")
        workdir.mkdir(parents=True, exist_ok=True)
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = int(sock.getsockname()[1])
        self.host = "127.0.0.1"
        config = workdir / "mosquitto.conf"
        config.write_text(
            f"listener {self.port} {self.host}\nallow_anonymous true\npersistence true\n"
            f"persistence_location {workdir}/\nmax_queued_messages 100000\n"
            + ("user root\n" if os.geteuid() == 0 else "")
        )
        self.process = subprocess.Popen(
            [binary, "-c", str(config)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        self._wait_listening()

    @property
    def url(self) -> str:
        """mqtt://host:port of this broker."""
        return f"mqtt://{self.host}:{self.port}"

    def _wait_listening(self) -> None:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError), socket.create_connection((self.host, self.port)):
                return
            time.sleep(0.02)
        raise SystemExit("mosquitto did not start")

    def kill(self) -> None:
        """Stop it at once."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()


def sample_result(hand: int) -> HandResult:
    """A valid result: seat 0 wins 24 points off seat 2's discard."""
    win = Win(
        seat=0,
        discarder=2,
        winning_tile="5p",
        concealed="123m456p789s11z55p",
        patterns=[PatternScore(name="All Chows", value=5)],
        score=24,
    )
    return HandResult(
        session="bench",
        hand=hand,
        ruleset="zung-jung",
        round_wind="E",
        dealer=(hand - 1) % 4,
        seats=[SeatEntry(seat=i, wind="ESWN"[i], player=PLAYERS[i]) for i in range(4)],  # type: ignore[arg-type]
        draw=False,
        wins=[win],
        payments=[24, 0, -24, 0],
        wall=WallReveal.seal(WALL, salt="ab" * 32),
        started_at=START + timedelta(minutes=10 * hand),
        ended_at=START + timedelta(minutes=10 * hand + 8),
    )


class IdleTable:
    """A table that plays nothing: every session command is refused."""

    async def start_session(self, order: StartSession) -> None:
        raise CommandRefused("this is a benchmark table")

    async def pause_session(self, reason: str) -> None:
        raise CommandRefused("this is a benchmark table")

    async def resume_session(self) -> None:
        raise CommandRefused("this is a benchmark table")

    async def end_session(self, reason: str) -> None:
        raise CommandRefused("this is a benchmark table")

    def status(self) -> TableStatus:
        return TableStatus()


def make_link(url: str, outbox: Path, table: str, timing: LinkTiming) -> HubLink:
    """A table's hub link with its own outbox file."""
    settings = HubLinkSettings(table=table, key=TableKey(KEY_TEXT), timing=timing)
    address = BrokerAddress.from_url(url, client_id=f"table-{table}")
    return HubLink(settings, Outbox(outbox), AiomqttConnector(address, timing), IdleTable())
