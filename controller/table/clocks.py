"""Turn and hand clocks of one hand, with the ruleset's time penalties. Pure: every instant is
passed in (monotonic seconds); nothing here reads a clock.

One `TableClocks` per hand, made when the deal is done. The referee tells it when a seat's
turn starts and ends; it answers with typed events when a limit passes or a penalty step is
charged, and says when the next one falls due so the cycle can schedule a wake-up:

    clocks = TableClocks(ruleset.timing, dealt_at=now)
    clocks.turn_starts(dealer, now)        # the dealer's first turn starts at the deal
    clocks.turn_ends(seat, now)            # a discard (for a claim: the set shown and a discard)
    clocks.turn_starts(next_seat, now)     # the next seat's turn starts at that discard
    clocks.turn_starts(claimer, now, since=discard_at)  # a claim: counted from the discard
    clocks.turn_starts(seat, now)          # a kong: a new turn from the replacement draw
    clocks.pause(now); clocks.resume(now)  # a fault or a paused session: no clock runs
    events = clocks.tick(now)              # any time; at the latest at `next_deadline()`

Every method that moves time returns the events due up to `now`, in the order they fell, so
the result is the same however often the cycle ticks. The rules (WMC, seed 003): a turn runs
from the previous discard (or the claimed discard) to the seat's discard; the first
`grace_seconds` after the deal count on nobody's clock; each started `step_seconds` over the
turn limit costs `penalty` points, and so does each started step of the seat's hand total over
the hand limit (both apply); more than `forfeit_over` points in one hand forfeit it, once, and
the seat's clock then charges nothing more that hand. In warning mode a limit passing is an
event and nothing is charged.

Instants are counted in whole microseconds, so a limit passes exactly when a turn has run
longer than the limit: a discard at 15.000000 s is in time, at 15.000001 s it is one step late.
`next_deadline()` is the first instant at which something falls due.
"""

import enum
from dataclasses import dataclass

from controller.rules.timing import MICROS, TimingRules, micros
from controller.table.incidents import IncidentKind, IncidentRecord, Instant


class Limit(enum.StrEnum):
    """Which limit a penalty step is over."""

    TURN = "turn"
    HAND = "hand"


@dataclass(frozen=True)
class TurnLimitPassed:
    """The seat's turn ran past the turn limit at `at`."""

    seat: int
    at: float


@dataclass(frozen=True)
class HandLimitPassed:
    """The seat's turns in this hand together ran past the hand limit at `at`."""

    seat: int
    at: float


@dataclass(frozen=True)
class PenaltyStep:
    """A penalty step began at `at`: `points` charged, `total` the seat's points this hand."""

    seat: int
    points: int
    total: int
    which: Limit
    at: float


@dataclass(frozen=True)
class Forfeit:
    """The seat's penalty points in this hand went over the forfeit threshold."""

    seat: int
    total: int
    at: float


ClockEvent = TurnLimitPassed | HandLimitPassed | PenaltyStep | Forfeit

TIME_INCIDENTS = frozenset(
    {IncidentKind.TURN_TIME, IncidentKind.HAND_TIME, IncidentKind.TIME_FORFEIT}
)
"""Incidents the clocks make (the seat LEDs and the buzzer signal them, see `signals`)."""


@dataclass(frozen=True)
class SeatTime:
    """One seat's clock as the live status shows it."""

    turn_s: float
    """Counted seconds of the running turn (0 if the seat is not on turn)."""
    hand_s: float
    """Counted seconds of all the seat's turns in this hand."""
    points: int
    overtime: bool
    """The running turn or the hand total is over its limit."""
    forfeited: bool


class _Due(enum.IntEnum):
    """What falls due at a counted instant; at one instant a limit passes before its step."""

    TURN_PASSED = 0
    HAND_PASSED = 1
    TURN_STEP = 2
    HAND_STEP = 3


@dataclass
class _Run:
    """An interval in which the clocks run (`end` None: running now)."""

    start: int
    end: int | None = None


@dataclass
class _Seat:
    hand_us: int = 0
    """Counted time of the seat's finished turns."""
    start_us: int = 0
    """Instant the running turn started (counted from)."""
    start_counted: int = 0
    """The table's counted time at that instant."""
    turn_passed: bool = False
    turn_steps: int = 0
    hand_passed: bool = False
    hand_steps: int = 0
    points: int = 0
    forfeited: bool = False


class TableClocks:
    """The clocks of the four seats in one hand (see the module docstring)."""

    def __init__(self, limits: TimingRules, dealt_at: float) -> None:
        self.limits = limits
        self._turn_us = micros(limits.turn_seconds)
        self._hand_us = micros(limits.hand_seconds)
        self._step_us = micros(limits.step_seconds)
        dealt = micros(dealt_at)
        self._grace_end = dealt + micros(limits.grace_seconds)
        self._runs = [_Run(dealt)]
        self._seats = [_Seat() for _ in range(4)]
        self._on_turn: int | None = None
        self._due: int | None = None
        """The first instant at which anything falls due (None: nothing will), while
        `_due_known`: the cycle asks after every input, and nothing but a turn starting or
        ending, a pause, a resume or something falling due changes it."""
        self._due_known = False

    # --- what the referee tells the clocks

    def turn_starts(self, seat: int, now: float, since: float | None = None) -> list[ClockEvent]:
        """`seat`'s turn starts, counted from `since` (default `now`).

        A turn still running ends at `now` first (a kong: the same seat starts a new turn).
        If it began at or after `since`, it is void instead: a claim takes the discard from the
        seat that would have drawn, and that seat's time was never its own. Points already
        charged to a voided turn stay (only a claim made after the turn limit can leave any).
        """
        self._due_known = False
        events: list[ClockEvent] = []
        start = micros(now if since is None else since)
        if self._on_turn is not None:
            running = self._seats[self._on_turn]
            if running.start_us >= start and since is not None:
                self._on_turn = None
            else:
                events = self.turn_ends(self._on_turn, now)
        state = self._seats[seat]
        state.start_us = start
        state.start_counted = self._counted(start)
        state.turn_passed = False
        state.turn_steps = 0
        self._on_turn = seat
        return events + self._settle(micros(now))

    def turn_ends(self, seat: int, now: float) -> list[ClockEvent]:
        """`seat` discarded at `now`: its turn stops (nothing happens if it was not on turn)."""
        if seat != self._on_turn:
            return []
        events = self._settle(micros(now))
        self._due_known = False
        state = self._seats[seat]
        state.hand_us += self._turn_counted(state, micros(now))
        self._on_turn = None
        return events

    def pause(self, now: float) -> list[ClockEvent]:
        """Stop every clock at `now` (a fault, a paused session); the events due until then."""
        last = self._runs[-1]
        if last.end is not None:
            return []
        events = self._settle(micros(now))
        last.end = max(micros(now), last.start)
        self._due_known = False
        return events

    def resume(self, now: float) -> None:
        """Let the clocks run again from `now`."""
        if self._runs[-1].end is not None:
            self._runs.append(_Run(micros(now)))
            self._due_known = False

    def tick(self, now: float) -> list[ClockEvent]:
        """The events that fell due up to `now`, in order."""
        return self._settle(micros(now))

    # --- what the cycle asks

    def next_deadline(self) -> float | None:
        """The first instant at which `tick` will report something (None: nothing is due)."""
        due = self._next_due()
        return None if due is None else due / MICROS

    def _next_due(self) -> int | None:
        if not self._due_known:
            self._due = self._first_due()
            self._due_known = True
        return self._due

    def _first_due(self) -> int | None:
        seat = self._on_turn
        if seat is None or self._runs[-1].end is not None or self._seats[seat].forfeited:
            return None
        state = self._seats[seat]
        targets = []
        for threshold, passed, steps, offset in self._limits(state):
            if not passed:
                targets.append(offset + threshold)
            elif self.limits.charges_points:
                targets.append(offset + threshold + steps * self._step_us)
        if not targets:
            return None
        # Due once a limit is exceeded: at the first microsecond counted past the target.
        return self._instant_of(min(targets) + 1)

    @property
    def on_turn(self) -> int | None:
        """The seat whose turn is running."""
        return self._on_turn

    def seat_time(self, seat: int, now: float) -> SeatTime:
        """`seat`'s clock at `now` for the live status (reports nothing, charges nothing)."""
        state = self._seats[seat]
        turn = self._turn_counted(state, micros(now)) if seat == self._on_turn else 0
        hand = state.hand_us + turn
        overtime = turn > self._turn_us or hand > self._hand_us
        return SeatTime(turn / MICROS, hand / MICROS, state.points, overtime, state.forfeited)

    def incidents(self, events: list[ClockEvent], now: Instant) -> list[IncidentRecord]:
        """The hand's incident records for these events (points mode: steps and forfeits;
        warning mode: the limits passing, without points)."""
        records = []
        for event in events:
            at = Instant(event.at, now.wall - (now.monotonic - event.at))
            match event:
                case PenaltyStep(seat, points, total, which):
                    kind = IncidentKind.TURN_TIME if which is Limit.TURN else IncidentKind.HAND_TIME
                    limit = (
                        self.limits.turn_seconds
                        if which is Limit.TURN
                        else self.limits.hand_seconds
                    )
                    detail = (
                        f"over the {which} limit of {limit:g} s: {points} points "
                        f"({total} this hand)"
                    )
                    records.append(IncidentRecord(at, seat, kind, detail, points))
                case Forfeit(seat, total):
                    detail = (
                        f"{total} time penalty points in this hand, more than "
                        f"{self.limits.forfeit_over}: the hand is forfeit"
                    )
                    records.append(IncidentRecord(at, seat, IncidentKind.TIME_FORFEIT, detail))
                case TurnLimitPassed(seat) if not self.limits.charges_points:
                    detail = f"turn over the {self.limits.turn_seconds:g} s limit (a warning)"
                    records.append(IncidentRecord(at, seat, IncidentKind.TURN_TIME, detail))
                case HandLimitPassed(seat) if not self.limits.charges_points:
                    detail = f"hand over the {self.limits.hand_seconds:g} s limit (a warning)"
                    records.append(IncidentRecord(at, seat, IncidentKind.HAND_TIME, detail))
        return records

    # --- internals

    def _limits(self, state: _Seat) -> list[tuple[int, bool, int, int]]:
        """(threshold, passed, steps charged, offset to the table's counted time) per limit.

        A seat's turn (hand) counted time reaches `threshold` when the table's counted time
        reaches `offset + threshold`.
        """
        return [
            (self._turn_us, state.turn_passed, state.turn_steps, state.start_counted),
            (
                self._hand_us,
                state.hand_passed,
                state.hand_steps,
                state.start_counted - state.hand_us,
            ),
        ]

    def _settle(self, now_us: int) -> list[ClockEvent]:
        first = self._next_due()
        if first is None or now_us < first:
            return []  # as the loop below would find, without counting
        self._due_known = False  # something falls due now: the next is later
        seat = self._on_turn
        if seat is None or self._seats[seat].forfeited:
            return []
        state = self._seats[seat]
        counted = self._counted(now_us)
        due: list[tuple[int, _Due]] = []
        for (threshold, passed, steps, offset), (passing, stepping) in zip(
            self._limits(state),
            ((_Due.TURN_PASSED, _Due.TURN_STEP), (_Due.HAND_PASSED, _Due.HAND_STEP)),
            strict=True,
        ):
            over = counted - offset - threshold
            if over <= 0:
                continue
            passed_at = offset + threshold
            if not passed:
                due.append((passed_at, passing))
            if self.limits.charges_points:
                for step in range(steps, self.limits.steps_over(over)):
                    due.append((passed_at + step * self._step_us, stepping))
        events: list[ClockEvent] = []
        for target, item in sorted(due):
            instant = self._instant_of(target)
            events += self._fall_due(seat, item, (now_us if instant is None else instant) / MICROS)
        return events

    def _fall_due(self, seat: int, item: "_Due", at: float) -> list[ClockEvent]:
        state = self._seats[seat]
        if item is _Due.TURN_PASSED:
            state.turn_passed = True
            return [] if state.forfeited else [TurnLimitPassed(seat, at)]
        if item is _Due.HAND_PASSED:
            state.hand_passed = True
            return [] if state.forfeited else [HandLimitPassed(seat, at)]
        which = Limit.TURN if item is _Due.TURN_STEP else Limit.HAND
        if which is Limit.TURN:
            state.turn_steps += 1
        else:
            state.hand_steps += 1
        if state.forfeited:
            return []
        state.points += self.limits.penalty
        events: list[ClockEvent] = [PenaltyStep(seat, self.limits.penalty, state.points, which, at)]
        if state.points > self.limits.forfeit_over:
            state.forfeited = True
            events.append(Forfeit(seat, state.points, at))
        return events

    def _turn_counted(self, state: _Seat, now_us: int) -> int:
        return max(0, self._counted(now_us) - state.start_counted)

    def _counted(self, instant: int) -> int:
        """Microseconds the clocks ran from the deal to `instant` (grace and pauses left out)."""
        total = 0
        for run in self._runs:
            low = max(run.start, self._grace_end)
            high = instant if run.end is None else min(run.end, instant)
            total += max(0, high - low)
        return total

    def _instant_of(self, counted: int) -> int | None:
        """The first instant at which the counted time reaches `counted` (None: while paused)."""
        left = counted
        for run in self._runs:
            low = max(run.start, self._grace_end)
            if run.end is None or left <= run.end - low:
                return low + max(0, left)
            left -= max(0, run.end - low)
        return None
