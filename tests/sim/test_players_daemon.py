"""Players who claim and kong, at the table with the daemon on it: their moves go through
the simulated MCU's zone antennas like any other, and the session plays to its end."""

from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

from controller.sim.moves import MoveKind
from controller.sim.players import Habits
from controller.table.cycle import Phase
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
