"""The referee: a pure state machine from 'deal checked' to 'hand over'. Feed it
`handle(input, now)`; it answers with moves, incidents, wins and, at the end, the result."""

from typing import assert_never

from controller.table.clocks import SeatTime
from controller.table.records import IncidentKind, Instant
from controller.table.referee import claims, fouls, moves, procedures, timing
from controller.table.referee.events import (
    Declare,
    Elapsed,
    EndNow,
    Inventories,
    Pause,
    ReadAgain,
    RefereeInput,
    RefereeOutput,
    Resume,
    TimeCalled,
)
from controller.table.referee.setup import RefereeSetup
from controller.table.referee.state import Close, Need, Play


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
        return None if self.play.over else self.play.turn

    @property
    def declared(self) -> tuple[int, ...]:
        """Seats whose declaration is still to be judged."""
        play = self.play
        window = tuple(play.window.declares) if play.window else ()
        return tuple(sorted({*window, *play.self_declared, *play.early}))

    @property
    def winners(self) -> tuple[int, ...]:
        """Places of the winners so far, in order."""
        return tuple(win.place for win in self.play.wins)

    @property
    def paused(self) -> bool:
        """A fault has stopped the clocks."""
        return self.play.paused

    @property
    def next_deadline(self) -> float | None:
        """The first instant (monotonic) at which a clock falls due (None: none)."""
        clocks = self.play.clocks
        return None if clocks is None or self.play.over else clocks.next_deadline()

    def seat_time(self, place: int, now: float) -> SeatTime | None:
        """A seat's clock for the live status (None before the first input)."""
        clocks = self.play.clocks
        return None if clocks is None else clocks.seat_time(place, now)

    @property
    def penalties(self) -> tuple[int, ...]:
        """Penalty points each seat has lost in this hand so far (>= 0)."""
        incidents = self.play.incidents
        return tuple(sum(i.penalty for i in incidents if i.place == p) for p in range(4))

    def handle(self, event: RefereeInput, now: Instant) -> list[RefereeOutput]:
        """Take one input at instant `now`; returns what the referee saw, in order."""
        play = self.play
        play.out = []
        if play.over:
            return []
        play.now = now
        play.clock_events = []
        timing.start(play)
        match event:
            case Inventories(zones):
                for content in zones:
                    fouls.foreign_tags(play, content.place, content.uids)
                    play.observe(content.place, content.zone, content.uids)
                self._reconcile()
            case Declare(place):
                claims.declare(play, place)
            case Elapsed():
                pass
            case Pause():
                if not play.paused:
                    play.paused = True
                    timing.pause(play)
            case Resume():
                if play.paused:
                    play.paused = False
                    timing.resume(play)
            case EndNow(reason):
                if play.window is not None:  # what was declared on it still counts
                    claims.close(play, Close.TIME)
                procedures.end(play, reason)
                return play.out
            case _:
                assert_never(event)
        self._time()
        timing.tick(play)
        if play.clock_events:
            play.out.append(TimeCalled(tuple(play.clock_events)))
        return play.out

    def _reconcile(self, patient: bool = False) -> None:
        play = self.play
        while moves.explain(play, patient):
            pass
        if not play.odd:
            play.odd_since = None
        elif play.odd_since is None:
            play.odd_since = play.t

    def _time(self) -> None:
        play = self.play
        window = play.window
        if window is not None and play.t - window.opened >= play.settings.window_s:
            claims.close(play, Close.TIME)
            self._reconcile()
        claims.place_declarations(play)
        claims.judge_settled(play)
        if play.over:
            return
        nothing_to_draw = play.need is not Need.DISCARD and play.wall.remaining == 0
        if play.window is None and nothing_to_draw:
            procedures.end(play, "the wall is empty")
            return
        pressed = min((at.monotonic for at in play.early.values()), default=None)
        since = play.odd_since if pressed is None else min(pressed, play.odd_since or pressed)
        if since is None:
            play.read_again = False
            return
        # A press no tile explains yet, or tags out of place for a while: read the zones
        # again (a tag an antenna missed), then take what no move of the turn explains as a
        # move out of turn (a draw, a throw), at last as strays.
        settle = play.settings.settle_s
        if play.t - since >= settle and not play.read_again:
            play.read_again = True
            play.out.append(ReadAgain())
        if play.odd_since is not None and play.t - play.odd_since >= 2 * settle:
            self._reconcile(patient=True)
        since = play.odd_since
        if since is not None and play.t - since >= play.settings.stray_s:
            self._adopt()

    def _adopt(self) -> None:
        """Tags out of place that no move explains: one incident, then take the table as it is."""
        play = self.play
        named = sorted(play.odd - play.reported)
        if named:
            words = play.tiles.notation(named)
            play.incident(None, IncidentKind.STRAY_TILES, f"tiles moved outside play: {words}")
        for uid in sorted(play.odd):
            for seat in play.seats:
                seat.concealed.discard(uid)
                if uid in seat.river:
                    seat.river.remove(uid)
                if uid in seat.flowers:
                    seat.flowers.remove(uid)
                for record in seat.melds:
                    if uid in record.uids:
                        record.uids.remove(uid)
            seen = play.at(uid)
            if play.wall.holds(uid):
                play.wall.take(uid)
            if seen is None:
                continue
            seat = play.seats[seen[0]]
            if seen[1].value == "hand":
                seat.concealed.add(uid)
            elif seen[1].value == "discard":
                seat.river.append(uid)
            else:
                seat.loose.append(uid)
            play.put(uid, *seen)
        play.odd_since = None
