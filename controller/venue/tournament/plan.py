"""How many hands a tournament session is to play, for the floor's "hand N of M" (pure).

A scheduled round's session plays the stage's hands. A make-up round's session plays the
hands its round was drawn with, which depend on the standings when it was drawn: the draw is
done again from the results of the rounds before it and the director's entries made before
its first hand started.
"""

import re
from collections.abc import Iterable

from controller.errors import UsageError
from controller.hub.contract.result import HandResult
from controller.venue.tournament.definition import Stage, Tournament
from controller.venue.tournament.entries import Entry
from controller.venue.tournament.makeup import makeup_seatings
from controller.venue.tournament.standings import standings

_ROUND = re.compile(r"^r(\d{1,4})\.")


def planned_hands(
    t: Tournament, session: str, results: Iterable[HandResult], entries: Iterable[Entry]
) -> int | None:
    """Hands `session` is to play (None: not a session of this tournament's draws)."""
    for stage in t.stages:
        round_ = _round(t, stage, session)
        if round_ is None:
            continue
        if round_ <= stage.rounds:
            return stage.hands
        return _makeup_hands(t, stage, round_, list(results), list(entries))
    return None


def _round(t: Tournament, stage: Stage, session: str) -> int | None:
    prefix = t.session_prefix(stage.name)
    match = _ROUND.match(session.removeprefix(prefix)) if session.startswith(prefix) else None
    return int(match.group(1)) if match else None


def _makeup_hands(
    t: Tournament, stage: Stage, round_: int, results: list[HandResult], entries: list[Entry]
) -> int | None:
    def later(r: HandResult) -> bool:
        number = _round(t, stage, r.session)
        return number is not None and number >= round_

    began = [r.started_at.timestamp() for r in results if _round(t, stage, r.session) == round_]
    before = [r for r in results if not later(r)]
    known = [e for e in entries if not began or e.at < min(began)]
    report = standings(t, before, known)
    try:
        return makeup_seatings(t, stage, report.stages[stage.name], before, round_)[1]
    except UsageError:
        return None
