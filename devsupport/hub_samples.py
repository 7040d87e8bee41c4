"""Sample hub results, keys and table links: real objects, valid by default."""

from datetime import UTC, datetime, timedelta
from pathlib import Path

from controller.clock import Clock
from controller.hub.contract.result import (
    HandResult,
    Incident,
    PatternScore,
    SeatEntry,
    WallReveal,
    Win,
)
from controller.hub.contract.signing import TableKey
from controller.hub.mqtt.aiomqtt_transport import AiomqttConnector
from controller.hub.mqtt.link_timing import LinkTiming
from controller.hub.mqtt.transport import BrokerAddress
from controller.hub.table_side.dispatcher import TableControl
from controller.hub.table_side.hub_link import HubLink, HubLinkSettings
from controller.hub.table_side.outbox import Outbox

KEY_TEXT = "5f0c1e0b7a2d4c6e8f9a1b3c5d7e9f01"
OTHER_KEY_TEXT = "deadbeefdeadbeefdeadbeefdeadbeef"
PLAYERS = ("ann", "bo", "cy", "dee")
WALL = [f"{n}{s}" for s in "mps" for n in range(1, 10) for _ in range(4)] + [
    f"{n}z" for n in range(1, 8) for _ in range(4)
]
START = datetime(2024, 5, 1, 14, 0, tzinfo=UTC)


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


def table_link(
    url: str,
    outbox: Outbox,
    control: TableControl,
    table: str,
    timing: LinkTiming,
    clock: Clock | None = None,
    tls: dict[str, Path] | None = None,
    key: str = KEY_TEXT,
) -> HubLink:
    """A table's hub link on `url` with the given outbox, answering commands with `control`."""
    settings = HubLinkSettings(table=table, key=TableKey(key), timing=timing)
    address = BrokerAddress.from_url(url, client_id=f"table-{table}", **(tls or {}))
    return HubLink(settings, outbox, AiomqttConnector(address, timing), control, clock)
