"""A command the table MCU refused or never answered is a fault named for why, with the advice
that fits: a busy table, an open lid and a silent MCU are three different faults."""

import pytest

from controller.table import inputs as ev
from controller.table.cycle import Phase
from controller.table.mcu_events import COMMAND_ADVICE
from controller.table.ports import CommandFailure, McuCommand
from tests.table.driver import Driver


@pytest.mark.parametrize(
    ("failure", "reason", "fault"),
    [
        (
            CommandFailure.BUSY,
            "the table refused: another movement is still running",
            "could not roll the dice: the table refused: another movement is still running: "
            "wait until the table has finished moving, then press the dice button to go on",
        ),
        (
            CommandFailure.LID_OPEN,
            "the table refused: the lid is open",
            "could not roll the dice: the table refused: the lid is open: close the lid, "
            "then press the dice button to go on",
        ),
        (
            CommandFailure.NO_ANSWER,
            "the table MCU did not answer (roll_dice unanswered after 3 tries)",
            "could not roll the dice: the table MCU did not answer (roll_dice unanswered after "
            "3 tries): check the table MCU's USB cable and power, then press the dice button "
            "to go on",
        ),
    ],
)
def test_each_failure_is_its_own_fault_with_its_advice(
    failure: CommandFailure, reason: str, fault: str
) -> None:
    driver = Driver()
    driver.start()
    driver.feed(ev.CommandFailed(McuCommand.ROLL, failure, reason))
    view = driver.view()
    assert view.phase is Phase.FAULT
    assert view.fault == fault


def test_every_failure_has_advice() -> None:
    assert set(COMMAND_ADVICE) == set(CommandFailure)


def test_failing_to_stop_the_motors_is_said_not_a_fault() -> None:
    driver = Driver()
    driver.start()
    driver.feed(ev.CommandFailed(McuCommand.STOP_ALL, CommandFailure.LINK_DOWN, "link down"))
    assert driver.view().phase is not Phase.FAULT
