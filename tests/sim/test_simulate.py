"""`mahjong-table simulate` as a demo or soak user runs it: a whole session per ruleset ends on
its own with a summary whose scores add up, the same seed plays the same session, bad options
are one line, and a session that stops (a fault, no progress, too slow) ends the command
instead of hanging it."""

import asyncio
import json
import logging
import re
from dataclasses import replace
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory
from rich.console import Console, RenderableType

from controller.cli import main
from controller.config import TableConfig
from controller.devices.pinout import load_pinout
from controller.rules import RULESET_NAMES
from controller.sim.board import board
from controller.sim.demo import FAST, REAL, DemoPlan, DemoSession, Outcome, Pace, demo_config
from controller.sim.view import summary_lines
from controller.sim.virtual_time import run_virtual
from controller.table.cycle import Phase

SCORE_LINE = re.compile(r"^  ([ESWN])  (\S+)\s+([+-]\d+)  \((\d+) wins?\)$", re.MULTILINE)


def scores(out: str) -> dict[str, int]:
    """Final score per player, read from the summary."""
    return {player: int(score) for _, player, score, _ in SCORE_LINE.findall(out)}


@pytest.mark.parametrize("ruleset", RULESET_NAMES)
def test_a_fast_session_of_four_hands_plays_out_and_its_scores_sum_to_zero(
    ruleset: str, pins: MockFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["simulate", "--fast", "--hands", "4", "--ruleset", ruleset, "--seed", "3"])

    out = capsys.readouterr().out
    assert status == 0, out
    assert f"({ruleset}, seed 3): all 4 hands played in" in out
    assert "hands: 4 played;" in out
    assert "faults: none" in out
    assert [int(n) for n in re.findall(r"^hand (\d+) \(dealer", out, re.MULTILINE)] == [1, 2, 3, 4]
    final = scores(out)
    assert sorted(final) == ["east", "north", "south", "west"]
    assert sum(final.values()) == 0


def test_the_same_seed_plays_the_same_session(
    pins: MockFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    def play(seed: str) -> list[str]:
        assert main(["simulate", "--fast", "--hands", "3", "--seed", seed]) == 0
        out = capsys.readouterr().out
        return re.findall(r"^hand \d.*$", out, re.MULTILINE)

    first = play("5")
    assert play("5") == first
    assert len(first) == 3


@pytest.mark.parametrize(
    ("options", "words"),
    [
        (["--hands", "0"], "--hands must be between 1 and 1000"),
        (["--db", "outbox.db"], "give --mqtt URL too"),
        (["--mqtt", "http://hub.local"], "must look like mqtt://host:1883"),
        (["--mqtt", "mqtt://127.0.0.1:1", "--table", "Table 1"], "--table 'Table 1'"),
    ],
)
def test_bad_options_are_one_line_and_exit_2(
    options: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["simulate", "--fast", *options]) == 2
    err = capsys.readouterr().err
    assert words in err
    assert err.count("\n") == 1 and err.startswith("mahjong-table: error: ")


def test_a_keys_file_without_this_table_is_refused_before_playing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    keys = tmp_path / "hub-keys.toml"
    keys.write_text('[tables]\nother-table = "0123456789abcdef0123"\n')
    keys.chmod(0o600)
    status = main(["simulate", "--fast", "--mqtt", "mqtt://127.0.0.1:1", "--keys", str(keys)])
    assert status == 2
    assert "no key for table sim-table" in capsys.readouterr().err


async def test_the_emergency_stop_ends_the_session_with_the_fault_in_words(
    tmp_path: Path, pins: MockFactory
) -> None:
    first_hand = asyncio.Event()
    session = DemoSession(DemoPlan(hands=8, pace=FAST), tmp_path, lambda _: first_hand.set())
    playing = asyncio.create_task(session.run())
    await asyncio.wait_for(first_hand.wait(), 30)
    pins.pin(load_pinout()["estop"]).drive_high()  # a technician pushes the mushroom
    outcome = await asyncio.wait_for(playing, 30)

    assert not outcome.ok
    assert outcome.stopped.startswith("a fault stopped the session at hand ")
    assert "emergency stop" in outcome.stopped
    lines = "\n".join(summary_lines(outcome))
    assert "faults: 1 (last: " in lines
    assert outcome.last.view.hands_played < 8


@pytest.mark.parametrize(
    ("pace", "words"),
    [
        (replace(REAL, stall_s=0.3), "the table made no progress for 0.3 s"),
        (replace(REAL, hand_budget_s=0.5), "the session did not end within 1 s"),
    ],
)
async def test_a_session_that_stalls_or_overruns_is_stopped_not_waited_for(
    tmp_path: Path, pins: MockFactory, pace: Pace, words: str
) -> None:
    plan = DemoPlan(hands=1, pace=pace)
    outcome = await asyncio.wait_for(DemoSession(plan, tmp_path).run(), 30)
    assert words in outcome.stopped
    assert outcome.last.view.phase is not Phase.SESSION_OVER


def test_a_stall_in_play_says_what_the_referee_and_the_players_each_wait_for(
    tmp_path: Path, pins: MockFactory
) -> None:
    # In the first hand a discard is taken to win on: for the claim window's 3 s (a seat
    # nearer in turn may still declare) nothing moves, more than this session's 0.5 s.
    plan = DemoPlan(hands=2, pace=replace(FAST, stall_s=0.5))
    stopped = run_virtual(DemoSession(plan, tmp_path).run).stopped
    assert stopped.startswith("the table made no progress for 0.5 s (playing, hand 1)"), stopped
    declared = re.search(r"the declarations of (seat \w) to be judged", stopped)
    assert declared is not None, stopped
    assert "; the referee waits for seat " in stopped
    assert re.search(r"; the claims on seat \w's \d[mpsz]", stopped), stopped
    assert stopped.endswith(
        f"; the players wait for the table's verdict on the declaration of {declared[1]}"
    )


async def test_the_live_board_shows_the_hand_the_dealer_the_scores_and_the_events(
    tmp_path: Path, pins: MockFactory
) -> None:
    plan = DemoPlan(ruleset="zung-jung", hands=3, pace=FAST)
    outcome: Outcome = await DemoSession(plan, tmp_path).run()
    events = [(20, "hand 2: deal checked, play"), (30, "incident: seat S holds 4p")]
    over = shown(board(outcome.last, plan, events))
    in_play = replace(outcome.last.view, phase=Phase.PLAYING, dealer=1, turn=2)
    playing = shown(board(replace(outcome.last, view=in_play), plan, events))

    assert "mahjong-table simulate: zung-jung, table sim-table, seed 0" in over
    assert "hand 3 of 3" in over and "3 played" in over
    for player, score in zip(outcome.last.view.players, outcome.last.view.scores, strict=True):
        assert re.search(rf"{player}\s+{re.escape(f'{score:+d}')}", over), player
    assert re.search(r"hand 3 \(dealer W\): . \(\w+\) won \d+ ", over), "a win, in words"
    assert "incident: seat S holds 4p" in over
    assert "session over" in over and "dealer" not in over.splitlines()[1]
    on_s = outcome.last.view.players[1]  # seated there by the seating draw
    assert f"dealer S ({on_s})" in playing and "to throw" in playing and "playing" in playing


def shown(renderable: RenderableType) -> str:
    """What a terminal 100 columns wide shows."""
    console = Console(record=True, width=100, force_terminal=False)
    console.print(renderable)
    return console.export_text()


def test_on_a_terminal_the_board_replaces_the_log_lines(
    pins: MockFactory, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")  # rich treats the output as a terminal
    monkeypatch.setenv("COLUMNS", "100")
    handlers = list(logging.getLogger().handlers)

    status = main(["simulate", "--fast", "--hands", "2", "--ruleset", "sichuan"])

    captured = capsys.readouterr()
    assert status == 0, captured.out
    assert "mahjong-table simulate: sichuan" in captured.out and "table says" in captured.out
    assert "all 2 hands played" in captured.out
    assert "INFO controller" not in captured.err, "log lines go to the board, not stderr"
    assert logging.getLogger().handlers == handlers, "logging is as it was before"


def test_sloppy_players_log_what_they_did_wrong_and_the_table_sees_the_false_wins(
    pins: MockFactory, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    truth = tmp_path / "truth.jsonl"
    args = ["simulate", "--fast", "--plain", "--hands", "4", "--seed", "4", "--habits", "sloppy"]
    assert main([*args, "--ground-truth", str(truth)]) == 0
    out = capsys.readouterr().out
    rows = [json.loads(line) for line in truth.read_text().splitlines()]
    slips = [row for row in rows if row["record"] == "slip"]
    assert {row["kind"] for row in slips} >= {"false-win", "late-claim"}
    false_wins = sum(row["kind"] == "false-win" for row in slips)
    assert f"false_win {false_wins}" in out
    assert main([*args[:-2], "--ground-truth", str(truth)]) == 0  # clean players, new file
    capsys.readouterr()
    assert all(json.loads(line)["record"] == "move" for line in truth.read_text().splitlines())


def test_a_fast_sloppy_session_of_20_hands_records_turn_time_penalties(
    pins: MockFactory, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # Slow turns pass on virtual time at --fast: they cost no real time, and the turn and
    # hand clocks charge them as at a real table.
    truth, results = tmp_path / "truth.jsonl", tmp_path / "results.jsonl"
    args = ["simulate", "--fast", "--plain", "--hands", "20", "--habits", "sloppy"]
    assert main([*args, "--ground-truth", str(truth), "--json-results", str(results)]) == 0
    capsys.readouterr()
    slips = [json.loads(line) for line in truth.read_text().splitlines()]
    slow = [row for row in slips if row["record"] == "slip" and row["kind"] == "slow-turn"]
    hands = [json.loads(line) for line in results.read_text().splitlines()]
    charged = [i for hand in hands for i in hand["incidents"] if i["kind"] == "turn_time"]
    assert slow and charged
    assert all(i["penalty"] > 0 for i in charged)


def test_a_simulated_daemon_serves_diag_on_its_own_socket_not_the_tables(tmp_path: Path) -> None:
    table_socket = TableConfig().control.socket
    assert demo_config(DemoPlan(), tmp_path).control.socket == tmp_path / "control.sock"
    assert demo_config(DemoPlan(), tmp_path).control.socket != table_socket
    asked = DemoPlan(control_socket=tmp_path / "diag.sock")
    assert demo_config(asked, tmp_path).control.socket == tmp_path / "diag.sock"
