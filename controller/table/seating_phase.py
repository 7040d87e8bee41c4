"""Transitions of the seating draw (seed 003, 執位) before a session's first hand: two rolls
of the table's dice pick who takes the first wind tile, the players lay the winds they drew
in their HAND zones, and once the zones settle with one wind each the table seats them and
builds the first hand's walls (lowering the platform takes the wind tiles back).

A draw the table cannot read (a chair with no tile or two, a tile that is not a wind, a wind
twice) is said on the status in plain words, and the table waits for it to be put right.
"""

from controller.rules.seats import Seat, dice_seat
from controller.table import effects as fx
from controller.table.core import CycleState, InSession, Phase
from controller.table.ports import Beep, DiceRolled, Motion, Zone
from controller.table.seating import (
    FIRST_ROLLER,
    DrawOrder,
    SeatingDraw,
    SeatingError,
    read_draw,
    session_start,
)
from controller.table.tiles import seat_name


def begin(cycle: CycleState, stage: InSession) -> None:
    """Ask for the seating draw (again, after a fault: the rolls made so far stand)."""
    seating = stage.seating
    seating.rolling = False
    seating.said = ""
    cycle.enter(Phase.SEATING)
    cycle.show_turn(None)
    cycle.say("info", f"seating draw: {prompt(seating)}")


def prompt(seating: SeatingDraw) -> str:
    """What the players are to do next for the seating draw."""
    order = seating.order
    if order is not None:
        return take_words(order)
    if seating.dice:
        roller = dice_seat(Seat(FIRST_ROLLER), sum(seating.dice[:2]))
        return f"the player on chair {seat_name(roller)} presses the dice button"
    return (
        "lay the four wind tiles face down in a row, an odd and an even tile at its ends; "
        f"the player on chair {seat_name(FIRST_ROLLER)} presses the dice button"
    )


def take_words(order: DrawOrder) -> str:
    """Who takes the wind tiles, in which order, from which end of the row."""
    end = "odd" if order.from_odd_end else "even"
    takers = ", ".join(seat_name(c) for c in order.takers)
    return (
        f"each player takes one wind tile into his HAND zone, chairs {takers} in turn, "
        f"from the {end} end of the row"
    )


def press_dice(cycle: CycleState) -> None:
    """The dice button during the seating draw: roll, while a roll is still due."""
    seating = cycle.seating
    if cycle.phase is not Phase.SEATING or seating is None or seating.rolling:
        return
    if seating.order is not None:
        cycle.say("info", f"seating draw: {prompt(seating)}")  # both rolls are in
        return
    seating.rolling = True
    cycle.move(fx.RollDice(cycle.limit(cycle.settings.dice_timeout_s)), Motion.DICE)
    cycle.enter(Phase.SEATING)  # the dice's time limit counts from this press


def on_dice(cycle: CycleState, event: DiceRolled) -> None:
    """The dice came to rest: the first roll names who rolls again, the second who takes
    the first wind tile and from which end of the row."""
    seating = cycle.seating
    if cycle.phase is not Phase.SEATING or seating is None or not seating.rolling:
        return
    seating.rolling = False
    seating.dice.extend((event.d1, event.d2))
    cycle.say("info", f"seating draw: dice {event.d1}+{event.d2}: {prompt(seating)}")


def check_when_settled(cycle: CycleState) -> bool:
    """Once the HAND zones are quiet, read the draw: seat the players (True: the first hand
    may start), or say what is wrong and wait for it to be put right."""
    stage, seating = cycle.stage, cycle.seating
    if not isinstance(stage, InSession) or seating is None:
        return False
    order = seating.order
    if cycle.phase is not Phase.SEATING or order is None:
        return False
    if cycle.t - cycle.board.last_change < cycle.settings.settle_s:
        return False
    hands = {chair: cycle.board.tiles(chair, Zone.HAND) for chair in range(4)}
    if not any(hands.values()):
        return False  # nobody has laid a tile down yet
    try:
        drawn = read_draw(hands, stage.tiles)
    except SeatingError as error:
        if cycle.reread_at != cycle.board.last_change:
            # An antenna may have missed a tag: read once more before telling the players.
            cycle.reread_at = cycle.board.last_change
            cycle.emit(fx.ReadZones(cycle.t))
            return False
        text = f"seating draw: {error}"
        if text != seating.said:
            seating.said = text
            cycle.emit(fx.Sound(Beep.WARNING))
            cycle.say("warning", text)
        return False
    _seat(cycle, stage, drawn, order)
    return True


def _seat(cycle: CycleState, stage: InSession, drawn: tuple[Seat, ...], order: DrawOrder) -> None:
    session = stage.session
    plan = session.plan
    start = session_start(plan.id, session.ruleset.name, plan.players, drawn, order, cycle.now)
    session.seat(start)
    chairs = ", ".join(f"{seat_name(c)} {p}" for c, p in enumerate(start.players))
    cycle.say(
        "info",
        f"seated by the draw: {chairs}; {start.players[start.dealer]} deals first. "
        "Take your chairs; the wind tiles go down with the platform",
    )
