"""The hand result: what the referee writes at hand end and the venue records and ranks by.

A result is checked when it is built (and again when the hub decodes it): four seats, one
player each, payments that sum to zero, penalties that match the incidents, a win list that
agrees with the draw flag, and a wall reveal that matches its commitment.
"""

from collections.abc import Sequence
from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from controller.hub.contract.audit import commitment_of, new_salt
from controller.hub.contract.field_types import (
    Count,
    Hex64,
    PlayerId,
    Positive,
    Seat,
    SessionId,
    Text,
    Tile,
    Tiles,
    Timestamp,
    Wind,
)
from controller.hub.contract.incidents import IncidentKind
from controller.rules.names import RulesetName


class SeatEntry(msgspec.Struct, frozen=True, kw_only=True):
    """Who sat where in this hand, and the seat's wind."""

    seat: Seat
    wind: Wind
    player: PlayerId


class PatternScore(msgspec.Struct, frozen=True, kw_only=True):
    """One scoring pattern of a winning hand and what it is worth under the ruleset."""

    name: Text
    value: int


MeldKindName = Literal["chow", "pung", "kong", "concealed_kong"]


class Meld(msgspec.Struct, frozen=True, kw_only=True):
    """An exposed (or concealed-kong) set, revealed in the result once the hand is over."""

    kind: MeldKindName
    tiles: Tiles


WinKind = Literal[
    "discard",
    "self-draw",
    "robbing-kong",
    "kong-replacement",
    "last-tile",
    "last-discard",
    "after-kong-discard",
    "heavenly",
    "earthly",
]
"""How the winning tile came (the rules engine's win types)."""
MoveKind = Literal[
    "draw",
    "replacement draw",
    "discard",
    "chow",
    "pung",
    "exposed kong",
    "added kong",
    "concealed kong",
    "flower set aside",
    "discard taken to win",
    "kong robbed",
    "win",
]
"""Every move the referee tells apart."""


class Move(msgspec.Struct, frozen=True, kw_only=True):
    """One move of the hand, as the referee followed it from the tile sensors."""

    at: Timestamp
    seat: Seat
    move: MoveKind
    tiles: Tiles
    source: Seat | None = None
    """The seat whose discard (or kong tile) was taken."""


class FinalSeat(msgspec.Struct, frozen=True, kw_only=True):
    """A seat's tiles when the hand ended."""

    seat: Seat
    concealed: Tiles
    melds: list[Meld] = []
    flowers: list[Tile] = []
    discards: Tiles = ""


class Settlement(msgspec.Struct, frozen=True, kw_only=True):
    """One settlement during the hand (a win, a kong, kong income passed, the draw)."""

    reason: Text
    amounts: list[int]

    def __post_init__(self) -> None:
        if len(self.amounts) != 4 or sum(self.amounts) != 0:
            raise ValueError(f"a settlement holds 4 amounts summing to zero, not {self.amounts}")


class Win(msgspec.Struct, frozen=True, kw_only=True):
    """One declared and validated win (Sichuan blood battle may have up to three)."""

    seat: Seat
    discarder: Seat | None = None
    winning_tile: Tile
    concealed: Tiles
    melds: list[Meld] = []
    flowers: list[Tile] = []
    patterns: list[PatternScore] = []
    score: int
    order: Positive = 1
    win_type: WinKind | None = None
    """None in results from tables before the referee."""

    @property
    def self_drawn(self) -> bool:
        """True when the winner drew the winning tile from the wall."""
        return self.discarder is None


class Incident(msgspec.Struct, frozen=True, kw_only=True):
    """An irregularity the referee recorded, with the points it cost the seat (0: none)."""

    at: Timestamp
    seat: Seat | None = None
    kind: IncidentKind
    detail: Text = ""
    penalty: Count = 0
    ruling: Text = ""
    """The row of the table's rulings page the referee applied (`R-CLAIM-3`; "": none)."""


class WallReveal(msgspec.Struct, frozen=True, kw_only=True):
    """The wall in draw order and the salt, so anyone can check the hand-start commitment.

    Not checked on decode on purpose: a reveal that does not match is recorded and flagged by
    the hub's audit, never refused (a refused result would be lost evidence).
    """

    order: list[Tile]
    salt: Hex64
    commitment: Hex64

    @classmethod
    def seal(cls, order: Sequence[str], salt: str | None = None) -> "WallReveal":
        """Commit to a wall at hand start: publish `.commitment` now, the rest in the result."""
        salt = salt or new_salt()
        return cls(order=list(order), salt=salt, commitment=commitment_of(order, salt))


Die = Annotated[int, Meta(ge=1, le=6)]


class Seating(msgspec.Struct, frozen=True, kw_only=True):
    """The seating draw that began the session (WMC): who drew which wind, and the chairs."""

    players_at_draw: list[PlayerId]
    """Who sat on each chair 0-3 while drawing."""
    drawn: list[Wind]
    """The wind tile each chair drew."""
    dice: list[Die]
    """The two rolls that decided who took the first wind tile."""
    players: list[PlayerId]
    """Who sits on each chair for play (the East drawer on chair 0)."""
    dealer: Seat
    at: Timestamp

    def __post_init__(self) -> None:
        if len(self.drawn) != 4 or len(set(self.drawn)) != 4:
            raise ValueError("'drawn' must give each of the four winds to one chair")
        if sorted(self.players) != sorted(self.players_at_draw) or len(set(self.players)) != 4:
            raise ValueError("'players' must seat the four players of 'players_at_draw'")


class HandResult(msgspec.Struct, frozen=True, kw_only=True):
    """Everything a referee and a venue need about one finished hand."""

    session: SessionId
    hand: Positive
    ruleset: RulesetName
    round_wind: Wind
    dealer: Seat
    seats: list[SeatEntry]
    draw: bool
    wins: list[Win] = []
    payments: list[int]
    penalties: list[int] = msgspec.field(default_factory=lambda: [0, 0, 0, 0])
    incidents: list[Incident] = []
    wall: WallReveal
    started_at: Timestamp
    ended_at: Timestamp
    moves: list[Move] = []
    """Every move of the hand (empty in results from tables before the referee)."""
    final: list[FinalSeat] = []
    settlements: list[Settlement] = []
    """What made up `payments` (wins, kongs, the draw); empty in older results."""
    seating: Seating | None = None
    """The session's seating draw, in the result of the first hand it seated (else None)."""

    def __post_init__(self) -> None:
        _check_seats(self.seats)
        _check_money(self.payments, self.penalties, self.incidents)
        if self.settlements:
            summed = [sum(s.amounts[seat] for s in self.settlements) for seat in range(4)]
            if summed != self.payments:
                raise ValueError(f"'settlements' add up to {summed}, not to 'payments'")
        if self.draw != (not self.wins):
            raise ValueError("'draw' must be true exactly when 'wins' is empty")
        if len({w.seat for w in self.wins}) != len(self.wins):
            raise ValueError("a seat appears twice in 'wins'")
        if self.ended_at < self.started_at:
            raise ValueError("'ended_at' is before 'started_at'")

    def player(self, seat: int) -> str:
        """The player id sitting at `seat`."""
        return next(s.player for s in self.seats if s.seat == seat)

    def totals(self) -> list[int]:
        """Points each seat gained or lost in this hand: payments plus penalties."""
        return [p + q for p, q in zip(self.payments, self.penalties, strict=True)]


def _check_seats(seats: list[SeatEntry]) -> None:
    if sorted(s.seat for s in seats) != [0, 1, 2, 3]:
        raise ValueError("'seats' must list seats 0, 1, 2 and 3 once each")
    if len({s.player for s in seats}) != 4:
        raise ValueError("'seats' names the same player twice")
    if len({s.wind for s in seats}) != 4:
        raise ValueError("'seats' gives the same wind twice")


def _check_money(payments: list[int], penalties: list[int], incidents: list[Incident]) -> None:
    if len(payments) != 4 or sum(payments) != 0:
        raise ValueError(f"'payments' must hold 4 amounts summing to zero, not {payments}")
    expected = [-sum(i.penalty for i in incidents if i.seat == seat) for seat in range(4)]
    if penalties != expected:
        raise ValueError(f"'penalties' {penalties} do not match the incidents ({expected})")
