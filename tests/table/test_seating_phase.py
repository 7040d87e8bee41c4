"""The seating draw in the hand cycle: before a WMC session's first hand the table rolls for
it, reads the wind tiles from the HAND zones, says a wrong draw and waits, then seats the
players and builds the first hand's walls."""

from controller.table import effects as fx
from controller.table import inputs as ev
from controller.table.cycle import Phase
from controller.table.ports import (
    DicePressed,
    DiceRolled,
    McuOnline,
    Motion,
    MotionEnded,
    Outcome,
    Zone,
    ZoneRead,
)
from tests.table.driver import PLAYERS, Driver

SETTLE = 2.0


def winds(driver: Driver) -> dict[str, list[int]]:
    """Tags of the wind tiles (and a dot tile) of the driver's tile map, by face."""
    by_face: dict[str, list[int]] = {"E": [], "S": [], "W": [], "N": [], "5p": []}
    for uid, name in driver.tiles.names().items():
        face = {"1z": "E", "2z": "S", "3z": "W", "4z": "N"}.get(name, name)
        if face in by_face:
            by_face[face].append(uid)
    return by_face


def lay(driver: Driver, hands: dict[int, list[int]]) -> None:
    """The HAND zones read these tags, three reads each (a tag taken away counts as gone only
    after missing from two reads and a while), then the zones settle."""
    for _ in range(3):
        for chair in range(4):
            driver.feed(ZoneRead(chair, Zone.HAND, frozenset(hands.get(chair, []))), after=0.2)
    driver.feed(ev.Tick(), after=SETTLE)


def roll_for_seating(driver: Driver) -> None:
    """Chair E rolls 3+4 (chair W rolls again), chair W rolls 1+1 (chair N takes first)."""
    for dice in ((3, 4), (1, 1)):
        out = driver.feed(DicePressed(), after=1.0)
        assert fx.RollDice(15.0) in out
        driver.feed(DiceRolled(*dice), after=1.0)


def test_a_wmc_session_begins_with_the_seating_draw_and_seats_east_on_chair_zero() -> None:
    driver = Driver("zung-jung")
    out = driver.start(seating_draw=True)
    view = driver.view()
    assert view.phase is Phase.SEATING
    assert not [e for e in out if isinstance(e, fx.BuildWalls)]
    assert "the player on chair E presses the dice button" in view.notice

    driver.feed(DicePressed(), after=1.0)
    assert driver.view().rolling
    driver.feed(DiceRolled(3, 4), after=1.0)  # 7 from chair E: opposite, chair W
    assert "the player on chair W presses the dice button" in driver.view().notice
    driver.feed(DicePressed(), after=1.0)
    driver.feed(DiceRolled(1, 1), after=1.0)  # 2 from chair W: next, chair N; even end
    notice = driver.view().notice
    assert "chairs N, E, S, W in turn, from the even end" in notice, notice
    assert driver.view().dice == (3, 4, 1, 1)

    tags = winds(driver)
    # Chair 0 drew West, chair 1 East, chair 2 North, chair 3 South.
    out = []
    for chair, face in enumerate("WENS"):
        out += driver.feed(ZoneRead(chair, Zone.HAND, frozenset({tags[face][0]})), after=0.3)
    out += driver.feed(ZoneRead(0, Zone.HAND, frozenset({tags["W"][0]})), after=SETTLE)

    view = driver.view()
    assert view.phase is Phase.BUILDING
    assert view.players == ("bo", "di", "ann", "cy")  # East's drawer (bo) on chair 0
    assert view.dealer == 0
    assert fx.LowerPlatform(20.0) in out  # the wind tiles go down with the platform
    assert [e for e in out if isinstance(e, fx.BuildWalls)]
    session = driver.cycle.session
    assert session is not None and session.seating is not None
    start = session.seating
    assert start.players_at_draw == PLAYERS
    assert start.drawn == ("W", "E", "N", "S")
    assert start.dice == (3, 4, 1, 1)
    assert (start.players, start.dealer) == (("bo", "di", "ann", "cy"), 0)

    # The first hand's start carries the draw into its result; the second hand's does not.
    driver.build()
    driver.raise_and_roll((3, 4), (2, 2))
    began = [e.start for e in driver.effects if isinstance(e, fx.HandBegan)]
    assert [b.seating for b in began] == [start]
    assert began[0].players == ("bo", "di", "ann", "cy")


def test_a_wrong_draw_is_said_and_the_table_waits_for_it_to_be_put_right() -> None:
    driver = Driver("zung-jung")
    driver.start(seating_draw=True)
    roll_for_seating(driver)
    tags = winds(driver)
    east, south, west, north = (tags[f][0] for f in "ESWN")
    said: list[str] = []

    def settle_and_read(hands: dict[int, list[int]]) -> None:
        lay(driver, hands)
        driver.feed(ev.Tick(), after=SETTLE)  # the table reads the zones once more first
        said.append(driver.view().notice)
        assert driver.view().phase is Phase.SEATING, driver.view()
        assert driver.view().fault is None

    settle_and_read({0: [east, south], 1: [], 2: [west], 3: [north]})
    assert "HAND zone of chair E holds 2 tiles" in said[-1]
    settle_and_read({0: [east], 1: [tags["5p"][0]], 2: [west], 3: [north]})
    assert "chair S holds a 5-dot, not a wind tile" in said[-1]
    settle_and_read({0: [east], 1: [tags["E"][1]], 2: [west], 3: [north]})
    assert "chairs E and S both drew the East wind" in said[-1]
    settle_and_read({0: [east], 1: [south], 2: [west], 3: []})
    assert "chair N holds no tile" in said[-1]
    assert not [e for e in driver.effects if isinstance(e, fx.BuildWalls)]

    lay(driver, {0: [east], 1: [south], 2: [west], 3: [north]})
    view = driver.view()
    assert view.phase is Phase.BUILDING
    assert view.players == PLAYERS  # everyone drew his own chair's wind


def test_sichuan_and_shanghai_sessions_start_without_a_seating_draw() -> None:
    for ruleset in ("sichuan", "shanghai"):
        driver = Driver(ruleset)
        out = driver.start(seating_draw=True)
        assert driver.view().phase is Phase.BUILDING
        assert [e for e in out if isinstance(e, fx.BuildWalls)]


def test_a_session_told_to_skip_the_draw_builds_at_once() -> None:
    driver = Driver("zung-jung")
    driver.start(seating_draw=False)
    assert driver.view().phase is Phase.BUILDING


def test_the_mcu_restarting_while_the_seating_dice_roll_keeps_the_first_roll() -> None:
    driver = Driver("zung-jung")
    driver.start(seating_draw=True)
    driver.feed(DicePressed(), after=1.0)
    driver.feed(DiceRolled(3, 4), after=1.0)
    driver.feed(DicePressed(), after=1.0)
    driver.feed(McuOnline(restarted=True, reset_cause="watchdog"), after=0.5)
    view = driver.view()
    assert view.phase is Phase.FAULT
    assert view.fault is not None and "roll the dice" in view.fault
    driver.feed(DicePressed(), after=5.0)  # the technician acknowledges
    view = driver.view()
    assert view.phase is Phase.SEATING and not view.rolling
    assert "the player on chair W presses the dice button" in view.notice
    driver.feed(DicePressed(), after=1.0)
    driver.feed(MotionEnded(Motion.DICE, Outcome.DONE))
    driver.feed(DiceRolled(1, 1), after=0.1)
    assert driver.view().dice == (3, 4, 1, 1)


def test_the_seating_dice_that_never_come_to_rest_are_a_fault() -> None:
    driver = Driver("zung-jung")
    driver.start(seating_draw=True)
    driver.feed(DicePressed(), after=1.0)
    driver.feed(ZoneRead(0, Zone.HAND, frozenset()), after=11.0)
    view = driver.view()
    assert view.phase is Phase.FAULT
    assert view.fault is not None and "dice spinner" in view.fault
