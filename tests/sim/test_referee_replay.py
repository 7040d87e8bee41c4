"""Hands played on the simulated table through the real daemon: the referee follows every
move, ends each hand itself, and each hand's black box (beside the outbox) replays through
`mahjong-table replay` to the result the table recorded."""

import json
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

from controller.cli import main
from controller.table.cycle import Phase
from controller.table.referee.blackbox import read, replay
from tests.sim.rig import Rig


@pytest.mark.parametrize(("ruleset", "seed"), [("zung-jung", 0), ("sichuan", 3), ("shanghai", 3)])
async def test_every_hand_black_box_replays_to_the_recorded_result(
    ruleset: str, seed: int, tmp_path: Path, pins: MockFactory
) -> None:
    async with Rig(tmp_path, ruleset, hands=3, seed=seed) as rig:
        view = await rig.until_phase(Phase.SESSION_OVER, Phase.FAULT)
    assert view.phase is Phase.SESSION_OVER, view.fault
    boxes = sorted((tmp_path / "blackbox").glob("*.jsonl"))
    assert len(boxes) == len(rig.sink.results) == 3
    for box, recorded in zip(boxes, rig.sink.results, strict=True):
        assert recorded.play is not None and len(recorded.play.moves) > 50
        setup, inputs = read(box.read_bytes().splitlines())
        _, again = replay(setup, inputs)
        assert again is not None
        assert again.totals == recorded.payments and sum(recorded.payments) == 0
        assert again.moves == recorded.play.moves and again.wins == recorded.play.wins


async def test_replay_prints_the_result_and_refuses_what_is_not_a_black_box(
    tmp_path: Path, pins: MockFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    async with Rig(tmp_path, "zung-jung", hands=1) as rig:
        await rig.until_phase(Phase.SESSION_OVER)
    [box] = (tmp_path / "blackbox").glob("*.jsonl")
    capsys.readouterr()
    assert main(["replay", str(box), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    [recorded] = rig.sink.results
    assert printed["payments"] == list(recorded.payments)
    assert len(printed["moves"]) == len(recorded.play.moves if recorded.play else ())
    assert main(["replay", str(box), "--step"]) == 0
    assert "hand over" in capsys.readouterr().out

    whole = box.read_bytes().splitlines(keepends=True)
    torn = tmp_path / "torn.jsonl"
    torn.write_bytes(b"".join(whole[:-1]) + whole[-1][: len(whole[-1]) // 2])
    assert main(["replay", str(torn)]) in (0, 1)  # the hand may end before the cut line
    said = capsys.readouterr()
    assert f"the last line ({len(whole)}) of {torn} is torn" in said.err
    assert f"replaying the {len(whole) - 1} whole lines before it" in said.err
    assert "hand over" in said.out or "did not end" in said.out

    broken = tmp_path / "broken.jsonl"
    broken.write_bytes(box.read_bytes().splitlines()[0] + b"\n{not json\n")
    assert main(["replay", str(broken)]) == 2
    assert "line 2" in capsys.readouterr().err
