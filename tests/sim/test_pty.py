"""The daemon reaches the simulated MCU through a real pseudo-terminal and the serial code,
as it reaches the real table through /dev/mahjong-mcu."""

from pathlib import Path

from gpiozero.pins.mock import MockFactory

from controller.table.cycle import Phase
from tests.sim.rig import Rig


async def test_a_hand_over_a_real_pty(tmp_path: Path, pins: MockFactory) -> None:
    async with Rig(tmp_path, hands=1, over_pty=True) as rig:
        view = await rig.until_phase(Phase.SESSION_OVER, Phase.FAULT)
        assert rig.sim.device is not None and rig.sim.device.startswith("/dev/pts/")
    assert view.phase is Phase.SESSION_OVER, view.fault
    assert rig.cycle.wall_checks == [(1, ())] and rig.cycle.deal_checks == [(1, ())]
    assert len(rig.sink.results) == 1
