"""The referee's turn and hand clocks: which moves start and stop a seat's turn, and what the
clock events cost (incident records with points). The clocks themselves are
`controller/table/clocks.py`; the referee keeps one `TableClocks` per hand, started at the
first input it takes (the cycle gives it one the moment the deal is checked).

A turn starts at the previous discard (the next seat's), at the claimed discard (a claim takes
the turn from the seat that would have drawn, counted from the discard), after a kong's
replacement draw (a new turn of the same seat), and after a win in a hand that goes on. A
discard ends it. A fault pauses every clock; a win that ends the hand stops them.
"""

from controller.table.clocks import ClockEvent
from controller.table.referee.state import Play


def start(play: Play) -> None:
    """The hand's clocks start now; the dealer is on turn."""
    if play.time.clocks is None:
        clocks = play.time.start(play.ruleset.timing, play.t)
        _note(play, clocks.turn_starts(play.on_turn.place, play.t))


def turn_starts(play: Play, place: int, since: float | None = None) -> None:
    """`place`'s turn starts now (counted from `since`, a claimed discard)."""
    clocks = play.time.clocks
    if clocks is not None:
        _note(play, clocks.turn_starts(place, play.t, since))


def discarded(play: Play, place: int, next_place: int) -> None:
    """`place` discarded: its turn ends and the next seat's starts."""
    clocks = play.time.clocks
    if clocks is not None:
        _note(play, clocks.turn_ends(place, play.t))
        _note(play, clocks.turn_starts(next_place, play.t))


def pause(play: Play) -> None:
    """No clock runs (a fault; once, however often it is said)."""
    clocks = play.time.clocks
    if play.time.pause() and clocks is not None:
        _note(play, clocks.pause(play.t))


def resume(play: Play) -> None:
    """The clocks run again."""
    clocks = play.time.clocks
    if play.time.resume() and clocks is not None:
        clocks.resume(play.t)


def tick(play: Play) -> None:
    """Whatever fell due up to now."""
    clocks = play.time.clocks
    if clocks is not None and not play.over:
        _note(play, clocks.tick(play.t))


def _note(play: Play, events: list[ClockEvent]) -> None:
    clocks = play.time.clocks
    if not events or clocks is None:
        return
    play.time.said(events)
    for record in clocks.incidents(events, play.now):
        play.note(record)
