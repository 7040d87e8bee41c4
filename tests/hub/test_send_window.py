"""The link's send window, kept up to date as results are sent, acked, refused and put back,
picks at every turn exactly the results a look through the whole window picks: of the first
`size` results waiting in the outbox, those never sent on this connection and those whose
wait for an ack is over, in sequence order."""

import random
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.hub.mqtt.link_timing import Backoff, ResendSchedule
from controller.hub.table_side.outbox import Outbox
from controller.hub.table_side.send_window import SendWindow

SIZE = 4
steps = st.lists(
    st.one_of(
        st.tuples(st.just("add"), st.integers(1, 3)),
        st.tuples(st.just("ack"), st.integers(0, 7)),
        st.tuples(st.just("refuse"), st.integers(0, 7)),
        st.tuples(st.just("resend"), st.integers(1, 12)),
        st.tuples(st.just("wait"), st.sampled_from([0.0, 0.5, 1.0, 3.0, 10.0])),
        st.tuples(st.just("restart"), st.just(0)),
    ),
    max_size=30,
)


def _look_through(outbox: Outbox, schedule: ResendSchedule, now: float) -> list[int]:
    return [r.seq for r in outbox.pending_results(SIZE) if schedule.is_due(r.id, now)]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=steps, seed=st.integers(0, 1000))
def test_the_window_sends_what_a_look_through_the_whole_window_would(
    steps: list[tuple[str, float]], seed: int
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        outbox = Outbox(Path(folder) / "outbox.db").open()
        schedule = ResendSchedule(Backoff(1.0, 2.0, 8.0), random.Random(seed))
        window = SendWindow(outbox, schedule, SIZE)
        now = 0.0
        try:
            for action, amount in steps:
                waiting = outbox.pending_results(1000)
                if action == "add":
                    for _ in range(int(amount)):
                        outbox.add_result(lambda seq: (f"{seq:032x}", b"{}"), now)
                elif action == "ack" and waiting:
                    result = waiting[int(amount) % len(waiting)]
                    outbox.mark_acked([result.id], now)
                    schedule.forget([result.id])
                elif action == "refuse" and waiting:
                    result = waiting[int(amount) % len(waiting)]
                    outbox.mark_refused(result.id, "no", now)
                    schedule.forget([result.id])
                elif action == "resend":
                    outbox.reopen(int(amount), None, lambda payload: payload)
                elif action == "wait":
                    now += amount
                elif action == "restart":
                    window.restart()
                # the link looks again after each change
                expected = _look_through(outbox, schedule, now)
                chosen = window.due(now)
                assert [r.seq for r in chosen] == expected
                for result in chosen:
                    window.sent(result, now)
        finally:
            outbox.close()


def test_a_result_acked_is_never_due_again_and_the_schedule_forgets_it() -> None:
    schedule = ResendSchedule(Backoff(1.0, 2.0, 8.0), random.Random(1))
    for n in range(200):
        schedule.sent(f"r{n}", 0.0)
        schedule.forget([f"r{n}"])
    assert schedule.due(100.0) == [] and schedule.next_in(0.0) is None
    assert len(schedule._queue) <= 64 + 1, "entries of forgotten results do not pile up"
