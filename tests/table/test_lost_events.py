"""The hand cycle when MCU events were lost: nothing is decided from the MCU's state until the
link has re-read it, what ended unseen is taken from the re-read status, and a re-read that
never completes is a link fault, never a motor or reader fault."""

from controller.table import effects as fx
from controller.table import inputs as ev
from controller.table.cycle import Phase
from controller.table.ports import (
    DicePressed,
    McuEventsLost,
    McuFault,
    McuFaultKind,
    McuResynced,
    McuStatusRead,
    Motion,
    MotionEnded,
    Outcome,
    WallSideRead,
    WallTilePlaced,
)
from tests.table.driver import Driver
from tests.table.helpers import full_wall

BUILT = McuStatusRead(walls_built=True, estop=False, lid_open=False, lifts_up=False)


def test_the_wall_is_checked_only_once_the_lost_tiles_are_read_again() -> None:
    driver = Driver()
    driver.start()
    wall = full_wall(driver.ruleset)
    lost = [slot for slot in wall if slot[0] == 2][:2]
    for (side, stack, layer), uid in wall.items():
        if (side, stack, layer) not in lost:
            driver.feed(WallTilePlaced(side, stack, layer, uid))
    driver.feed(McuEventsLost(2, gap=1))
    driver.feed(MotionEnded(Motion.LOWER, Outcome.DONE), after=1.0)
    driver.feed(MotionEnded(Motion.BUILD, Outcome.DONE), after=1.0)
    assert driver.cycle.wall_checks == [], "no check on a wall with tiles missing from the stream"
    assert driver.view().phase is Phase.BUILDING
    driver.feed(BUILT)
    side_2 = tuple((k[1], k[2], uid) for k, uid in sorted(wall.items()) if k[0] == 2)
    driver.feed(WallSideRead(2, side_2))
    driver.feed(McuResynced(covers=1))
    assert driver.cycle.wall_checks == [(1, ())]
    assert driver.view().phase is Phase.WALLS_CHECKED


def test_a_jam_whose_fault_event_was_lost_stops_the_table_from_the_re_read_status() -> None:
    driver = Driver()
    driver.start()
    driver.feed(McuEventsLost(1, gap=1))  # the jam's fault event
    jammed = McuFault(McuFaultKind.JAM, "stacking head")
    driver.feed(McuStatusRead(False, False, False, False, faults=(jammed,)), after=1.0)
    driver.feed(McuResynced(covers=1))
    view = driver.view()
    assert view.phase is Phase.FAULT
    assert view.fault is not None and view.fault.startswith("the stacking head jammed: clear")


def test_a_build_that_failed_after_lost_events_is_named_by_the_re_read_status() -> None:
    # The jam's fault event is lost, the build's failed end arrives: the technician must be
    # told what jammed, not that "the build failed".
    driver = Driver()
    driver.start()
    driver.feed(McuEventsLost(1, gap=1))
    driver.feed(MotionEnded(Motion.BUILD, Outcome.FAILED))
    assert driver.view().phase is Phase.BUILDING, "nothing decided before the re-read"
    jammed = McuFault(McuFaultKind.JAM, "stacking head")
    driver.feed(McuStatusRead(False, False, False, False, faults=(jammed,)), after=1.0)
    driver.feed(McuResynced(covers=1))
    fault = driver.view().fault
    assert fault is not None and fault.startswith("the stacking head jammed: clear")


def test_a_build_that_failed_with_no_fault_in_the_re_read_status_says_so() -> None:
    driver = Driver()
    driver.start()
    driver.feed(McuEventsLost(1, gap=1))
    driver.feed(MotionEnded(Motion.BUILD, Outcome.FAILED))
    driver.feed(McuStatusRead(False, False, False, False), after=1.0)
    driver.feed(McuResynced(covers=1))
    assert driver.view().fault == "the table could not build the walls: it failed"


def test_a_build_whose_end_was_lost_ends_with_the_re_read_status() -> None:
    driver = Driver()
    driver.start()
    for (side, stack, layer), uid in full_wall(driver.ruleset).items():
        driver.feed(WallTilePlaced(side, stack, layer, uid))
    driver.feed(McuEventsLost(2, gap=1))  # the lowering's and the build's motion_done
    driver.feed(BUILT, after=1.0)
    driver.feed(McuResynced(covers=1))
    assert driver.view().phase is Phase.WALLS_CHECKED


def test_walls_that_rose_unseen_and_dice_that_fell_unseen_are_taken_from_the_status() -> None:
    driver = Driver()
    driver.start()
    driver.feed(McuStatusRead(False, False, False, False, dice_rolls=5))
    driver.build()
    assert driver.view().phase is Phase.WALLS_CHECKED
    driver.feed(McuEventsLost(1, gap=1))
    driver.feed(McuStatusRead(False, False, False, True, dice_rolls=5), after=2.0)
    driver.feed(McuResynced(covers=1))
    assert driver.view().phase is Phase.WALLS_RAISED
    driver.feed(DicePressed(), after=1.0)
    driver.feed(McuEventsLost(2, gap=2))
    driver.feed(McuStatusRead(False, False, False, True, dice_rolls=6, dice=(3, 4)), after=1.0)
    driver.feed(McuResynced(covers=2))
    hand = driver.cycle.hand
    assert hand is not None and hand.dice == [3, 4]
    assert not hand.rolling


def test_a_status_read_before_the_roll_began_is_no_result() -> None:
    driver = Driver()
    driver.start()
    driver.feed(McuStatusRead(False, False, False, False, dice_rolls=5, dice=(1, 1)))
    driver.build()
    driver.raise_and_roll()
    driver.feed(DicePressed(), after=1.0)
    driver.feed(McuEventsLost(1, gap=1))
    driver.feed(McuStatusRead(False, False, False, True, dice_rolls=5, dice=(1, 1)))
    driver.feed(McuResynced(covers=1))
    hand = driver.cycle.hand
    assert hand is not None and hand.rolling and hand.dice == []


def test_no_movement_timeout_while_the_state_is_being_read_again() -> None:
    driver = Driver()
    driver.start()
    driver.feed(ev.Tick(), after=75.0)
    driver.feed(McuEventsLost(3, gap=1))
    driver.feed(ev.Tick(), after=8.0)
    assert driver.view().phase is Phase.BUILDING, "83 s, but the stream is incomplete"


def test_a_state_that_cannot_be_read_again_is_a_link_fault() -> None:
    driver = Driver()
    driver.start()
    driver.feed(McuEventsLost(3, gap=1))
    driver.feed(McuEventsLost(4, gap=2), after=1.0)
    driver.feed(ev.Tick(), after=driver.cycle.settings.link_grace_s + 0.5)
    assert driver.view().fault == (
        "lost 7 events from the table MCU and could not read its state again within 10 s: "
        "check the USB cable"
    )


def test_gaps_that_come_faster_than_re_reads_end_are_no_link_fault() -> None:
    # On a noisy line a gap comes every few seconds and each re-read takes a few: each
    # re-read makes good the gaps seen before it began, so none waits past the grace.
    driver = Driver()
    driver.start()
    grace = driver.cycle.settings.link_grace_s
    for gap in range(1, 8):
        driver.feed(McuEventsLost(1, gap=gap), after=grace / 3)
        driver.feed(McuResynced(covers=gap - 1), after=grace / 3)
        driver.feed(ev.Tick())
        assert driver.view().phase is Phase.BUILDING, f"after {gap} gaps"
        assert driver.cycle.resync_pending, "a newer gap is not made good yet"
    driver.feed(McuResynced(covers=7))
    assert not driver.cycle.resync_pending


def test_a_gap_no_re_read_makes_good_is_a_link_fault_after_its_grace() -> None:
    driver = Driver()
    driver.start()
    grace = driver.cycle.settings.link_grace_s
    driver.feed(McuEventsLost(2, gap=1))
    driver.feed(McuEventsLost(1, gap=2), after=grace / 2)
    driver.feed(McuResynced(covers=1), after=1.0)
    driver.feed(ev.Tick(), after=grace / 2)
    assert driver.view().phase is Phase.BUILDING, "gap 2 came less than the grace ago"
    driver.feed(ev.Tick(), after=grace / 2)
    assert driver.view().fault == (
        "lost 1 events from the table MCU and could not read its state again within 10 s: "
        "check the USB cable"
    )


def test_in_play_the_referee_holds_its_decisions_on_unseen_tiles_until_the_re_read() -> None:
    driver = Driver()
    driver.to_playing()
    hand = driver.cycle.hand
    assert hand is not None and hand.play is not None
    referee = hand.play.referee
    driver.feed(McuEventsLost(1, gap=1))
    lost_at = driver.cycle.t
    assert referee.reads_missing_since == lost_at, "told before the next zone read"
    driver.feed(McuEventsLost(1, gap=2), after=2.0)
    assert referee.reads_missing_since == lost_at, "the oldest loss not made good"
    driver.feed(McuResynced(covers=1))
    assert referee.reads_missing_since == lost_at + 2.0, "the first loss is made good"
    assert driver.view().phase is Phase.PLAYING
    driver.feed(McuResynced(covers=2))
    assert referee.reads_missing_since is None


def test_in_play_a_re_read_that_takes_long_is_no_fault() -> None:
    # A noisy line's re-read can outlast the grace; the referee follows the reads as they
    # come (and waits on unseen tiles at most the strays time), so play goes on.
    driver = Driver()
    driver.to_playing()
    driver.feed(McuEventsLost(2, gap=1))
    driver.feed(ev.Tick(), after=driver.cycle.settings.link_grace_s + 0.5)
    assert driver.view().phase is Phase.PLAYING and driver.view().fault is None


def test_lost_events_go_to_the_log_at_the_first_loss_then_once_a_minute_with_the_count() -> None:
    driver = Driver()
    driver.start()
    said: list[str] = []
    for gap in range(1, 131):  # two minutes of a noisy line: a loss every second
        out = driver.feed(McuEventsLost(1 + gap % 2, gap=gap), after=1.0)
        said += [e.text for e in out if isinstance(e, fx.Announce) and "lost" in e.text]
        if gap % 5 == 0:
            driver.feed(McuResynced(covers=gap))

    assert said == [
        "lost 2 event(s) from the table MCU: re-reading its state",
        "lost 90 event(s) from the table MCU since this was last said, 60 s ago: "
        "re-reading its state after each loss",
        "lost 90 event(s) from the table MCU since this was last said, 60 s ago: "
        "re-reading its state after each loss",
    ]
