"""The simulated players' quick check before scoring a hand: it must never say no to a hand the
rules engine scores as a win (a player would then miss a win it holds), in every ruleset and
in the ruleset's own shapes too (Shanghai's Jumbled Winds and Eight Flowers need no shape)."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.rules import RULESET_NAMES, Meld, MeldKind, Seat, get_ruleset
from controller.rules.tiles import FLOWER_BASE, FLOWERS, is_suited
from controller.sim.brain import may_win, wins

HONOURS = range(27, 34)
Hand = tuple[list[int], list[Meld], list[int]]
"""Concealed tiles (the last one wins), declared sets, flowers."""


def a_hand(name: str, rng: random.Random) -> Hand:
    """A hand of the ruleset's tiles: half of them built as sets and a pair, half drawn at
    random; some of honours alone (no shape needed in Shanghai), with no, some or all flowers."""
    ruleset = get_ruleset(name)
    kinds = sorted(ruleset.tiles.kinds)
    honours = [k for k in HONOURS if k in ruleset.tiles.kinds]
    pool = honours if honours and rng.random() < 0.3 else kinds
    melds = [Meld(MeldKind.PUNG, (k,) * 3) for k in rng.sample(pool, rng.choice([0, 0, 1, 2]))]
    left = {k: ruleset.tiles.copies - 3 * any(k in m.tiles for m in melds) for k in pool}
    concealed: list[int] = []
    if rng.random() < 0.5:  # sets and a pair
        for size in [3] * (4 - len(melds)) + [2]:
            kind = rng.choice(pool)
            run = is_suited(kind) and kind % 9 <= 6 and size == 3 and rng.random() < 0.5
            tiles = [kind, kind + 1, kind + 2] if run else [kind] * size
            if all(left.get(t, 0) >= tiles.count(t) for t in tiles):
                for t in tiles:
                    left[t] -= 1
                concealed += tiles
    wall = [k for k, n in left.items() for _ in range(n)]
    concealed += rng.sample(wall, 14 - 3 * len(melds) - len(concealed))
    flowers = list(range(FLOWER_BASE, FLOWER_BASE + rng.choice([0, 2, FLOWERS])))
    return concealed, melds, flowers if ruleset.tiles.flowers else []


def _wins(name: str, hand: Hand) -> bool:
    concealed, melds, flowers = hand
    ruleset = get_ruleset(name)
    return wins(
        ruleset,
        concealed,
        concealed[-1],
        self_drawn=True,
        seat=Seat.S,
        flowers=flowers,
        melds=melds,
    )


@settings(max_examples=300)
@given(st.sampled_from(RULESET_NAMES), st.randoms(use_true_random=False))
def test_the_quick_check_never_says_no_to_a_win(name: str, rng: random.Random) -> None:
    hand = a_hand(name, rng)
    assert may_win(get_ruleset(name), *hand) or not _wins(name, hand)


@pytest.mark.parametrize("name", RULESET_NAMES)
def test_the_hands_checked_hold_wins_and_the_quick_check_passes_each(name: str) -> None:
    rng = random.Random(name)
    hands = [a_hand(name, rng) for _ in range(300)]
    won = [hand for hand in hands if _wins(name, hand)]
    assert len(won) >= 30, "the property above would say little"
    assert all(may_win(get_ruleset(name), *hand) for hand in won)


def test_jumbled_winds_may_win_in_shanghai_and_a_jumble_of_suits_may_not() -> None:
    shanghai = get_ruleset("shanghai")
    winds = [27, 27, 27, 28, 29, 30, 31, 32, 33, 28, 29, 30, 31, 32]  # no shape at all
    assert may_win(shanghai, winds)
    assert wins(shanghai, winds, winds[-1], self_drawn=True, seat=Seat.S)
    jumble = [0, 4, 8, 10, 14, 18, 22, 26, 27, 28, 29, 30, 31, 32]
    assert not may_win(shanghai, jumble)
    assert not may_win(get_ruleset("zung-jung"), winds)
