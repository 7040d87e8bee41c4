"""A moment on both clocks, and the irregularities the table records at one: what the referee,
the turn clocks and the hand cycle all report, below any of them."""

from dataclasses import dataclass

from controller.incident_kinds import IncidentKind as IncidentKind
from controller.table.rulings import Ruling


@dataclass(frozen=True)
class Instant:
    """A moment on both clocks: monotonic (for timeouts) and wall (for people and results)."""

    monotonic: float
    wall: float


@dataclass(frozen=True)
class IncidentRecord:
    """An irregularity seen at the table; it never stops play."""

    at: Instant
    place: int | None
    kind: IncidentKind
    detail: str
    penalty: int = 0
    """Penalty points the seat loses for it (0: none); `kind` says what they are for."""
    tiles: tuple[int, ...] = ()
    """The tiles concerned (kinds): e.g. a short hand's tiles, penalty tiles of a false win."""
    ruling: Ruling | None = None
    """The row of docs/rulings.md the referee applied (None: no ruling, e.g. the clocks)."""
