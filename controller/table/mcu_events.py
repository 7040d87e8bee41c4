"""What the hand cycle does when the machine itself speaks up: the emergency stop, the lid,
motor faults, the MCU restarting, its link coming and going, a command failing."""

from controller.table import building, play, seating_phase
from controller.table import effects as fx
from controller.table import inputs as ev
from controller.table.core import ACK_HINT, CycleState, Phase
from controller.table.incidents import IncidentKind
from controller.table.ports import (
    CommandFailure,
    DiceRolled,
    McuCommand,
    McuEventsLost,
    McuFault,
    McuFaultCleared,
    McuFaultKind,
    McuOffline,
    McuResynced,
)

ESTOP_TEXT = "the emergency stop is pressed: every motor stopped"
ESTOP_HOLD = "release the emergency stop"
LID_HOLD = "close the lid"
MOVING = {
    Phase.BUILDING: "build the walls",
    Phase.WALLS_CHECKED: "raise the walls",
}
"""Phases in which the machine moves (a restart or a lost link there loses the movement)."""
IN_HAND = (Phase.WALLS_RAISED, Phase.DICE, Phase.DEALING, Phase.PLAYING)
WAITING_ON_STATE = (
    Phase.SEATING,
    Phase.BUILDING,
    Phase.WALLS_CHECKED,
    Phase.DICE,
    Phase.DEALING,
)
"""Phases whose next step is decided from the MCU's state (dice and the seating draw, walls,
lifts, the deal).
Play is not among them: each zone read is that zone's whole inventory, so the referee follows
play from the reads as they come. Only what it would decide from a tile it does not see (a
claim window closing on time, a press out of turn, strays) waits for the re-read
(`ReadsMissing`), and that at most the strays time: on a noisy line a re-read can take that
long, and play goes on without a fault."""


def on_estop(cycle: CycleState, source: str, engaged: bool) -> None:
    """The emergency stop (the panel's input or the MCU's): stop everything and hold."""
    cycle.estop[source] = engaged
    if engaged:
        cycle.emit(fx.StopAll())
        cycle.stop(ESTOP_TEXT, ESTOP_HOLD)
    elif not any(cycle.estop.values()):
        cycle.clear_hold(ESTOP_HOLD, "the emergency stop is released")


def moving(cycle: CycleState) -> str:
    """What the machine is busy doing now ('' if nothing that a restart would lose)."""
    if cycle.phase in (Phase.DICE, Phase.SEATING) and cycle.rolling:
        return "roll the dice"
    return MOVING.get(cycle.phase, "")


def on_restart(cycle: CycleState, cause: str) -> None:
    """The MCU rebooted: a movement in progress is lost; a hand in play goes on."""
    cycle.motions.clear()
    doing = moving(cycle)
    hand, fault = cycle.hand, cycle.fault
    if fault is not None and fault.lost:
        fault.reason = f"the table MCU restarted ({cause}) while it had to {fault.lost}: {ACK_HINT}"
        cycle.say("error", f"fault: {fault.reason}")
    elif doing:
        cycle.stop(f"the table MCU restarted ({cause}) while it had to {doing}: {ACK_HINT}")
    elif hand is not None and cycle.phase in IN_HAND:
        cycle.incident(
            None,
            IncidentKind.TABLE_RESTARTED,
            f"the table MCU restarted ({cause}) during hand {hand.number}; the hand goes on",
        )
    else:
        cycle.say("warning", f"the table MCU restarted ({cause})")


def on_offline(cycle: CycleState, event: McuOffline) -> None:
    """The link to the MCU went down (it reconnects by itself unless the reason is final)."""
    cycle.mcu_online = False
    if event.final:
        cycle.stop(event.reason, resumable=False)
    elif moving(cycle):
        doing = moving(cycle)
        cycle.stop(f"lost the link to the table MCU while it had to {doing}: {event.reason}")
        if cycle.fault is not None:
            cycle.fault.lost = doing
    else:
        cycle.say("warning", f"the table MCU link is down ({event.reason}); reconnecting")


def on_fault(cycle: CycleState, event: McuFault) -> None:
    """A fault the MCU reports, in the words a technician needs."""
    part, kind = event.part or "a motor", event.kind
    if kind is McuFaultKind.ESTOP:
        on_estop(cycle, "mcu", True)
    elif kind is McuFaultKind.LID_OPEN:
        cycle.emit(fx.StopAll())
        cycle.stop("the lid is open: every motor stopped", LID_HOLD)
    elif kind is McuFaultKind.JAM:
        cycle.stop(f"the {part} jammed: clear the jam, then {ACK_HINT}")
    elif kind is McuFaultKind.OVERCURRENT:
        cycle.stop(f"the {part} drew too much current and stopped: check it, then {ACK_HINT}")
    elif kind is McuFaultKind.MOTOR_TIMEOUT:
        cycle.stop(f"the {part} ran past its time limit and stopped: check it, then {ACK_HINT}")
    elif kind is McuFaultKind.READER_ERROR and event.antenna == 0 and moving(cycle):
        cycle.stop("the wall reader does not answer: check its cable")
    elif kind is McuFaultKind.HEARTBEAT_LOST and cycle.motions:
        cycle.stop("the table MCU stopped its motors: it stopped hearing the daemon")
    else:
        cycle.say("warning", f"the {event.part or 'table'} reports {kind.value}: check it")


def on_fault_cleared(cycle: CycleState, event: McuFaultCleared) -> None:
    """A fault the MCU reported is over."""
    if event.kind is McuFaultKind.ESTOP:
        on_estop(cycle, "mcu", False)
    elif event.kind is McuFaultKind.LID_OPEN:
        cycle.clear_hold(LID_HOLD, "the lid is closed")


def state_incomplete(cycle: CycleState) -> None:
    """Events may be missing (lost on the link, or sent while it was down): wait for the
    re-read before deciding anything from the MCU's state."""
    if not cycle.resync_pending:
        cycle.resync_pending = True
        cycle.stale_since = cycle.t
        play.follow(cycle)  # the referee hears it before the next zone read


MOTOR_STOPS = frozenset({McuFaultKind.JAM, McuFaultKind.OVERCURRENT, McuFaultKind.MOTOR_TIMEOUT})
"""Faults that stopped a motor: one the status shows after lost events stops the table."""


LOSSES_SAID_EVERY_S = 60.0
"""Lost events go to the log at the first loss, then at most once in this long, with how many
were lost meanwhile: on a noisy line losses come several a second (`diag link` counts them)."""


def on_events_lost(cycle: CycleState, event: McuEventsLost) -> None:
    """The link lost events; it re-reads the MCU's state by itself."""
    state_incomplete(cycle)
    cycle.gaps.append((event.gap, cycle.t, event.missed))
    cycle.losses_unsaid += event.missed
    if cycle.t - cycle.losses_said_at < LOSSES_SAID_EVERY_S:
        return
    lost, cycle.losses_unsaid = cycle.losses_unsaid, 0
    ago, cycle.losses_said_at = cycle.t - cycle.losses_said_at, cycle.t
    text = f"lost {lost} event(s) from the table MCU: re-reading its state"
    if lost > event.missed:
        text = (
            f"lost {lost} event(s) from the table MCU since this was last said, {ago:.0f} s "
            "ago: re-reading its state after each loss"
        )
    cycle.emit(fx.Announce("warning", text))  # the log only: routine on a noisy line


def on_resynced(cycle: CycleState, event: McuResynced) -> None:
    """The MCU's state is complete again: take the decisions that waited for it. Gaps seen
    after the re-read began wait for the next one (their grace from when they came)."""
    if not cycle.resync_pending:
        return
    cycle.gaps = [gap for gap in cycle.gaps if gap[0] > event.covers]
    if cycle.gaps:
        cycle.stale_since = cycle.gaps[0][1]
        play.follow(cycle)  # the re-read's zones; reads are complete up to the oldest loss left
        return
    cycle.resync_pending = False
    play.follow(cycle)  # the re-read's zones, then that the reads are complete
    failed, cycle.failed_motion = cycle.failed_motion, None
    status = cycle.mcu_status
    if status is not None and cycle.phase is not Phase.FAULT:
        for fault in status.faults:
            if fault.kind in MOTOR_STOPS:
                on_fault(cycle, fault)  # its event was lost: the status shows it
                return
    if failed is not None and failed[0] == cycle.since and cycle.phase is not Phase.FAULT:
        building.motion_failed(cycle, failed[1])
        return
    building.after_resync(cycle)
    status = cycle.mcu_status
    rolled_unseen = (
        cycle.rolling
        and status is not None
        and not status.dice_spinning
        and cycle.roll_base is not None
        and status.dice_rolls > cycle.roll_base
    )
    if cycle.phase in (Phase.DICE, Phase.SEATING) and rolled_unseen and status is not None:
        on_dice_rolled(cycle, DiceRolled(*status.dice), counted=False)


def on_dice_rolled(cycle: CycleState, event: DiceRolled, counted: bool = True) -> None:
    """The dice came to rest (counted, so a roll whose event is lost is found in the status;
    `counted` False: found there, already in the count)."""
    if counted and cycle.dice_rolls is not None:
        cycle.dice_rolls += 1
    if cycle.phase is Phase.SEATING:
        seating_phase.on_dice(cycle, event)
    else:
        play.on_dice(cycle, event)


def stale_too_long(cycle: CycleState) -> str:
    """A link fault if the MCU's state stayed incomplete too long while the table waits on it."""
    waited = cycle.t - max(cycle.stale_since, cycle.since)  # waiting began in this phase
    if not cycle.resync_pending or cycle.phase not in WAITING_ON_STATE:
        return ""
    if waited <= cycle.settings.link_grace_s:
        return ""
    lost = f"lost {cycle.events_lost} events" if cycle.events_lost else "lost events"
    return (
        f"{lost} from the table MCU and could not read its state again within "
        f"{cycle.settings.link_grace_s:g} s: check the USB cable"
    )


_CABLE = "check the table MCU's USB cable and power"
COMMAND_ADVICE = {
    CommandFailure.BUSY: "wait until the table has finished moving",
    CommandFailure.LID_OPEN: "close the lid",
    CommandFailure.ESTOP: "release the emergency stop",
    CommandFailure.NO_TILES: "put the tiles into the hopper",
    CommandFailure.FAULT_ACTIVE: "clear the fault the table reports",
    CommandFailure.NO_WALLS_BELOW: "nothing to fix by hand: going on builds the walls again",
    CommandFailure.SURFACE_HOLDS_TILES: "take every tile off the playing surface",
    CommandFailure.NO_ANSWER: _CABLE,
    CommandFailure.LINK_DOWN: _CABLE,
    CommandFailure.UNKNOWN_COMMAND: "update the table's firmware to match this daemon",
    CommandFailure.BAD_ARGUMENT: "update the table's firmware to match this daemon",
    CommandFailure.WALLS_DO_NOT_FIT: (
        "check [wall] of the house rules ([table] ruleset_file), if any, and update the table's "
        "firmware to match this daemon"
    ),
    CommandFailure.NO_SUCH_SET: "check that [table] ruleset uses the tile set in this table",
}
"""What the technician does about each failure before pressing the dice button."""


def on_command_failed(cycle: CycleState, event: ev.CommandFailed) -> None:
    """A command to the MCU failed: a fault named by why, with its advice (failing to stop
    the motors is only said)."""
    if event.command is McuCommand.STOP_ALL:
        cycle.say("error", f"could not stop every motor: {event.reason}")
        return
    advice = COMMAND_ADVICE[event.failure]
    cycle.stop(f"could not {event.command.value}: {event.reason}: {advice}, then {ACK_HINT}")
