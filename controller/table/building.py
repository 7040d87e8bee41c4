"""Transitions from 'building' to 'walls raised': lower the last hand's tiles while the other
set is built, check the wall as its tiles stream in, reshuffle once if it is bad, raise it."""

from controller.table import effects as fx
from controller.table.core import CycleState, InHand, Phase
from controller.table.ports import (
    Beep,
    McuStatusRead,
    Motion,
    MotionEnded,
    Outcome,
    WallSideRead,
    WallTilePlaced,
)

EXPECTED = {
    Phase.BUILDING: (Motion.BUILD, Motion.LOWER),
    Phase.WALLS_CHECKED: (Motion.RAISE,),
    Phase.DICE: (Motion.DICE,),
}
"""The movements each phase waits for (one that fails there is a fault)."""


def start_build(cycle: CycleState, live: InHand, attempt: int) -> None:
    """Build the walls (attempt 1 also lowers the last hand's tiles; 2 is the reshuffle)."""
    hand, session = live.hand, live.session
    hand.new_attempt(attempt)
    if attempt == 1:
        hand.lowered = False
        cycle.board.clear()
        lower = fx.LowerPlatform(cycle.limit(cycle.settings.raise_timeout_s))
        cycle.move(lower, Motion.LOWER)
    ruleset, wall = session.ruleset, session.ruleset.wall
    limit = cycle.limit(cycle.settings.build_timeout_s)
    build = fx.BuildWalls(ruleset.tiles.total, wall.tiles_per_side, wall.layers, limit)
    cycle.move(build, Motion.BUILD)
    cycle.enter(Phase.BUILDING)
    cycle.show_turn(None)
    what = "building the walls" if attempt == 1 else "reshuffling and building again"
    cycle.say("info", f"hand {hand.number}: {what}")


def on_wall_tile(cycle: CycleState, event: WallTilePlaced) -> None:
    """The wall reader read a tile as it was placed."""
    live = cycle.live()
    if cycle.phase is Phase.BUILDING and live is not None:
        live.hand.placed[(event.side, event.stack, event.layer)] = event.uid


def on_side_read(cycle: CycleState, event: WallSideRead) -> None:
    """A whole side re-read after lost events."""
    live = cycle.live()
    if cycle.phase is Phase.BUILDING and live is not None:
        live.hand.read_side(event.side, event.tiles)


def on_motion_ended(cycle: CycleState, event: MotionEnded) -> None:
    """A movement ended: the walls are built, the platform lowered, the walls up."""
    cycle.motions.discard(event.motion)
    live = cycle.live()
    if cycle.phase is Phase.FAULT or live is None:
        return
    if event.outcome is not Outcome.DONE:
        if event.motion not in EXPECTED.get(cycle.phase, ()):
            return
        if cycle.resync_pending:  # the fault that stopped it may be among the lost events
            cycle.failed_motion = (cycle.since, event)
        else:
            motion_failed(cycle, event)
        return
    hand = live.hand
    if cycle.phase is Phase.BUILDING and event.motion in (Motion.BUILD, Motion.LOWER):
        hand.built = hand.built or event.motion is Motion.BUILD
        if event.motion is Motion.LOWER:
            lowered(cycle, live)
        walls_ready(cycle, live)
    elif cycle.phase is Phase.WALLS_CHECKED and event.motion is Motion.RAISE:
        cycle.enter(Phase.WALLS_RAISED)
        cycle.emit(fx.Sound(Beep.ACK))
        cycle.say("info", f"hand {hand.number}: walls up, {dice_prompt(live)}")


def motion_failed(cycle: CycleState, event: MotionEnded) -> None:
    """A movement the phase waits for failed, and the MCU named no fault for it."""
    cycle.stop(f"the table could not {event.motion.value}: it {event.outcome.value}")


def on_status(cycle: CycleState, event: McuStatusRead) -> None:
    """The status re-read after lost events: kept until the re-read is complete."""
    cycle.mcu_status = event
    cycle.dice_rolls = event.dice_rolls


def after_resync(cycle: CycleState) -> None:
    """The MCU's state is complete again: a build or a raise that ended unseen ends now, and
    a wall whose check waited for lost tiles is checked."""
    live, status = cycle.live(), cycle.mcu_status
    if live is None or status is None:
        return
    hand = live.hand
    if cycle.phase is Phase.BUILDING:
        if status.walls_built and not hand.built:
            cycle.motions.discard(Motion.BUILD)
            hand.built = True
        if status.walls_built and not status.platform_moving and not hand.lowered:
            cycle.motions.discard(Motion.LOWER)  # lowering was asked for before the build
            lowered(cycle, live)
        walls_ready(cycle, live)
    elif cycle.phase is Phase.WALLS_CHECKED and status.lifts_up and not status.walls_built:
        on_motion_ended(cycle, MotionEnded(Motion.RAISE, Outcome.DONE))


def lowered(cycle: CycleState, live: InHand) -> None:
    """The platform is down: the surface is empty, whatever reads made before or during the
    lowering still show (a zone read asked in the last hand can come after the board was
    cleared, and one empty read is not enough to count its tags gone)."""
    live.hand.lowered = True
    cycle.board.clear()


def walls_ready(cycle: CycleState, live: InHand) -> None:
    """Check a built wall; raise it once the surface is clear, or reshuffle, or stop."""
    hand, session = live.hand, live.session
    if not hand.built or cycle.resync_pending:
        return
    first_look = hand.verdict is None
    verdict = hand.check(session.ruleset, live.tiles)
    if first_look:
        cycle.wall_checks.append((hand.number, verdict.problems))
    if not verdict.ok:
        if hand.attempt == 1:
            cycle.say("warning", f"bad wall ({verdict.summary()}): reshuffling once")
            start_build(cycle, live, 2)
        else:
            cycle.stop(f"bad wall after a reshuffle: {verdict.summary()}")
        return
    if hand.lowered:
        cycle.move(fx.RaiseWalls(cycle.limit(cycle.settings.raise_timeout_s)), Motion.RAISE)
        cycle.enter(Phase.WALLS_CHECKED)
        cycle.say("info", f"hand {hand.number}: wall checked, raising the walls")


def dice_prompt(live: InHand) -> str:
    """What the dealer is to do with the dice button now."""
    hand, session = live.hand, live.session
    if session.needs_dealer_roll and not hand.dealer_rolled:
        return "press the dice button to choose the dealer"
    total = session.ruleset.wall.dice_rolls
    roll = 1 + len(hand.dice) // 2
    return "press the dice button" + (f" (roll {roll} of {total})" if total > 1 else "")
