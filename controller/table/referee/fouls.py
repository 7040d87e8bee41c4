"""Irregularities the referee tells from the moves: a seat holding too few or too many tiles
after a settled move (short and long hand, each said once a hand), a false win (its points,
its penalty tiles), a win, claim or kong by a seat that lost the right to it. The costs and
the wording are `controller/table/irregularities.py`; this module decides when they apply and
keeps each seat's rights."""

from collections.abc import Iterable
from dataclasses import replace

from controller.table.incidents import IncidentKind
from controller.table.irregularities import (
    Incident,
    Rights,
    count_incident,
    false_win_incident,
    unknown_tags,
    unknown_tile_incident,
)
from controller.table.referee.events import MoveKind
from controller.table.referee.state import Play
from controller.table.referee.turn import Need
from controller.table.rulings import Ruling
from controller.table.tiles import seat_name


def report(play: Play, incident: Incident) -> None:
    """Record a typed incident; the seat loses what it costs."""
    if incident.seat is not None:
        play.standing.lose(incident.seat, incident.cost.loses)
    play.note(incident.record())


def foreign_tags(play: Play, place: int, uids: Iterable[int]) -> None:
    """Tags in a seat's zone that are in no tile set: they are no tiles; each is said once,
    when a read again asked since still shows it (`say_foreign`)."""
    new = [uid for uid in unknown_tags(uids, play.tiles) if uid not in play.foreign]
    if new:
        play.foreign_found(new, place)


def say_foreign(play: Play) -> None:
    """Tags in no tile set that a read again asked after they were first read still shows are
    said, one incident per seat (R-SENSOR-3). Those read nowhere any more came from a damaged
    read (one that a line's checksum let through): they are forgotten, never said."""
    unsaid = play.foreign_unsaid
    if not unsaid:
        return
    read = frozenset().union(*play.zones.values())
    play.foreign_misread([uid for uid in unsaid if uid not in read])
    done = play.waits.read_done
    if done is None:
        return
    confirmed: dict[int, list[int]] = {}
    for uid, (place, since) in unsaid.items():
        if done >= since:
            confirmed.setdefault(place, []).append(uid)
    for place, uids in confirmed.items():
        play.foreign_said(uids)
        report(play, unknown_tile_incident(place, play.now, uids))


def foreign_since(play: Play) -> float | None:
    """Since when tags in no tile set wait for a read again to be said (None: none do)."""
    return min((since for _, since in play.foreign_unsaid.values()), default=None)


def check_count(play: Play, place: int) -> None:
    """After a settled move of `place`: short or long hand (said once; the rights go)."""
    if place in play.standing.miscounted or not play.in_play(place):
        return
    seat = play.seats[place]
    to_throw = play.on_turn.place == place and play.on_turn.need is Need.DISCARD
    incident = count_incident(
        place,
        play.now,
        play.kinds(seat.concealed),
        len(seat.melds),
        to_throw,
        play.ruleset.penalties,
        _miscount_ruling(play, place),
    )
    if incident is not None:
        play.standing.miscount_said(place)
        report(play, incident)


def _miscount_ruling(play: Play, place: int) -> Ruling | None:
    """A second discard in one turn (R-COUNT-4); else the count's own default row."""
    own = [m.kind for m in play.moves if m.place == place][-2:]
    return Ruling.SECOND_DISCARD if own == [MoveKind.DISCARD] * 2 else None


def may(play: Play, place: int, right: Rights, what: str) -> bool:
    """Whether the seat still has the right; if not, the attempt is an incident."""
    if right in play.rights[place]:
        return True
    play.incident(
        place,
        IncidentKind.RIGHT_LOST,
        f"seat {seat_name(place)} lost the right to {what} this hand: {what} refused",
        ruling=Ruling.RIGHT_LOST,
    )
    return False


def false_win(play: Play, place: int, reason: str, ruling: Ruling = Ruling.FALSE_WIN) -> None:
    """A declared win that is not one: its points; the hand's tiles become penalty tiles."""
    seat = play.seats[place]
    exposed = sorted(seat.concealed)
    incident = false_win_incident(
        place, play.now, play.kinds(exposed), reason, play.ruleset.penalties
    )
    report(play, replace(incident, ruling=ruling))
    play.standing.expose(place, exposed)


def discarded(play: Play, place: int, uid: int) -> None:
    """A discard ends the live penalty tiles of the seat (unless it was one of them)."""
    play.standing.discarded(place, uid)
