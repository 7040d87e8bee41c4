"""Whose turn it is and what that seat must do next: draw, draw a replacement (after a kong or
a flower), or discard; the seat's newest draw; how many discards and whether a set was claimed
yet (the first-turn wins need both). Changed only through the named steps of a turn."""

import enum
from dataclasses import dataclass


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


class Turn:
    """The turn in play; read its fields, change it through its steps."""

    def __init__(self, dealer: int) -> None:
        self._place = dealer
        self._need = Need.DISCARD
        self._replacing: Replaced | None = None
        self._last_draw: LastDraw | None = None
        self._discards = 0
        self._claims_made = False

    @property
    def place(self) -> int:
        """The seat whose turn it is."""
        return self._place

    @property
    def need(self) -> Need:
        """What that seat must do next."""
        return self._need

    @property
    def last_draw(self) -> LastDraw | None:
        """The newest tile taken from the wall in a turn (None: the turn began with a claim)."""
        return self._last_draw

    @property
    def discards(self) -> int:
        """Discards that opened a claim window so far."""
        return self._discards

    @property
    def claims_made(self) -> bool:
        """A set was claimed on a discard this hand."""
        return self._claims_made

    def drew(self, place: int, uid: int, replacement: bool, wall_before: int) -> LastDraw:
        """The seat drew this tag (a replacement replaces what `replace` said); it discards next."""
        replaced = self._replacing if replacement else None
        self._last_draw = LastDraw(place, uid, replaced, wall_before)
        self._replacing = None
        self._need = Need.DISCARD
        return self._last_draw

    def taken_over(self, place: int) -> None:
        """A seat drew in place of the seat on turn: the turn is its now."""
        self._place = place

    def claimed(self, place: int) -> None:
        """The seat claimed a set on a discard: its turn, which follows no draw (no 杠上炮)."""
        self._claims_made = True
        self._place = place
        self._last_draw = None

    def to_discard(self) -> None:
        """The seat on turn discards next (a set claimed, or no replacement to draw)."""
        self._need = Need.DISCARD

    def replace(self, replaced: Replaced) -> None:
        """The seat on turn draws a replacement next (for a kong or a flower)."""
        self._need, self._replacing = Need.REPLACEMENT, replaced

    def discarded(self, next_place: int) -> None:
        """A discard: the next seat draws."""
        self._discards += 1
        self._place = next_place
        self._need = Need.DRAW

    def set_void(self) -> None:
        """The set the seat on turn laid out is void: no replacement, the turn is a draw's."""
        self._need = Need.DRAW
        self._replacing = None

    def after_win(self, place: int) -> None:
        """A win in a hand that goes on: `place` draws next."""
        self._place = place
        self._need = Need.DRAW
