"""Public play-by-play events and the table status: what anyone at the venue may see live.

Nothing here can carry a concealed tile or the wall: a draw names no tile, a concealed kong
shows none, and the wall appears only as a salted commitment until the result reveals it.
"""

from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from controller.hub.contract.field_types import (
    Count,
    Hex64,
    MessageId,
    PlayerId,
    Positive,
    Seat,
    SessionId,
    Text,
    Tile,
    Wind,
)
from controller.hub.contract.result import Incident
from controller.rules.names import RulesetName

Move = Literal[
    "draw",
    "replacement_draw",
    "discard",
    "chow",
    "pung",
    "kong",
    "added_kong",
    "concealed_kong",
    "flower",
    "declare",
]
PUBLIC_TILE_MOVES: frozenset[str] = frozenset(
    {"discard", "chow", "pung", "kong", "added_kong", "flower"}
)
SessionChange = Literal["started", "paused", "resumed", "ended"]


class HandStarted(msgspec.Struct, frozen=True, kw_only=True, tag="hand_started"):
    """A hand began: who sits where, and the commitment to the wall it is played from."""

    session: SessionId
    hand: Positive
    ruleset: RulesetName
    round_wind: Wind
    dealer: Seat
    players: list[PlayerId]
    wall_commitment: Hex64


class PlayMove(msgspec.Struct, frozen=True, kw_only=True, tag="move"):
    """One public move; tiles only for moves whose tiles every player can see."""

    session: SessionId
    hand: Positive
    seat: Seat
    move: Move
    tiles: list[Tile] = []

    def __post_init__(self) -> None:
        if self.tiles and self.move not in PUBLIC_TILE_MOVES:
            raise ValueError(f"a '{self.move}' shows no tiles: they are concealed")
        if not self.tiles and self.move in PUBLIC_TILE_MOVES:
            raise ValueError(f"a '{self.move}' must show its tiles")


class IncidentNoted(msgspec.Struct, frozen=True, kw_only=True, tag="incident"):
    """The referee recorded an irregularity (it never stops play)."""

    session: SessionId
    hand: Positive
    incident: Incident


class HandEnded(msgspec.Struct, frozen=True, kw_only=True, tag="hand_ended"):
    """A hand is over and its result is durable in the outbox under `result_id`."""

    session: SessionId
    hand: Positive
    draw: bool
    winners: list[Seat] = []
    result_id: MessageId


class SessionChanged(msgspec.Struct, frozen=True, kw_only=True, tag="session"):
    """A session started, paused, resumed or ended (by a player, the hub or the deadline)."""

    session: SessionId
    change: SessionChange
    reason: Text = ""


Event = HandStarted | PlayMove | IncidentNoted | HandEnded | SessionChanged


class TableStatus(msgspec.Struct, frozen=True, kw_only=True):
    """What the table is doing, in words a venue technician reads on a dashboard.

    `state` is a short name such as idle, building_wall, playing, paused, session_over or
    fault; `fault` says in plain words what is wrong when the table cannot play.
    """

    state: Annotated[str, Meta(pattern=r"^[a-z_]{1,32}$")] = "idle"
    session: SessionId | None = None
    ruleset: RulesetName | None = None
    hand: Positive | None = None
    players: list[PlayerId] = []
    fault: Text | None = None
    software: Text = ""
    penalties: list[Count] = []
    """Penalty points each seat (E, S, W, N by chair 0-3) has lost in the hand in play."""


class LinkCounters(msgspec.Struct, frozen=True, kw_only=True):
    """The hub link's own health, published with every status; `attention` says in plain words
    what a technician must do (empty when nothing)."""

    pending_results: Count = 0
    dropped_messages: Count = 0
    refused_results: Count = 0
    attention: Text = ""
    outbox_new: Annotated[
        bool,
        Meta(
            description="This run found no outbox file and began a new one: result numbers "
            "start again, and results the lost file had not delivered are gone."
        ),
    ] = False
