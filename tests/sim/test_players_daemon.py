"""Players who claim and kong, at the table with the daemon on it: their moves go through
the simulated MCU's zone antennas like any other, and the session plays to its end."""

from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

from controller.sim.mistakes import Sloppiness
from controller.sim.moves import MoveKind, SlipKind
from controller.sim.players import Habits
from controller.table.cycle import Phase
from controller.table.records import IncidentKind
from tests.sim.rig import Rig


@pytest.mark.parametrize("ruleset", ["zung-jung", "sichuan", "shanghai"])
async def test_players_who_claim_and_kong_play_a_session(
    ruleset: str, tmp_path: Path, pins: MockFactory
) -> None:
    habits = Habits(claims=True, kongs=True)
    async with Rig(tmp_path, ruleset, hands=3, seed=1, habits=habits) as rig:
        view = await rig.until_phase(Phase.SESSION_OVER, Phase.FAULT)
    assert view.phase is Phase.SESSION_OVER, view.fault
    kinds = {move.kind for move in rig.players.moves}
    assert {MoveKind.PUNG} <= kinds
    assert len(rig.sink.results) == 3
    assert all(sum(result.payments) == 0 for result in rig.sink.results)


async def test_slow_turns_take_the_tables_time_and_false_wins_are_seen(
    tmp_path: Path, pins: MockFactory
) -> None:
    habits = Habits(sloppy=Sloppiness(seed=1, slow_turn=0.1, false_win=0.05))
    async with Rig(tmp_path, "zung-jung", hands=2, seed=2, habits=habits) as rig:
        view = await rig.until_phase(Phase.SESSION_OVER, Phase.FAULT)
        elapsed = rig.clock.monotonic()
    assert view.phase is Phase.SESSION_OVER, view.fault
    slips = rig.players.slips
    slow = [slip for slip in slips if slip.kind is SlipKind.SLOW_TURN]
    assert slow and all(slip.seconds == 15 + 10 for slip in slow)
    assert elapsed >= sum(slip.seconds for slip in slow), "the table's clock ran through them"
    false_wins = [(s.hand, s.place) for s in slips if s.kind is SlipKind.FALSE_WIN]
    seen = [
        (result.start.hand, incident.place)
        for result in rig.sink.results
        for incident in result.incidents
        if incident.kind == IncidentKind.FALSE_WIN
    ]
    assert false_wins and sorted(seen) == sorted(false_wins)
