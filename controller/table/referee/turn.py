"""Whose turn it is and what that seat must do next: draw, draw a replacement (after a kong or
a flower), or discard; the seat's newest draw; how many discards and whether a set was claimed
yet (the first-turn wins need both). Changed only through the named steps of a turn: the
referee holds it as `TurnSteps`, whose fields are read-only."""

import enum
from dataclasses import dataclass
from typing import Protocol


class Need(enum.Enum):
    """What the seat whose turn it is must do next."""

    DRAW = "draw"
    REPLACEMENT = "replacement"
    DISCARD = "discard"


class Replaced(enum.Enum):
    """What a replacement draw replaced."""

    KONG = "kong"
    FLOWER = "flower"


@dataclass(frozen=True)
class LastDraw:
    """The newest tile a seat took from the wall."""

    place: int
    uid: int
    replaced: Replaced | None
    wall_before: int


class TurnSteps(Protocol):
    """The turn as the referee holds it: its fields read-only, changed by its steps."""

    @property
    def place(self) -> int:
        """The seat whose turn it is."""

    @property
    def need(self) -> Need:
        """What that seat must do next."""

    @property
    def last_draw(self) -> LastDraw | None:
        """The newest tile taken from the wall in a turn (None: the turn began with a claim)."""

    @property
    def held_draw(self) -> int | None:
        """A tag from the wall the seat on turn took into its hand before the move that calls
        for it was read (taken as a stray): its draw once that move is read, in this turn."""

    @property
    def discards(self) -> int:
        """Discards that opened a claim window so far."""

    @property
    def claims_made(self) -> bool:
        """A set was claimed on a discard this hand."""

    def drew(self, place: int, uid: int, replacement: bool, wall_before: int) -> LastDraw:
        """The seat drew this tag (a replacement replaces what `replace` said); it discards next."""

    def holds_from_wall(self, uid: int) -> None:
        """The seat on turn holds this tag from the wall, taken as a stray (`held_draw`)."""

    def taken_over(self, place: int) -> None:
        """A seat drew in place of the seat on turn: the turn is its now."""

    def claimed(self, place: int) -> None:
        """The seat claimed a set on a discard: its turn, which follows no draw (no 杠上炮)."""

    def to_discard(self) -> None:
        """The seat on turn discards next (a set claimed, or no replacement to draw)."""

    def replace(self, replaced: Replaced) -> None:
        """The seat on turn draws a replacement next (for a kong or a flower)."""

    def discarded(self, next_place: int) -> None:
        """A discard: the next seat draws."""

    def set_void(self) -> None:
        """The set the seat on turn laid out is void: no replacement, the turn is a draw's."""

    def after_win(self, place: int) -> None:
        """A win in a hand that goes on: `place` draws next."""


class Turn:
    """The turn in play (held as `TurnSteps`: its fields are read-only to the referee)."""

    def __init__(self, dealer: int) -> None:
        self.place = dealer
        self.need = Need.DISCARD
        self.last_draw: LastDraw | None = None
        self.discards = 0
        self.claims_made = False
        self.held_draw: int | None = None
        self._replacing: Replaced | None = None

    def drew(self, place: int, uid: int, replacement: bool, wall_before: int) -> LastDraw:
        replaced = self._replacing if replacement else None
        self.last_draw = LastDraw(place, uid, replaced, wall_before)
        self._replacing = None
        self.held_draw = None
        self.need = Need.DISCARD
        return self.last_draw

    def holds_from_wall(self, uid: int) -> None:
        self.held_draw = uid

    def taken_over(self, place: int) -> None:
        self.place = place
        self.held_draw = None

    def claimed(self, place: int) -> None:
        self.claims_made = True
        self.place = place
        self.last_draw = None
        self.held_draw = None

    def to_discard(self) -> None:
        self.need = Need.DISCARD

    def replace(self, replaced: Replaced) -> None:
        self.need, self._replacing = Need.REPLACEMENT, replaced

    def discarded(self, next_place: int) -> None:
        self.discards += 1
        self.place = next_place
        self.need = Need.DRAW
        self.held_draw = None

    def set_void(self) -> None:
        self.need = Need.DRAW
        self._replacing = None

    def after_win(self, place: int) -> None:
        self.place = place
        self.need = Need.DRAW
        self.held_draw = None
