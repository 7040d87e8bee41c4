"""The table's results sink when no hub is configured: results go to the log only; the latest
few stay in memory (a daemon runs all day: what it keeps must not grow with its hands)."""

import logging
import uuid
from collections import deque

from controller.table.cycle import TableView
from controller.table.records import FinishedHand, HandStart, IncidentRecord
from controller.table.tiles import seat_name

log = logging.getLogger(__name__)
RECENT = 16
"""Results (and incidents) a log sink keeps in memory by default: the latest this many."""


class LogSink:
    """No hub: results go to the log; the latest `keep` results and incidents stay in memory
    (`keep=None`: every one, for a test that reads them all)."""

    def __init__(self, keep: int | None = RECENT) -> None:
        self.results: deque[FinishedHand] = deque(maxlen=keep)
        self.incidents: deque[IncidentRecord] = deque(maxlen=keep)
        self.recorded = 0
        """Results recorded this run (kept or not)."""

    def hand_began(self, start: HandStart) -> None:
        """Log the start (and the seating draw that began the session)."""
        seating = start.seating
        if seating is not None:
            drawn = ", ".join(
                f"{p} {w}" for p, w in zip(seating.players_at_draw, seating.drawn, strict=True)
            )
            dice = "+".join(str(d) for d in seating.dice)
            log.info("session %s seated by the draw (dice %s): %s", start.session, dice, drawn)
        log.info("hand %d of session %s begins", start.hand, start.session)

    def incident(self, start: HandStart | None, incident: IncidentRecord) -> None:
        """Keep the incident."""
        self.incidents.append(incident)

    async def record(self, hand: FinishedHand) -> str:
        """Log the result; returns a fresh id."""
        self.results.append(hand)
        self.recorded += 1
        payments = " ".join(f"{seat_name(p)} {a:+d}" for p, a in enumerate(hand.payments))
        winners = ", ".join(seat_name(w.place) for w in hand.wins) or "nobody (drawn)"
        log.info("result of hand %d: won by %s; %s", hand.start.hand, winners, payments)
        return uuid.uuid4().hex

    def status(self, view: TableView) -> None:
        """Nothing to publish."""
