"""The referee: a pure state machine from 'deal checked' to 'hand over'. Feed it
`handle(input, now)`; it answers with moves, incidents, wins and, at the end, the result."""

from collections.abc import Iterator
from typing import assert_never

from controller.table.clocks import SeatTime
from controller.table.incidents import IncidentKind, Instant
from controller.table.irregularities import left_table_incident
from controller.table.ports import Zone
from controller.table.referee import claims, fouls, moves, procedures, timing
from controller.table.referee.events import (
    Declare,
    Elapsed,
    EndNow,
    Inventories,
    Pause,
    ReadAgain,
    ReadDone,
    ReadsComplete,
    ReadsMissing,
    RefereeInput,
    RefereeOutput,
    Resume,
    TimeCalled,
)
from controller.table.referee.setup import RefereeSetup
from controller.table.referee.state import Play
from controller.table.referee.turn import Need
from controller.table.referee.windows import Close
from controller.table.rulings import Ruling
from controller.table.tiles import seat_name, seats_words

_NONE: frozenset[int] = frozenset()
_NEED_WORDS = {Need.DRAW: "draw", Need.REPLACEMENT: "draw a replacement", Need.DISCARD: "discard"}
READ_BACKOFF = 8
"""Reads again for the same wait: three a settle time apart, then 2, 4, at last 8 apart."""


class Referee:
    """Follows one hand move by move."""

    def __init__(self, setup: RefereeSetup) -> None:
        self.setup = setup
        self.play: Play = setup.play()

    @property
    def over(self) -> bool:
        """The referee has ended the hand."""
        return bool(self.play.over)

    @property
    def turn(self) -> int | None:
        """The seat to act (None once the hand is over)."""
        return None if self.play.over else self.play.on_turn.place

    @property
    def declared(self) -> tuple[int, ...]:
        """Seats whose declaration is still to be judged."""
        play = self.play
        window = tuple(play.windows.open.declares) if play.windows.open else ()
        return tuple(sorted({*window, *play.windows.self_declared, *play.windows.early}))

    def waiting_for(self) -> str:
        """What the referee waits for next, in words (a session that stalls says it)."""
        play = self.play
        if play.over:
            return "nothing: the hand is over"
        turn, left = play.on_turn, play.wall.remaining
        need = _NEED_WORDS[turn.need]
        words = [f"seat {seat_name(turn.place)} to {need}, {left} left in the wall"]
        window = play.windows.open
        if window is not None:
            tile = play.tiles.notation([window.uid])
            words.append(f"the claims on seat {seat_name(window.source)}'s {tile}")
        if self.declared:
            words.append(f"the declarations of {seats_words(self.declared)} to be judged")
        if play.odd:
            words.append(f"tiles out of place: {play.tiles.notation(play.odd)}")
        if play.unseen:
            words.append(f"tiles read nowhere: {play.tiles.notation(play.unseen)}")
        return "; ".join(words)

    @property
    def winners(self) -> tuple[int, ...]:
        """Places of the winners so far, in order."""
        return tuple(win.place for win in self.play.wins)

    @property
    def reads_missing_since(self) -> float | None:
        """Since when zone reads may be missing, as last told (None: complete)."""
        return self.play.waits.missing_since

    @property
    def paused(self) -> bool:
        """A fault has stopped the clocks."""
        return self.play.time.paused

    @property
    def next_deadline(self) -> float | None:
        """The first instant (monotonic) after the last input at which a clock or a wait
        falls due: the claim window's time, a declaration's or out-of-place tags' settle
        time, the next read again (None: none). A decision that also waits for missing reads
        is taken at a later input or tick."""
        play = self.play
        if play.over:
            return None
        dues = [d for d in self._waits() if d > play.t]
        clocks = play.time.clocks
        deadline = None if clocks is None else clocks.next_deadline()
        if deadline is not None:
            dues.append(deadline)
        return min(dues, default=None)

    def _waits(self) -> Iterator[float]:
        play = self.play
        settings = play.settings
        window_due = play.window_due()
        if window_due is not None:
            yield window_due
        for at in play.windows.early.values():
            yield at.monotonic + settings.settle_s
            yield at.monotonic + 2 * settings.settle_s
        for at in play.windows.self_declared.values():
            yield at.monotonic + settings.settle_s
            yield at.monotonic + settings.stray_s
        waits = play.waits
        for since in (waits.odd_since, waits.unseen_since, waits.conflict_since):
            if since is not None:
                yield since + settings.settle_s
                yield since + settings.stray_s / 2
                yield since + settings.stray_s
        if waits.read_at is not None:
            yield self._next_read(waits.read_at)

    def _next_read(self, last: float) -> float:
        """When to read the zones again for the same wait (the last read or its start at `last`)."""
        play = self.play
        factor: int = min(2 ** max(0, play.waits.reads - 2), READ_BACKOFF)
        return last + play.settings.settle_s * factor

    def seat_time(self, place: int, now: float) -> SeatTime | None:
        """A seat's clock for the live status (None before the first input)."""
        clocks = self.play.time.clocks
        return None if clocks is None else clocks.seat_time(place, now)

    @property
    def penalties(self) -> tuple[int, ...]:
        """Penalty points each seat has lost in this hand so far (>= 0)."""
        incidents = self.play.incidents
        return tuple(sum(i.penalty for i in incidents if i.place == p) for p in range(4))

    def handle(self, event: RefereeInput, now: Instant) -> list[RefereeOutput]:
        """Take one input at instant `now`; returns what the referee saw, in order."""
        play = self.play
        if play.over:
            return []
        play.begin_input(now)
        timing.start(play)
        match event:
            case Inventories(zones):
                for content in zones:
                    added = content.uids - play.zones.get((content.place, content.zone), _NONE)
                    if added:  # a tag seen in the zone before was looked at then
                        fouls.foreign_tags(play, content.place, added)
                    play.observe(content.place, content.zone, content.uids)
                self._reconcile()
            case Declare(place):
                claims.declare(play, place)
                # The reads may already show what the press explains: the tile the seat on
                # turn was to draw, drawn, thrown and taken to win between two reads.
                self._reconcile()
            case Elapsed():
                pass
            case ReadDone(asked_at):
                play.waits.answered(asked_at)
            case Pause():
                timing.pause(play)
            case Resume():
                timing.resume(play)
            case ReadsMissing(since):
                play.waits.missing(since)
            case ReadsComplete():
                play.waits.missing(None)
            case EndNow(reason):
                if play.windows.open is not None:  # what was declared on it still counts
                    claims.close(play, Close.TIME)
                procedures.end(play, reason)
                return list(play.out)
            case _:
                assert_never(event)
        fouls.say_foreign(play)
        self._time()
        timing.tick(play)
        if play.time.events:
            play.say(TimeCalled(tuple(play.time.events)))
        return list(play.out)

    def _reconcile(self, patient: bool = False) -> None:
        play = self.play
        while moves.explain(play, patient):
            pass
        play.waits.note(play.t, bool(play.odd), bool(play.unseen), bool(play.conflicts))

    def _time(self) -> None:
        play = self.play
        window = play.windows.open
        # The time is up, unless the tile is on its way to a claimer: read in a set whose
        # rest is not read yet, or (no win declared on it) gone from the river and read
        # nowhere yet (a lost read). The claim came in time; the reads are late. Nor while
        # the next draw's tile lies in a declarer's hand: the press is on the discard of it.
        taking = (
            window is not None
            and window.taken_by is None
            and (window.uid in play.odd or (window.uid in play.unseen and not window.declares))
        ) or moves.drawn_and_taken(play)
        # The window's time tells when to stop waiting for declarations (a win is judged then,
        # and the last discard's window ends the hand); a set may still be claimed until the
        # next draw, however late (R-CLAIM-5), so a window nobody declared on stays open.
        due = play.window_due()
        judged = window is not None and (window.declares or window.robbing or window.last)
        if judged and due is not None and play.t >= due and not taking and play.reads_in(due):
            claims.close(play, Close.TIME)
            self._reconcile()
        claims.place_declarations(play)
        claims.judge_settled(play)
        if play.over:
            return
        nothing_to_draw = play.on_turn.need is not Need.DISCARD and play.wall.remaining == 0
        if play.windows.open is None and nothing_to_draw:
            procedures.end(play, "the wall is empty")
            return
        pressed = (at.monotonic for at in play.windows.early.values())
        waits = play.waits
        foreign = fouls.foreign_since(play)
        waiting = (waits.odd_since, waits.unseen_since, waits.conflict_since, foreign, *pressed)
        since = min((t for t in waiting if t is not None), default=None)
        if since is None:
            waits.nothing_waits()
            return
        # A press no tile explains yet, tags out of place, read nowhere or in no tile set for
        # a while: read the zones again (a tag an antenna missed, a damaged read; again while
        # it lasts), then take what no move of the turn explains as a move out of turn (a
        # draw, a throw), at last as strays, or as tiles gone from the table.
        settle = play.settings.settle_s
        waits.waiting()
        if play.t >= self._next_read(since if waits.read_at is None else waits.read_at):
            waits.asked(play.t)
            play.say(ReadAgain())
        # What is not seen may be in reads still to come: each waits until the reads up to
        # its time have come.
        if self._read_since_odd() and play.reads_in((waits.odd_since or play.t) + settle):
            self._reconcile(patient=True)
            claims.place_declarations(play)  # a press may belong to a discard just found
        if self._waited_out(waits.odd_since):
            self._adopt()
        if self._waited_out(waits.unseen_since):
            self._gone()

    def _waited_out(self, since: float | None) -> bool:
        """Out of place (or unread) since `since` for the strays time, the reads up to then in."""
        play = self.play
        if since is None:
            return False
        due = since + play.settings.stray_s
        return play.t >= due and play.reads_in(due)

    def _read_since_odd(self) -> bool:
        """The zones were read again since the tags went out of place (a missed tag would
        show by now), or the reads take too long (half the stray time)."""
        play = self.play
        since, done_at = play.waits.odd_since, play.waits.read_done
        if since is None:
            return False
        done = done_at is not None and done_at >= since
        return done or play.t - since >= play.settings.stray_s / 2

    def _adopt(self) -> None:
        """Tags out of place that no move explains: one incident, then take the table as it is."""
        play = self.play
        named = sorted(play.odd - play.windows.reported)
        if named:
            words = play.tiles.notation(named)
            play.incident(
                None,
                IncidentKind.STRAY_TILES,
                f"tiles moved outside play: {words}",
                ruling=Ruling.STRAY_TILES,
            )
        for uid in sorted(play.odd):
            seen = play.at(uid)
            if seen is None:  # an odd tag is always read somewhere
                continue
            if seen == (play.on_turn.place, Zone.HAND) and play.wall.holds(uid):
                play.on_turn.holds_from_wall(uid)  # its draw, if a kong or flower is read late
            play.places.take_as_seen(uid, *seen)
        play.waits.adopted()

    def _gone(self) -> None:
        """Tags no antenna has read for a while, however often the zones were read again:
        they left the table (one incident per seat); play goes on without them."""
        play = self.play
        by_seat: dict[int, list[int]] = {}
        for uid in sorted(play.unseen):
            where = play.places.where.get(uid)
            if where is not None:  # a tag read nowhere is one that must lie somewhere
                by_seat.setdefault(where[0], []).append(uid)
            play.left_table(uid)
        for place, uids in by_seat.items():
            fouls.report(play, left_table_incident(place, play.now, uids, play.tiles))
        play.waits.gone()
