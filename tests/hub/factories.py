"""Hand results, keys and a session keeper for the hub tests: real objects, valid by default."""

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from controller.hub.contract.envelopes import MAX_REPLY_DATA
from controller.hub.contract.hub_commands import StartSession
from controller.hub.contract.result import (
    HandResult,
    Incident,
    PatternScore,
    SeatEntry,
    WallReveal,
    Win,
)
from controller.hub.contract.table_events import TableStatus
from controller.hub.mqtt.link_timing import Backoff, LinkTiming
from controller.hub.table_side.dispatcher import CommandRefused
from controller.table.blackbox_files import BlackBoxFiles, BlackBoxMissing
from controller.table.referee.blackbox import box_name

KEY_TEXT = "5f0c1e0b7a2d4c6e8f9a1b3c5d7e9f01"
OTHER_KEY_TEXT = "deadbeefdeadbeefdeadbeefdeadbeef"
PLAYERS = ("ann", "bo", "cy", "dee")
WALL = [f"{n}{s}" for s in "mps" for n in range(1, 10) for _ in range(4)] + [
    f"{n}z" for n in range(1, 8) for _ in range(4)
]
START = datetime(2024, 5, 1, 14, 0, tzinfo=UTC)

# Tests run real brokers and sockets; these durations keep each wait short.
FAST = LinkTiming(
    reconnect=Backoff(0.05, 1.5, 0.4),
    resend=Backoff(1.0, 2.0, 4.0),
    tick_s=0.02,
    connect_timeout_s=2.0,
    publish_timeout_s=2.0,
    keepalive_s=5,
    window=64,
    gap_grace_s=0.3,
)


def hand_result(
    hand: int = 1,
    session: str = "s1",
    players: tuple[str, ...] = PLAYERS,
    winner: int | None = 0,
    discarder: int | None = 2,
    wall: WallReveal | None = None,
    incidents: tuple[Incident, ...] = (),
) -> HandResult:
    """A valid result: `winner` wins 24 points off `discarder` (None: self-drawn), or a draw."""
    payments = [0, 0, 0, 0]
    wins = []
    if winner is not None:
        if discarder is None:
            payments = [-8] * 4
            payments[winner] = 24
        else:
            payments[winner], payments[discarder] = 24, -24
        wins = [
            Win(
                seat=winner,
                discarder=discarder,
                winning_tile="5p",
                concealed="123m456p789s11z55p",
                patterns=[PatternScore(name="All Chows", value=5)],
                score=24,
            )
        ]
    penalties = [-sum(i.penalty for i in incidents if i.seat == s) for s in range(4)]
    return HandResult(
        session=session,
        hand=hand,
        ruleset="zung-jung",
        round_wind="E",
        dealer=(hand - 1) % 4,
        seats=[SeatEntry(seat=i, wind="ESWN"[i], player=players[i]) for i in range(4)],  # type: ignore[arg-type]
        draw=winner is None,
        wins=wins,
        payments=payments,
        penalties=penalties,
        incidents=list(incidents),
        wall=wall or WallReveal.seal(WALL, salt="ab" * 32),
        started_at=START + timedelta(minutes=10 * hand),
        ended_at=START + timedelta(minutes=10 * hand + 8),
    )


@dataclass
class SessionBook:
    """The table side of hub commands, kept as small as a real session keeper can be:
    idle -> playing <-> paused -> idle, refusing what makes no sense."""

    state: str = "idle"
    session: str | None = None
    players: list[str] = field(default_factory=list)
    log: list[str] = field(default_factory=list)
    boxes: BlackBoxFiles | None = None

    async def start_session(self, order: StartSession) -> None:
        if self.state != "idle":
            raise CommandRefused(f"session {self.session} is still {self.state}")
        self.state, self.session, self.players = "playing", order.session, list(order.players)
        self.log.append(f"start {order.session}")

    async def pause_session(self, reason: str) -> None:
        if self.state != "playing":
            raise CommandRefused("no session is being played")
        self.state = "paused"
        self.log.append(f"pause {reason}")

    async def resume_session(self) -> None:
        if self.state != "paused":
            raise CommandRefused("the session is not paused")
        self.state = "playing"
        self.log.append("resume")

    async def end_session(self, reason: str) -> None:
        if self.state == "idle":
            raise CommandRefused("no session to end")
        self.state, self.session = "idle", None
        self.log.append(f"end {reason}")

    def status(self) -> TableStatus:
        return TableStatus(state=self.state, session=self.session, players=self.players)

    def black_box(self, hand: int, session: str | None) -> tuple[str, bytes]:
        """A hand's black box from the files `boxes` keeps (as the table's control does)."""
        session = session or self.session
        if self.boxes is None or session is None:
            raise CommandRefused("no session has been played")
        name = box_name(session, hand)
        try:
            return name, self.boxes.compressed(name, MAX_REPLY_DATA)
        except BlackBoxMissing as error:
            raise CommandRefused(str(error)) from None
