"""Property: whatever legal moves players make (draws, flowers, kongs, pungs, wins, false
declarations, in any order the rules allow), every settlement of the hand sums to zero, no
move goes unexplained, and the black box replays to the same result."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from controller.rules import Win, WinType, format_tiles, get_ruleset
from controller.rules.tiles import is_flower
from controller.sim.brain import choose_discard
from controller.table.ports import Zone
from controller.table.records import IncidentKind
from controller.table.referee.blackbox import read, replay
from controller.table.referee.result import result_json
from controller.table.referee.turn import Need
from tests.table.scripted import Table

ALLOWED = {
    IncidentKind.FALSE_WIN,
    IncidentKind.WIN_PASSED,
    IncidentKind.HEAD_BUMP,
    IncidentKind.PENALTY_TILE_USED,  # a false winner's tiles in a later set of its own
}


def dealt_hands(ruleset: str, rng: random.Random) -> dict[int, str]:
    kinds = [t.kind for t in get_ruleset(ruleset).tiles.physical() if not is_flower(t.kind)]
    rng.shuffle(kinds)
    return {0: format_tiles(kinds[:14])} | {
        p: format_tiles(kinds[14 + 13 * (p - 1) : 14 + 13 * p]) for p in (1, 2, 3)
    }


def wins_on(table: Table, place: int, uid: int, self_drawn: bool) -> bool:
    play = table.referee.play
    seat = play.seats[place]
    held = set(seat.concealed) | {uid}
    kinds = sorted(play.kinds(held))
    melds = tuple(r.meld(play.tiles) for r in seat.melds)
    win_type = WinType.SELF_DRAW if self_drawn else WinType.DISCARD
    try:
        win = Win(tuple(kinds), melds, play.tiles.kind(uid) or 0, win_type, play.seat_of(place))
        return play.ruleset.score(win).valid
    except Exception:
        return False


def play_randomly(table: Table, rng: random.Random) -> None:
    referee, play = table.referee, table.referee.play
    for _ in range(400):
        if referee.over:
            return
        place = referee.turn
        assert place is not None
        if play.need is Need.DRAW and play.wall.remaining == 0:
            table.wait(3.1)
            continue
        if play.need is not Need.DISCARD:
            uid = table.draw(place) if play.need is Need.DRAW else table.replace(place)
            if is_flower(table.tiles.kind(uid) or 0):
                table.move([uid], place, Zone.MELD)
                continue
            if wins_on(table, place, uid, True) and rng.random() < 0.8:
                table.declare(place)
                table.wait(2.0)
                continue
            if rng.random() < 0.02:
                table.declare(place)
                table.wait(2.0)
        hand = sorted(table.zones[(place, Zone.HAND)])
        counts: dict[int, list[int]] = {}
        for u in hand:
            counts.setdefault(table.tiles.kind(u) or 0, []).append(u)
        four = [us for us in counts.values() if len(us) == 4]
        if four and play.wall.remaining and rng.random() < 0.5:
            table.move(four[0], place, Zone.MELD)
            continue
        uid = rng.choice(hand)
        if rng.random() < 0.9:
            kinds = [k for k in table.tiles.kinds(hand) if not is_flower(k)]
            kind = choose_discard(kinds, play.ruleset)
            uid = next(u for u in hand if table.tiles.kind(u) == kind)
        table.move([uid], place, Zone.DISCARD)
        _others(table, place, uid, rng)


def _others(table: Table, source: int, uid: int, rng: random.Random) -> None:
    play = table.referee.play
    kind = table.tiles.kind(uid)
    order = [(source + s) % 4 for s in (1, 2, 3) if play.in_play((source + s) % 4)]
    winners = [p for p in order if wins_on(table, p, uid, False) and rng.random() < 0.8]
    if winners:
        for place in winners:
            table.declare(place)
        table.wait(3.1)
        return
    for place in order:
        pair = [u for u in sorted(table.zones[(place, Zone.HAND)]) if table.tiles.kind(u) == kind]
        if len(pair) >= 2 and play.wall.remaining and rng.random() < 0.4:
            table.move([uid, *pair[:2]], place, Zone.MELD)
            return


@settings(max_examples=12, deadline=None)
@given(
    ruleset=st.sampled_from(["zung-jung", "sichuan", "shanghai"]),
    seed=st.integers(min_value=0, max_value=2**32 - 1),
)
def test_random_legal_play_settles_to_zero_and_replays_identically(ruleset: str, seed: int) -> None:
    rng = random.Random(seed)
    table = Table(ruleset, dealt_hands(ruleset, rng))
    play_randomly(table, rng)
    assert table.referee.over, "a hand ends by itself"
    result = table.result
    assert all(sum(p.amounts) == 0 for p in result.payments)
    assert {i.kind for i in result.incidents} <= ALLOWED
    setup, inputs = read(table.box.lines)
    _, again = replay(setup, inputs)
    assert again is not None and result_json(again) == result_json(result)
