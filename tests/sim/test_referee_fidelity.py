"""Fidelity of the referee against the truth: sloppy simulated players (every kind of slip,
full play: claims, kongs, robbing, shared wins) on the simulated table with 2% RFID antenna
misses injected, the daemon refereeing on virtual time. Every slip a player made must come
back as an incident of its kind for its seat and hand (recall), every incident must answer
a slip (precision), and the referee must see no move that was not made (phantom moves).

Print the figures: `.venv/bin/pytest tests/sim/test_referee_fidelity.py -q -s`."""

import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

from controller.rules import format_tiles, parse_tiles
from controller.sim.mistakes import SLOPPY
from controller.sim.moves import Move as PlayerMove
from controller.sim.moves import MoveKind as PlayerKind
from controller.sim.moves import Slip, SlipKind
from controller.sim.players import FULL_PLAY
from controller.table.cycle import Phase
from controller.table.records import FinishedHand, IncidentKind
from controller.table.referee import MoveKind
from firmware_bridge.messages import Zone
from firmware_bridge.sim.faults import Faults
from tests.sim.rig import Rig

HANDS = int(os.environ.get("FIDELITY_HANDS", "100"))
"""Hands per run."""

REPORTED_AS = {
    SlipKind.SLOW_TURN: {IncidentKind.TURN_TIME, IncidentKind.HAND_TIME},
    SlipKind.FALSE_WIN: {IncidentKind.FALSE_WIN},
    SlipKind.DRAW_OUT_OF_TURN: {IncidentKind.DRAW_OUT_OF_TURN},
    SlipKind.SHORT_HAND: {IncidentKind.SHORT_HAND},
    SlipKind.LONG_HAND: {IncidentKind.LONG_HAND},
    SlipKind.LATE_CLAIM: {IncidentKind.LATE_CLAIM},
    SlipKind.WRONG_SEAT_CHOW: {IncidentKind.WRONG_CLAIM},
    SlipKind.PENALTY_SET: {IncidentKind.PENALTY_TILE_USED},
    SlipKind.CLAIM_RACE: {IncidentKind.CLAIM_VOID},
}
"""The incident kinds a slip is reported as (a slow turn: one per penalty step)."""
FOLLOWS = {
    IncidentKind.RIGHT_LOST: {SlipKind.SHORT_HAND, SlipKind.LONG_HAND, SlipKind.DRAW_OUT_OF_TURN},
    IncidentKind.TIME_FORFEIT: {SlipKind.SLOW_TURN},
}
"""Incidents that are the consequence of an earlier slip of the same seat in the hand (a
declaration refused after a short or long hand)."""
ONCE = {k for k in SlipKind if k is not SlipKind.SLOW_TURN}
SAME_MOVE = {
    PlayerKind.DRAW: MoveKind.DRAW,
    PlayerKind.REPLACEMENT: MoveKind.REPLACEMENT,
    PlayerKind.FLOWER: MoveKind.FLOWER,
    PlayerKind.DISCARD: MoveKind.DISCARD,
    PlayerKind.CHOW: MoveKind.CHOW,
    PlayerKind.PUNG: MoveKind.PUNG,
    PlayerKind.EXPOSED_KONG: MoveKind.EXPOSED_KONG,
    PlayerKind.ADDED_KONG: MoveKind.ADDED_KONG,
    PlayerKind.CONCEALED_KONG: MoveKind.CONCEALED_KONG,
    PlayerKind.ROB_KONG: MoveKind.ROB_KONG,
    PlayerKind.TAKE_DISCARD: MoveKind.TAKE_FOR_WIN,
}
"""The referee's name for each move a player makes with the tiles (a declare is no move)."""

MoveKey = tuple[int, int, MoveKind, str]
"""(hand, seat, move, tiles): a move as both sides can name it."""


def made_moves(moves: Sequence[PlayerMove], slips: Sequence[Slip]) -> Counter[MoveKey]:
    """What the players did with the tiles; a late claim is no move (the referee refuses it
    and the tiles go back), an added kong names its four tiles."""
    late = {(s.hand, s.move_index) for s in slips if s.kind is SlipKind.LATE_CLAIM}
    index: Counter[int] = Counter()
    made: Counter[MoveKey] = Counter()
    for move in moves:
        at = index[move.hand]
        index[move.hand] += 1
        kind = SAME_MOVE.get(move.kind)
        if kind is None or (move.kind is PlayerKind.PUNG and (move.hand, at) in late):
            continue
        tiles = parse_tiles(move.tiles) * (4 if kind is MoveKind.ADDED_KONG else 1)
        made[(move.hand, move.place, kind, format_tiles(sorted(tiles)))] += 1
    return made


def seen_moves(results: Sequence[FinishedHand]) -> Counter[MoveKey]:
    """What the referee says was done with the tiles (its wins left out)."""
    seen: Counter[MoveKey] = Counter()
    for result in results:
        assert result.play is not None
        for move in result.play.moves:
            if move.kind is not MoveKind.WIN:
                tiles = format_tiles(sorted(move.tiles))
                seen[(result.start.hand, move.place, move.kind, tiles)] += 1
    return seen


@pytest.mark.slow
@pytest.mark.starvable
@pytest.mark.timeout(300)  # 100 hands: about 40 s on a quiet 2-core machine
@pytest.mark.parametrize("miss", [0.0, 0.02])
async def test_every_slip_is_reported_once_and_nothing_else(
    miss: float, tmp_path: Path, pins: MockFactory
) -> None:
    # Slow turns run 20 s past the limit: longer than the 15 s after the deal that count on
    # no clock, so every one of them is over the limit on the table's clock too.
    sloppy = replace(SLOPPY, seed=7, slow_by_s=20.0)
    # People take time to move a tile (here half a second of table time): longer than the
    # readers' poll, so an antenna miss is read again before the next move is made.
    habits = replace(FULL_PLAY, sloppy=sloppy, wait_for_referee=False, move_s=0.5)
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
    # phantom moves: moves the referee saw that nobody made (and, beside them, moves made
    # that it did not see)
    done = made_moves(rig.players.moves, rig.players.slips)
    followed = seen_moves(rig.sink.results)
    phantom, unseen = followed - done, done - followed
    print(
        f"\nfidelity over {len(rig.sink.results)} hands, {miss:.0%} antenna misses: "
        f"{sum(slips.values())} slips ({dict(Counter(k for _, _, k in slips.elements()))}), "
        f"{len(incidents)} incidents; recall {recall:.1%}, precision {precision:.1%}; "
        f"{done.total()} moves made, {phantom.total()} phantom moves, "
        f"{unseen.total()} moves not seen"
    )
    assert len(rig.sink.results) == HANDS
    assert truth > 20 and {k for _, _, k in made} == set(SlipKind), "every kind of slip"
    assert missed == [], f"slips the referee did not report (once): {missed[:10]}"
    assert unanswered == [], f"incidents no slip explains: {unanswered[:10]}"
    assert phantom.total() == 0, f"moves nobody made: {list(phantom)[:10]}"
    assert unseen.total() == 0, f"moves the referee did not see: {list(unseen)[:10]}"
