"""`simulate --faults` and `--json-results` as a soak user runs them: under `hostile` the
planned jam and MCU reset are injected, the jam is cleared by the technician (the session goes
on and plays out), the summary says what was injected and how each fault was cleared, and each
hand's result is one JSON line whose payments sum to zero."""

import json
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

from controller.cli import main
from controller.sim.demo import FAST, DemoPlan, DemoSession
from controller.sim.fault_profiles import FaultKind, FaultProfile, injections
from controller.sim.view import summary_lines
from controller.sim.virtual_time import run_virtual
from controller.table.clocks import TIME_INCIDENTS
from firmware_bridge.sim.faults import Faults

pytestmark = pytest.mark.starvable


def test_a_hostile_session_clears_the_injected_jam_and_plays_out(
    tmp_path: Path, pins: MockFactory
) -> None:
    plan = DemoPlan(hands=3, pace=FAST, faults=FaultProfile.HOSTILE, line=Faults())
    outcome = run_virtual(DemoSession(plan, tmp_path).run)

    assert outcome.ok, outcome.stopped
    assert [i.injection.kind for i in outcome.injected] == [FaultKind.JAM, FaultKind.MCU_RESET]
    assert all(i.done for i in outcome.injected)
    out = "\n".join(summary_lines(outcome))
    assert "all 3 hands played" in out
    assert "fault profile: hostile" in out
    assert "injected in hand 2: a jam in the wall build (the build jams after" in out
    assert "an MCU reset during play (the MCU restarted (watchdog))" in out
    assert (
        "the stacking head jammed: clear the jam, then press the dice button to go on -> "
        "the technician cleared it and pressed the dice button (1 press" in out
    )


def test_honest_players_on_a_noisy_line_are_charged_with_nothing(
    tmp_path: Path, pins: MockFactory
) -> None:
    # A blood battle goes on after a win. The players then wait for the table to follow their
    # next move, as after any other: the seat after the winner draws and throws, the next seat
    # takes the throw to win. When the draw went unwaited for (the win's own moves were taken
    # as following it), on this line the throw and the take came in one read: hand 24 had a
    # false win, "declared out of turn", and a penalty tile used.
    plan = DemoPlan(ruleset="sichuan", hands=24, pace=FAST, faults=FaultProfile.NOISY, seed=5)
    outcome = run_virtual(DemoSession(plan, tmp_path).run)

    assert outcome.ok, outcome.stopped
    charged = [i for i in outcome.incidents if i.kind not in TIME_INCIDENTS]
    assert charged == []
    assert len(outcome.last.results) == 24


def test_each_hands_result_is_one_json_line_whose_payments_sum_to_zero(
    tmp_path: Path, pins: MockFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    results = tmp_path / "results.jsonl"
    status = main(["simulate", "--fast", "--plain", "--hands", "3", "--json-results", str(results)])

    assert status == 0, capsys.readouterr().out
    hands = [json.loads(line) for line in results.read_text().splitlines()]
    assert [hand["hand"] for hand in hands] == [1, 2, 3]
    assert all(sum(hand["payments"]) == 0 for hand in hands)
    assert {len(hand["seats"]) for hand in hands} == {4}


def test_a_hostile_session_on_its_noisy_line_plays_out_with_only_the_injected_faults(
    pins: MockFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["simulate", "--fast", "--plain", "--hands", "8", "--faults", "hostile"])

    out = capsys.readouterr().out
    assert status == 0, out
    faults = [line for line in out.splitlines() if line.startswith("  fault at ")]
    assert len(faults) == 1, faults
    assert "the stacking head jammed" in faults[0]


def test_hostile_plans_every_fault_once_per_fifty_hands_and_the_hub_ones_only_with_a_hub() -> None:
    with_hub = injections(FaultProfile.HOSTILE, 200, hub=True)
    assert len(with_hub) == 16
    assert {i.kind for i in with_hub} == set(FaultKind)
    assert all(2 <= i.hand <= 200 for i in with_hub)
    table_only = injections(FaultProfile.HOSTILE, 200, hub=False)
    assert {i.kind for i in table_only} == {FaultKind.JAM, FaultKind.MCU_RESET}
    assert injections(FaultProfile.NOISY, 200, hub=True) == ()


def test_an_unknown_profile_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["simulate", "--faults", "stormy"])
    assert stop.value.code == 2
    assert "--faults" in capsys.readouterr().err


@pytest.mark.slow
def test_shanghai_seed_101_on_a_hostile_line_ends_in_no_link_fault(
    pins: MockFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    """Its discard zones grow long by hand 6: the state re-read after lost events is read in
    small pages, which the noisy line lets through, instead of one large frame per zone."""
    status = main(
        ["simulate", "--fast", "--plain", "--ruleset", "shanghai", "--seed", "101",
         "--hands", "7", "--faults", "hostile"]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert status == 0, out
    assert "could not read its state again" not in out
    faults = [line for line in out.splitlines() if line.startswith("  fault at ")]
    assert len(faults) == 1 and "the stacking head jammed" in faults[0], faults
