"""Irregularities the table can tell from one look at the tiles, without the move history:
a seat holding too few or too many tiles, a tag that is not in the tile set, a tile that has
left the table. Pure: the referee passes in what it reads and the instant; these return typed
`Incident`s (seat, time, tiles, what it costs), which become the hand's incident records.

    size = hand_size(concealed=13, sets=0, to_throw=True)      # HandSize.SHORT
    incident = count_incident(seat, at, concealed, sets, to_throw, ruleset.penalties)
    record = incident.record()                                  # an IncidentRecord

How many tiles a seat must hold (seed 003): 13 in the concealed hand and the declared sets
together while it waits, 14 while it holds a tile to throw (after its draw, a claim or a
replacement draw), every declared set counted as 3 tiles (a kong too). Flowers set aside are
not counted. A short hand (小相公) loses the right to win for the rest of the hand; a long hand
(大相公) also the right to claim and to kong, even if the count is later restored.

A false win (錯和: a declared and revealed hand that is not a win) lets play go on; every tile
the seat exposed becomes a penalty tile (罰張). `PenaltyTiles` keeps a seat's penalty tiles by
tag: live ones may be discarded at the seat's current or next discard, and once it discards
anything else they are dead and may never be discarded; live or dead, none may go into an
exposed set (a chow, pung or kong, nor a discard win that exposes it).
"""

import enum
from collections.abc import Collection, Iterable
from dataclasses import dataclass, replace

from controller.rules import format_tiles
from controller.rules.penalties import PenaltyPoints
from controller.table.incidents import IncidentKind, IncidentRecord, Instant
from controller.table.rulings import Ruling
from controller.table.tiles import TileMap, seat_name, tag


class Rights(enum.Flag):
    """What a seat may still do this hand."""

    NONE = 0
    WIN = enum.auto()
    CLAIM = enum.auto()
    KONG = enum.auto()
    ALL = WIN | CLAIM | KONG


@dataclass(frozen=True)
class Cost:
    """What an incident costs its seat: points, rights lost for the rest of the hand, tiles
    that become penalty tiles (face up beside the hand)."""

    points: int = 0
    loses: Rights = Rights.NONE
    penalty_tiles: tuple[int, ...] = ()


@dataclass(frozen=True)
class Incident:
    """One irregularity: what, whose, when, which tiles (kinds) and what it costs."""

    kind: IncidentKind
    seat: int | None
    at: Instant
    tiles: tuple[int, ...]
    cost: Cost
    detail: str
    ruling: Ruling | None = None
    """The row of docs/rulings.md applied."""

    def record(self) -> IncidentRecord:
        """The incident as the hand's result keeps it (points as its penalty)."""
        return IncidentRecord(
            self.at, self.seat, self.kind, self.detail, self.cost.points, self.tiles, self.ruling
        )


class HandSize(enum.Enum):
    """A seat's tile count against what it must hold."""

    RIGHT = "right"
    SHORT = "short"
    LONG = "long"


def expected_tile_count(sets: int, to_throw: bool) -> int:
    """Concealed tiles a seat beside `sets` declared sets must hold (+1 with a tile to throw)."""
    return 13 + int(to_throw) - 3 * sets


def hand_size(concealed: int, sets: int, to_throw: bool) -> HandSize:
    """Whether `concealed` tiles beside `sets` declared sets are the right count, short or long."""
    expected = expected_tile_count(sets, to_throw)
    if concealed < expected:
        return HandSize.SHORT
    return HandSize.LONG if concealed > expected else HandSize.RIGHT


def count_incident(
    seat: int,
    at: Instant,
    concealed: Collection[int],
    sets: int,
    to_throw: bool,
    points: PenaltyPoints,
    ruling: Ruling | None = None,
) -> Incident | None:
    """A short- or long-hand incident for a seat's settled concealed tiles (kinds), or None;
    `ruling` names the row of docs/rulings.md that made it (default: a discard without a draw
    for a short hand, a second draw for a long one)."""
    size = hand_size(len(concealed), sets, to_throw)
    if size is HandSize.RIGHT:
        return None
    expected = expected_tile_count(sets, to_throw)
    held = f"{seat_name(seat)} holds {len(concealed)} concealed tiles beside {sets} set(s)"
    if size is HandSize.SHORT:
        cost = Cost(points.short_hand, Rights.WIN)
        text = f"short hand: {held} where {expected} belong: no win this hand"
        kind = IncidentKind.SHORT_HAND
        ruling = ruling or Ruling.DISCARD_UNDRAWN
    else:
        cost = Cost(points.long_hand, Rights.ALL)
        text = f"long hand: {held} where {expected} belong: no win, claim or kong this hand"
        kind = IncidentKind.LONG_HAND
        ruling = ruling or Ruling.SECOND_DRAW
    return Incident(kind, seat, at, tuple(sorted(concealed)), cost, text, ruling)


def false_win_incident(
    seat: int, at: Instant, exposed: Collection[int], reason: str, points: PenaltyPoints
) -> Incident:
    """A declared win that is not one (`reason` from the rules engine): play goes on, and the
    exposed tiles (kinds) become penalty tiles."""
    tiles = tuple(sorted(exposed))
    text = (
        f"false win: {seat_name(seat)} declared a win: {reason}; "
        f"{format_tiles(tiles)} become penalty tiles"
    )
    return Incident(
        IncidentKind.FALSE_WIN,
        seat,
        at,
        tiles,
        Cost(points.false_win, Rights.NONE, tiles),
        text,
        Ruling.FALSE_WIN,
    )


@dataclass(frozen=True)
class PenaltyTiles:
    """One seat's penalty tiles by tag: live (may still be discarded) and dead."""

    live: frozenset[int] = frozenset()
    dead: frozenset[int] = frozenset()

    @property
    def all(self) -> frozenset[int]:
        """Every penalty tile of the seat, live or dead."""
        return self.live | self.dead

    def exposed(self, uids: Iterable[int]) -> "PenaltyTiles":
        """More tiles exposed by mistake: they are live penalty tiles now."""
        return replace(self, live=self.live | (frozenset(uids) - self.dead))

    def may_discard(self, uid: int) -> bool:
        """Whether the seat may discard this tile (any tile but a dead penalty tile)."""
        return uid not in self.dead

    def after_discard(self, uid: int) -> "PenaltyTiles":
        """The seat discarded `uid`: it is no penalty tile any more, and the live ones left
        are dead (a discard of anything else, another live one too, ends their time)."""
        return PenaltyTiles(frozenset(), (self.dead | self.live) - {uid})

    def used_concealed(self, uids: Iterable[int]) -> "PenaltyTiles":
        """Tiles put into a concealed kong are no penalty tiles any more."""
        gone = frozenset(uids)
        return PenaltyTiles(self.live - gone, self.dead - gone)

    def in_set(self, uids: Iterable[int]) -> frozenset[int]:
        """The penalty tiles among an exposed set's tags (none may be there: a wrong claim)."""
        return self.all & frozenset(uids)


def rights_left(incidents: Iterable[Incident], seat: int) -> Rights:
    """What `seat` may still do after these incidents of the hand."""
    rights = Rights.ALL
    for incident in incidents:
        if incident.seat == seat:
            rights &= ~incident.cost.loses
    return rights


def unknown_tags(uids: Iterable[int], tiles: TileMap) -> tuple[int, ...]:
    """The tags among `uids` that are not in the tile set, sorted."""
    return tuple(sorted(tiles.unknown(uids)))


def unknown_tile_incident(seat: int | None, at: Instant, uids: Collection[int]) -> Incident:
    """Tags that are in no tile set appeared on the table (`seat`'s zones, or None)."""
    where = f"in front of {seat_name(seat)}" if seat is not None else "on the table"
    tags = ", ".join(tag(uid) for uid in sorted(uids))
    text = f"{len(uids)} tile(s) not in this tile set appeared {where}: {tags}"
    return Incident(IncidentKind.UNKNOWN_TILE, seat, at, (), Cost(), text, Ruling.UNKNOWN_TAG)


def tiles_gone(in_play: Collection[int], seen: Collection[int]) -> tuple[int, ...]:
    """Tags in play (dealt or drawn, not in the wall) that no zone reads any more, sorted."""
    present = set(seen)
    return tuple(sorted(uid for uid in in_play if uid not in present))


def left_table_incident(
    seat: int | None, at: Instant, uids: Collection[int], tiles: TileMap
) -> Incident:
    """Tiles last seen at `seat` (None: unknown) that have left the table."""
    kinds = tuple(sorted(tiles.kinds(uids)))
    where = f" from {seat_name(seat)}" if seat is not None else ""
    text = f"{len(uids)} tile(s) left the table{where}: {format_tiles(kinds)}"
    return Incident(IncidentKind.TILE_LEFT_TABLE, seat, at, kinds, Cost(), text, Ruling.MISSED_READ)
