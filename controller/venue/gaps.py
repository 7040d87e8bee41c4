"""What the recorder is missing from each table, and when to ask for it.

Results are numbered per outbox (the table's outbox file has a random id carried in every
message). The recorder asks a table for a resend:
- when it meets a table's outbox or boot for the first time in this run (a store that never
  heard of the outbox asks from seq 1; otherwise from just after the highest seq it holds, which
  also brings back results lost from the store's tail, e.g. after a restore from backup), and
  for the results it refused before (its keys file may have been fixed since);
- when the results of one outbox show a hole, for exactly that range, a bounded number of times
  with growing waits, after which the hole is written down as a notice and no longer asked for.
A table that starts a new outbox (a wiped or replaced file, so its numbers start again) is
written down as a notice too; its results are new hands, recorded under the new outbox.
"""

import logging
from collections.abc import Callable
from dataclasses import dataclass

from controller.hub.contract.hub_commands import ResendResults
from controller.venue.store import ResultStore

_log = logging.getLogger(__name__)
Source = tuple[str, str]  # (table, outbox id; '' for a sender that names none)
Notify = Callable[[str, str, str], None]  # (table, kind, text)


@dataclass
class _Hole:
    first: int
    last: int
    due: float
    asked: int = 0


class GapWatch:
    """Per table outbox: the boots met, the results held without a hole, the hole being asked."""

    def __init__(self, store: ResultStore, grace_s: float, max_asks: int, notify: Notify) -> None:
        self.store = store
        self.grace_s = grace_s
        self.max_asks = max_asks
        self.notify = notify
        self.asks = 0
        self._met: dict[str, tuple[str, int]] = {}
        self._floor: dict[Source, int] = {}
        self._holes: dict[Source, _Hole] = {}

    def knows(self, table: str, outbox: str, boot: int) -> bool:
        """Whether this outbox and boot of `table` have been met in this run."""
        return self._met.get(table) == (outbox, boot)

    def meet(self, table: str, outbox: str, boot: int, now: float) -> bool:
        """A live message from `table`: True if this outbox or boot is new to this run, so the
        table should be asked for what the store lacks (`on_meeting`, once the batch is stored)."""
        if self.knows(table, outbox, boot):
            return False
        self._met[table] = (outbox, boot)
        known = self.store.outboxes(table)
        if outbox not in known:
            self.store.add_source(table, outbox, now)
            earlier = [o for o in known if o]
            if outbox and earlier:
                self._new_outbox(table, outbox, earlier[-1])
        return True

    def forget_met(self) -> None:
        """Meet every table anew (the store was down: ask each for what it still lacks)."""
        self._met.clear()

    def on_meeting(self, source: Source) -> list[ResendResults]:
        """What to ask a table met anew: what it refused before (the venue may have fixed a
        key since) and everything after the highest seq the store holds from this outbox.

        Asked after the acks of the same batch went out, so the table (which gets our messages
        in order) reopens only results it believes acked that the store does not hold.
        """
        asks = [ResendResults(since_seq=a, until_seq=b) for a, b in _spans(
            self.store.refused_seqs(*source))]  # fmt: skip
        since = self.store.top_seq(*source) + 1
        asks.append(ResendResults(since_seq=since))
        _log.info("table %s (outbox %s): asking for results from seq %d (and %d refused spans)",
                  source[0], source[1][:8] or "?", since, len(asks) - 1)  # fmt: skip
        self.asks += len(asks)
        return asks

    def _new_outbox(self, table: str, outbox: str, previous: str) -> None:
        top = self.store.top_seq(table, previous)
        self.notify(
            table,
            "outbox_reset",
            f"table {table} started a new outbox ({outbox[:8]}): its result numbers begin "
            f"again; the previous outbox ({previous[:8]}) had reached seq {top}. Results "
            f"recorded from it stay; {_lost(self.store.hands_without_result(table))} "
            "(was the table's outbox file wiped or replaced?)",
        )

    def holes(self, sources: set[Source], now: float) -> list[tuple[str, ResendResults]]:
        """The resends to ask for now, for these sources and any with a hole open (the store
        is asked about all of them at once)."""
        checked = list(sources | set(self._holes))
        found = self.store.first_gaps([(t, o, self._floor.get((t, o), 0)) for t, o in checked])
        asks = []
        for source, (gap, top) in zip(checked, found, strict=True):
            action = self._check(source, gap, top, now)
            if action is not None:
                asks.append((source[0], action))
        return asks

    def _check(
        self, source: Source, found: tuple[int, int] | None, top: int, now: float
    ) -> ResendResults | None:
        if found is None:
            self._floor[source] = top
            self._holes.pop(source, None)
            return None
        first, last = found
        self._floor[source] = first - 1
        hole = self._holes.get(source)
        if hole is None or (hole.first, hole.last) != found:
            self._holes[source] = _Hole(first, last, due=now + self.grace_s)
            return None
        if now < hole.due:
            return None
        if hole.asked >= self.max_asks:
            self._give_up(source, hole)
            return None
        hole.asked += 1
        hole.due = now + self.grace_s * 2**hole.asked
        self.asks += 1
        _log.info("table %s: results %d-%d missing; asked for a resend", source[0], first, last)
        return ResendResults(since_seq=first, until_seq=last)

    def _give_up(self, source: Source, hole: _Hole) -> None:
        table, outbox = source
        self.notify(
            table,
            "missing",
            f"results {hole.first}-{hole.last} of table {table} (outbox {outbox[:8] or '?'}) "
            f"never arrived although asked for {hole.asked} times: the table no longer holds "
            "them or cannot send them",
        )
        self._floor[source] = hole.last
        del self._holes[source]


def _spans(seqs: list[int]) -> list[tuple[int, int]]:
    """Sorted numbers as runs: [1, 2, 3, 7] -> [(1, 3), (7, 7)]."""
    spans: list[tuple[int, int]] = []
    for seq in seqs:
        if spans and spans[-1][1] == seq - 1:
            spans[-1] = (spans[-1][0], seq)
        else:
            spans.append((seq, seq))
    return spans


def _lost(hands: list[tuple[str, int]], shown: int = 20) -> str:
    """The hands whose result was lost, in words."""
    if not hands:
        return "every hand whose wall was committed has its result"
    named = ", ".join(f"{session} hand {hand}" for session, hand in hands[:shown])
    more = f" and {len(hands) - shown} more" if len(hands) > shown else ""
    return f"{len(hands)} hands began but their results never came: {named}{more}"
