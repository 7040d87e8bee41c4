"""Fidelity of the referee against the truth: sloppy simulated players (every kind of slip,
full play: claims, kongs, robbing, shared wins) on the simulated table with 2% RFID antenna
misses injected, the daemon refereeing on virtual time. Every slip a player made must come
back as an incident of its kind for its seat and hand (recall), every incident must answer
a slip (precision), and the referee must see no move that was not made (phantom moves).

Print the figures: `.venv/bin/pytest tests/sim/test_referee_fidelity.py -q -s`."""

import os
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

from controller.sim.mistakes import SLOPPY
from controller.sim.moves import SlipKind
from controller.sim.players import FULL_PLAY
from controller.table.cycle import Phase
from controller.table.records import IncidentKind
from firmware_bridge.messages import Zone
from firmware_bridge.sim.faults import Faults
from tests.sim.rig import Rig

HANDS = int(os.environ.get("FIDELITY_HANDS", "30"))
"""Hands per run (100 for the full figure: `FIDELITY_HANDS=100`)."""

REPORTED_AS = {
    SlipKind.SLOW_TURN: {IncidentKind.TURN_TIME, IncidentKind.HAND_TIME},
    SlipKind.FALSE_WIN: {IncidentKind.FALSE_WIN},
    SlipKind.DRAW_OUT_OF_TURN: {IncidentKind.DRAW_OUT_OF_TURN},
    SlipKind.SHORT_HAND: {IncidentKind.SHORT_HAND},
    SlipKind.LONG_HAND: {IncidentKind.LONG_HAND},
    SlipKind.LATE_CLAIM: {IncidentKind.LATE_CLAIM},
}
"""The incident kinds a slip is reported as (a slow turn: one per penalty step)."""
FOLLOWS = {
    IncidentKind.RIGHT_LOST: {SlipKind.SHORT_HAND, SlipKind.LONG_HAND, SlipKind.LATE_CLAIM},
    IncidentKind.PENALTY_TILE_USED: {SlipKind.FALSE_WIN},
    IncidentKind.TIME_FORFEIT: {SlipKind.SLOW_TURN},
}
"""Incidents that are the consequence of an earlier slip of the same seat in the hand (a
declaration refused after a short hand, a false winner's penalty tile in a set)."""
ONCE = {k for k in SlipKind if k is not SlipKind.SLOW_TURN}


@pytest.mark.xfail(
    strict=True,
    reason="not there yet: after some slips (a late claim, a draw out of turn) the referee's "
    "wall falls one tile behind the players' and later draws read as wrong-wall draws",
)
@pytest.mark.parametrize("miss", [0.0, 0.02])
async def test_every_slip_is_reported_once_and_nothing_else(
    miss: float, tmp_path: Path, pins: MockFactory
) -> None:
    # Slow turns run 20 s past the limit: longer than the 15 s after the deal that count on
    # no clock, so every one of them is over the limit on the table's clock too.
    sloppy = replace(SLOPPY, seed=7, slow_by_s=20.0)
    habits = replace(FULL_PLAY, sloppy=sloppy, wait_for_referee=False)
    faults = Faults(zone_miss=dict.fromkeys(Zone, miss))
    async with Rig(tmp_path, "zung-jung", hands=HANDS, seed=3, habits=habits, faults=faults) as rig:
        view = await rig.until(
            lambda view: view.phase in (Phase.SESSION_OVER, Phase.FAULT), limit=HANDS * 2000.0
        )
    assert view.phase is Phase.SESSION_OVER, view.fault
    slips = Counter((s.hand, s.place, s.kind) for s in rig.players.slips)
    made = {(hand, place, kind) for hand, place, kind in slips}
    incidents = [(r.start.hand, i.place, i.kind) for r in rig.sink.results for i in r.incidents]
    # recall: each slip comes back (once, but a slow turn as one incident per step)
    reported = Counter(incidents)
    missed = []
    for (hand, place, kind), count in slips.items():
        seen = sum(reported[(hand, place, k)] for k in REPORTED_AS[kind])
        if seen == 0 or (kind in ONCE and seen != count):
            missed.append(((hand, place, kind), count, seen))
    # precision: each incident answers a slip of that seat in that hand
    unanswered = []
    for number, seat, said in incidents:
        answers = {s for s, kinds in REPORTED_AS.items() if said in kinds}
        answers |= FOLLOWS.get(said, set())
        if not any((number, seat, s) in made for s in answers):
            unanswered.append((number, seat, said))
    truth = len(slips)
    recall = 1 - len(missed) / truth if truth else 1.0
    precision = 1 - len(unanswered) / len(incidents) if incidents else 1.0
    print(
        f"\nfidelity over {len(rig.sink.results)} hands, {miss:.0%} antenna misses: "
        f"{sum(slips.values())} slips ({dict(Counter(k for _, _, k in slips.elements()))}), "
        f"{len(incidents)} incidents; recall {recall:.1%}, precision {precision:.1%}"
    )
    assert len(rig.sink.results) == HANDS
    assert truth > 20 and {k for _, _, k in made} == set(SlipKind), "every kind of slip"
    print("not reported:", missed[:10])
    print("not injected:", dict(Counter(k for _, _, k in unanswered)))
    assert missed == [], "slips the referee did not report (once)"
    assert unanswered == [], "incidents no slip explains"
