"""What the hand cycle reports about a hand: its start, its wins, its incidents, its result."""

from dataclasses import dataclass

from controller.rules import Meld, Seat


@dataclass(frozen=True)
class Instant:
    """A moment on both clocks: monotonic (for timeouts) and wall (for people and results)."""

    monotonic: float
    wall: float


@dataclass(frozen=True)
class WinRecord:
    """One validated win; places are physical seats 0-3, tiles are kinds."""

    place: int
    discarder: int | None
    win_tile: int
    concealed: tuple[int, ...]
    melds: tuple[Meld, ...]
    flowers: tuple[int, ...]
    patterns: tuple[tuple[str, int], ...]
    total: int
    unit: str
    score: int


@dataclass(frozen=True)
class IncidentRecord:
    """An irregularity seen at the table; it never stops play."""

    at: Instant
    place: int | None
    kind: str
    detail: str
    penalty: int = 0


@dataclass(frozen=True)
class HandStart:
    """A hand whose deal is decided: who sits where and the wall in draw order."""

    session: str
    hand: int
    ruleset: str
    """The ruleset's name (`Ruleset.name`)."""
    round_wind: Seat
    dealer: int
    players: tuple[str, ...]
    winds: tuple[Seat, ...]
    """Seat wind of each physical seat this hand."""
    dice: tuple[int, ...]
    wall_order: tuple[int, ...]
    """Tile kinds in drawing order from the live end (what the result reveals)."""
    started_at: Instant


@dataclass(frozen=True)
class FinishedHand:
    """A hand that is over, as it goes to the outbox."""

    start: HandStart
    wins: tuple[WinRecord, ...]
    payments: tuple[int, ...]
    incidents: tuple[IncidentRecord, ...]
    ended_at: Instant

    @property
    def drawn(self) -> bool:
        """No one won."""
        return not self.wins
