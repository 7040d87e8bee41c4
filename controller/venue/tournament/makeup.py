"""Make-up rounds of an open-ended qualifying (pure: standings in, session starts out).

The Shanghai qualifying counts a player's score once they have played the minimum number of
hands, and keeps matching players until they have. After a stage's scheduled rounds, each
make-up round seats the players still under the minimum (without an override), fills the
last table with players who have the minimum and the fewest hands (then the seeded lot),
avoids pairs who already met in the stage, and plays just the hands the neediest lacks.
"""

import random
from collections.abc import Sequence

from controller.errors import UsageError
from controller.hub.contract.result import HandResult
from controller.venue.tournament.definition import Stage, Tournament
from controller.venue.tournament.draw import Seating, draw_one_round, meetings
from controller.venue.tournament.standings import Line, lot


def makeup_seatings(
    t: Tournament, stage: Stage, lines: Sequence[Line], played: Sequence[HandResult], round_: int
) -> tuple[list[Seating], int]:
    """The tables of make-up round `round_` and its hands per session; UsageError when
    nobody needs hands (or too many need them for the tables)."""
    needing = [x for x in lines if x.hands < stage.qualifying_minimum and not x.override]
    if not stage.qualifying_minimum or not needing:
        raise UsageError(
            f"every player of stage {stage.name} has the qualifying minimum "
            f"({stage.qualifying_minimum} hands) or an override: no make-up round is needed"
        )
    seats = 4 * min(len(t.tournament.tables), -(-len(needing) // 4))
    chosen = sorted(needing, key=lambda x: (x.hands, lot(t.tournament.seed, x.player)))[:seats]
    others = sorted(
        (x for x in lines if x.hands >= stage.qualifying_minimum),
        key=lambda x: (x.hands, lot(t.tournament.seed, x.player)),
    )
    chosen += others[: seats - len(chosen)]
    if len(chosen) % 4:
        raise UsageError(f"only {len(chosen)} players can be seated: a table needs four")
    by_session: dict[str, list[HandResult]] = {}
    for r in played:
        by_session.setdefault(r.session, []).append(r)
    met = meetings([[_seating(rs[0])] for rs in by_session.values()])
    rng = random.Random(t.tournament.seed * 1000 + round_)
    tables = draw_one_round([x.player for x in chosen], rng, met)
    hands = max(stage.qualifying_minimum - x.hands for x in chosen if x in needing)
    return tables, hands


def _seating(r: HandResult) -> Seating:
    players = [e.player for e in sorted(r.seats, key=lambda e: e.seat)]
    return (players[0], players[1], players[2], players[3])
