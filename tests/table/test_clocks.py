"""Turn and hand clocks: a referee must be able to trust every point they charge."""

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from controller.clock import ManualClock
from controller.rules import get_ruleset
from controller.rules.timing import TimingRules
from controller.table.clocks import (
    ClockEvent,
    Forfeit,
    HandLimitPassed,
    Limit,
    PenaltyStep,
    TableClocks,
    TurnLimitPassed,
)
from controller.table.records import IncidentKind, Instant

WMC = get_ruleset("zung-jung").timing
DEAL = 1000.0
GRACE = WMC.grace_seconds
E, S, W, N = range(4)


def _points(events: list[ClockEvent], seat: int) -> int:
    return sum(e.points for e in events if isinstance(e, PenaltyStep) and e.seat == seat)


def _after_grace() -> TableClocks:
    """Clocks whose grace is over: the dealer's turn starts once the 15 s have passed."""
    clocks = TableClocks(WMC, dealt_at=DEAL)
    clocks.turn_starts(E, DEAL + GRACE)
    return clocks


def test_a_discard_at_the_limit_is_in_time_and_a_microsecond_later_is_a_step() -> None:
    on_time = _after_grace()
    assert on_time.turn_ends(E, DEAL + GRACE + 15.0) == []
    late = _after_grace()
    events = late.turn_ends(E, DEAL + GRACE + 15.000001)
    assert events == [
        TurnLimitPassed(E, DEAL + GRACE + 15.0),
        PenaltyStep(E, 5, 5, Limit.TURN, DEAL + GRACE + 15.0),
    ]


def test_fifteen_second_limit_on_a_manual_clock_wakes_exactly_when_due() -> None:
    clock = ManualClock(start=DEAL)
    clocks = TableClocks(WMC, dealt_at=clock.monotonic())
    assert clocks.turn_starts(E, clock.monotonic()) == []
    deadline = clocks.next_deadline()
    assert deadline is not None  # the grace, then 15 s, then the first microsecond over
    assert math.isclose(deadline, DEAL + 30.000001, abs_tol=1e-9)
    clock.advance(deadline - clock.monotonic() - 0.000001)
    assert clocks.tick(clock.monotonic()) == []  # one microsecond early: nothing yet
    clock.advance(0.000001)
    events = clocks.tick(clock.monotonic())
    assert [type(e) for e in events] == [TurnLimitPassed, PenaltyStep]
    assert clocks.tick(clock.monotonic()) == []  # reported once
    next_step = clocks.next_deadline()
    assert next_step is not None and math.isclose(next_step, deadline + 15.0, abs_tol=1e-9)
    assert clocks.seat_time(E, clock.monotonic()).overtime


def test_eighty_points_forfeit_once_on_a_manual_clock() -> None:
    clock = ManualClock(start=DEAL)
    clocks = TableClocks(WMC, dealt_at=clock.monotonic())
    clocks.turn_starts(E, clock.monotonic())
    events: list[ClockEvent] = []
    while (deadline := clocks.next_deadline()) is not None:
        clock.advance(deadline - clock.monotonic())
        events += clocks.tick(clock.monotonic())
    forfeits = [e for e in events if isinstance(e, Forfeit)]
    assert forfeits == [Forfeit(E, 85, forfeits[0].at)]
    assert _points(events, E) == 85
    totals = [e.total for e in events if isinstance(e, PenaltyStep)]
    assert totals == sorted(totals) and totals[-1] == 85
    # 17 steps: turn steps every 15 s after 15 s, hand steps every 15 s after 180 s.
    assert clock.monotonic() - DEAL < 15 + 15 + 15 * 17
    clock.advance(600)
    assert clocks.tick(clock.monotonic()) == [] and clocks.seat_time(E, 0).forfeited


def test_the_grace_after_the_deal_counts_on_nobodys_clock() -> None:
    clocks = TableClocks(WMC, dealt_at=DEAL)
    clocks.turn_starts(E, DEAL)
    assert clocks.turn_ends(E, DEAL + 5) == []  # the dealer discards inside the grace
    clocks.turn_starts(S, DEAL + 5)
    # South's turn: 10 s of grace left, so 25 s on the clock count 15: in time.
    assert clocks.turn_ends(S, DEAL + 30) == []
    assert clocks.seat_time(S, DEAL + 30).hand_s == 15.0
    assert clocks.seat_time(E, DEAL + 30).hand_s == 0.0


def test_a_claim_counts_from_the_discard_and_the_skipped_seat_pays_nothing() -> None:
    clocks = _after_grace()
    discard = DEAL + GRACE + 5
    clocks.turn_ends(E, discard)
    clocks.turn_starts(S, discard)  # South would draw next
    clocks.turn_starts(W, discard + 2, since=discard)  # West pungs the discard 2 s later
    events = clocks.turn_ends(W, discard + 16)  # 16 s after the discard: one step
    assert _points(events, W) == 5
    assert clocks.seat_time(S, discard + 16).hand_s == 0.0
    assert clocks.seat_time(W, discard + 16).hand_s == 16.0


def test_a_kong_starts_a_new_turn_at_the_replacement_draw() -> None:
    clocks = _after_grace()
    start = DEAL + GRACE
    assert clocks.turn_starts(E, start + 10) == []  # kong + replacement draw after 10 s
    assert clocks.turn_ends(E, start + 20) == []  # 10 s + 10 s: two turns, each in time
    assert clocks.seat_time(E, start + 20).hand_s == 20.0


def test_hand_total_and_turn_steps_both_apply() -> None:
    clocks = _after_grace()
    now = DEAL + GRACE
    events: list[ClockEvent] = []
    for _ in range(12):  # twelve turns of 15 s: in time each, 180 s in all
        events += clocks.turn_ends(E, now + 15)
        now += 15
        clocks.turn_starts(E, now)
    events += clocks.turn_ends(E, now + 16)  # 1 s over the turn, 16 s over the hand
    assert [e for e in events if isinstance(e, HandLimitPassed)] == [HandLimitPassed(E, now)]
    steps = [(e.which, e.total) for e in events if isinstance(e, PenaltyStep)]
    # The hand limit passes as the turn starts; at 15 s the turn limit and the second hand
    # step come together.
    assert steps == [(Limit.HAND, 5), (Limit.TURN, 10), (Limit.HAND, 15)]


def test_no_clock_runs_while_paused() -> None:
    clocks = _after_grace()
    start = DEAL + GRACE
    assert clocks.pause(start + 10) == []
    assert clocks.next_deadline() is None
    clocks.resume(start + 100)
    deadline = clocks.next_deadline()
    assert deadline is not None and math.isclose(deadline, start + 105.000001, abs_tol=1e-9)
    assert clocks.turn_ends(E, start + 104) == []


def test_warning_mode_reports_the_limits_and_charges_nothing() -> None:
    sichuan = get_ruleset("sichuan").timing
    clocks = TableClocks(sichuan, dealt_at=0.0)
    clocks.turn_starts(E, 0.0)
    events = clocks.turn_ends(E, 1000.0)
    assert events == [TurnLimitPassed(E, 45.0), HandLimitPassed(E, 315.0)]
    records = clocks.incidents(events, Instant(1000.0, 5000.0))
    assert [(r.kind, r.penalty, r.at.wall) for r in records] == [
        (IncidentKind.TURN_TIME, 0, 4045.0),
        (IncidentKind.HAND_TIME, 0, 4315.0),
    ]
    assert clocks.next_deadline() is None


def test_points_become_incidents_that_add_up_to_the_seats_penalty() -> None:
    clocks = _after_grace()
    events = clocks.turn_ends(E, DEAL + GRACE + 100)
    records = clocks.incidents(events, Instant(DEAL + GRACE + 100, 2_000_000_000.0))
    assert {r.kind for r in records} == {IncidentKind.TURN_TIME}
    assert sum(r.penalty for r in records) == 30 == clocks.seat_time(E, 0).points
    assert all(r.place == E for r in records)


# --- properties


def _expected(limits: TimingRules, turns_us: list[int]) -> int:
    """The seed's arithmetic for one seat's counted turns (before any forfeit)."""
    step, turn, hand = (round(x * 1_000_000) for x in (15, 15, 180))
    points = sum(5 * math.ceil((t - turn) / step) for t in turns_us if t > turn)
    total = sum(turns_us)
    if total > hand:
        points += 5 * math.ceil((total - hand) / step)
    return points


@settings(max_examples=200, deadline=None)
@given(
    turns=st.lists(st.integers(0, 120_000_000), min_size=1, max_size=20),
    ticks=st.lists(st.integers(0, 120_000_000), max_size=5),
)
def test_charged_points_follow_the_rule_for_any_discard_times(
    turns: list[int], ticks: list[int]
) -> None:
    """Points = 5 per started 15 s over each limit, however often the cycle ticks; the total
    only grows; a forfeit comes exactly once, when the total first goes over 80."""
    clocks = TableClocks(WMC, dealt_at=0.0)
    start = GRACE * 1_000_000
    clocks.turn_starts(E, start / 1e6)
    events: list[ClockEvent] = []
    for index, length in enumerate(turns):
        for tick in sorted(t for t in ticks if t < length):
            events += clocks.tick((start + tick) / 1e6)
        start += length
        events += clocks.turn_starts(E, start / 1e6) if index < len(turns) - 1 else []
    events += clocks.turn_ends(E, start / 1e6)
    expected = _expected(WMC, turns)
    totals = [e.total for e in events if isinstance(e, PenaltyStep)]
    forfeits = [e for e in events if isinstance(e, Forfeit)]
    assert totals == sorted(totals)
    assert totals == list(range(5, 5 * len(totals) + 1, 5))
    if expected > 80:
        assert len(forfeits) == 1 and forfeits[0].total == 85 == _points(events, E)
    else:
        assert not forfeits and _points(events, E) == expected
    instants = [e.at for e in events]
    assert instants == sorted(instants)


@settings(max_examples=100, deadline=None)
@given(
    lengths=st.lists(st.integers(0, 40_000_000), min_size=1, max_size=16),
    claims=st.lists(st.booleans(), min_size=16, max_size=16),
)
def test_each_seat_pays_for_its_own_turns_only(lengths: list[int], claims: list[bool]) -> None:
    """Turns passing round the table (some by claims) charge each seat by its own time."""
    clocks = TableClocks(WMC, dealt_at=0.0)
    now = int(GRACE * 1_000_000)
    seat = E
    own: dict[int, list[int]] = {s: [] for s in range(4)}
    events = clocks.turn_starts(seat, now / 1e6)
    for length, claimed in zip(lengths, claims, strict=False):
        now += length
        own[seat].append(length)
        events += clocks.turn_ends(seat, now / 1e6)
        following = (seat + 1) % 4
        events += clocks.turn_starts(following, now / 1e6)
        if claimed:  # the seat opposite claims the discard a moment later
            following = (seat + 2) % 4
            events += clocks.turn_starts(following, (now + 1000) / 1e6, since=now / 1e6)
        seat = following
    for each in range(4):
        expected = _expected(WMC, own[each])
        assert _points(events, each) == (expected if expected <= 80 else 85)


def test_a_pause_exactly_at_the_limit_moves_the_deadline_past_the_pause() -> None:
    clocks = _after_grace()
    start = DEAL + GRACE
    assert clocks.pause(start + 15) == []  # paused with the turn exactly at its limit
    clocks.resume(start + 50)
    deadline = clocks.next_deadline()
    assert deadline is not None and math.isclose(deadline, start + 50.000001, abs_tol=1e-9)
    assert [type(e) for e in clocks.tick(deadline)] == [TurnLimitPassed, PenaltyStep]


@settings(max_examples=100, deadline=None)
@given(
    turns=st.lists(st.integers(0, 60_000_000), min_size=1, max_size=8),
    pauses=st.lists(st.tuples(st.integers(0, 60_000_000), st.integers(1, 30_000_000)), max_size=3),
)
def test_the_deadline_is_exactly_when_the_next_event_falls_due(
    turns: list[int], pauses: list[tuple[int, int]]
) -> None:
    """Woken at `next_deadline()` the cycle finds something due; a microsecond earlier,
    nothing: no wake-up is wasted and none comes late, pauses or not."""
    clocks = TableClocks(WMC, dealt_at=0.0)
    now = 0
    clocks.turn_starts(E, 0.0)
    pause_at = sorted(pauses)
    for length in turns:
        end = now + length
        while True:
            if pause_at and pause_at[0][0] <= end:
                at, gap = pause_at.pop(0)
                at = max(at, now)
                now = _run_until(clocks, now, at)
                clocks.pause(at / 1e6)
                now = at + gap
                clocks.resume(now / 1e6)
                end += gap
                continue
            now = _run_until(clocks, now, end)
            break
        clocks.turn_starts(((clocks.on_turn or 0) + 1) % 4, now / 1e6)


def _run_until(clocks: TableClocks, now: int, end: int) -> int:
    """Wake at every deadline before `end` (microseconds), checking each; returns `end`."""
    while (deadline := clocks.next_deadline()) is not None and round(deadline * 1e6) <= end:
        due = round(deadline * 1e6)
        assert due > now
        assert clocks.tick((due - 1) / 1e6) == []
        assert clocks.tick(due / 1e6) != []
        now = due
    return end
