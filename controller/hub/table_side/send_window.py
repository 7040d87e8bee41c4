"""Which results the link publishes now: of the first `size` results waiting in the outbox,
those not yet sent on this connection and those whose wait for an ack is over.

Kept up to date as results are sent and acked, not found by looking through the whole window
at every turn: the window remembers how far it has sent (`_through`); the results after that
are new, and the resend schedule says which sent ones are due again. When the outbox holds a
result again below what was sent (a resend request put it back) or every result is due at
once (a new connection, the hub back), the next turn looks through the window once."""

from controller.hub.mqtt.link_timing import ResendSchedule
from controller.hub.table_side.outbox import Outbox, PendingResult


class SendWindow:
    """The results to publish, at most `size` of them unacknowledged at a time."""

    def __init__(self, outbox: Outbox, schedule: ResendSchedule, size: int) -> None:
        self.outbox = outbox
        self.schedule = schedule
        self.size = size
        self._through = 0
        """Every result still waiting up to this sequence number is sent and scheduled, none
        after it (unless `_look_again`)."""
        self._look_again = True
        self._backfills = outbox.backfills

    def restart(self) -> None:
        """Every result is due at once (a new connection, the hub back online)."""
        self.schedule.send_all_now()
        self._look_again = True

    def due(self, now: float) -> list[PendingResult]:
        """The results to publish now, in sequence order; note each with `sent` once it is."""
        if self._look_again or self.outbox.backfills != self._backfills:
            self._look_again = False
            self._backfills = self.outbox.backfills
            window = self.outbox.pending_results(self.size)
            self._through = window[-1].seq if window else 0
            return [result for result in window if self.schedule.is_due(result.id, now)]
        through = self._through
        again = [self.outbox.pending_result(result_id) for result_id in self.schedule.due(now)]
        due = sorted((r for r in again if r is not None and r.seq <= through), key=_seq)
        room = self.size - self.outbox.pending_through(through)
        if room > 0:
            fresh = self.outbox.pending_results(room, after_seq=through)
            self._through = fresh[-1].seq if fresh else through
            # (one sent before a resend request put older ones ahead of it may still wait)
            due += [result for result in fresh if self.schedule.is_due(result.id, now)]
        return due

    def sent(self, result: PendingResult, now: float) -> bool:
        """Note that a result was published; True when it was sent before."""
        return self.schedule.sent(result.id, now)


def _seq(result: PendingResult) -> int:
    return result.seq
