"""Pattern gates and the shortcuts of scoring never change a score.

A gate (`needs`) keeps a predicate from being asked when its features are missing; a gate
that decides a pattern stands in for its predicate. On random hands of every ruleset: no
gate hides a pattern that is there, every deciding gate agrees with its predicate, and
scoring each reading once (no pattern reads where the winning tile sits) gives the same
score as scoring every place of the winning tile.
"""

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from controller.rules import (
    RULESET_NAMES,
    Feature,
    HandView,
    Meld,
    MeldKind,
    Seat,
    Win,
    WinType,
    get_ruleset,
)
from controller.rules.tiles import is_orphan

_FACES = ([0, 3, 6], [0, 8], [2, 3, 4], [1, 4, 7], [0, 1, 2, 3])
"""Faces (0-8: ones to nines) a hand may keep to, so that straights, terminal, consecutive
and 2-5-8 sets come up often; other hands take one to three random faces."""


def random_win(rng: random.Random) -> tuple[str, Win]:
    """A ruleset and a winning-shaped hand of its tiles: sets and a pair (some of them
    declared) or seven pairs, from one to three suits and a few faces."""
    name = rng.choice(RULESET_NAMES)
    ruleset = get_ruleset(name)
    playable = [s for s in range(4) if 9 * s in ruleset.tiles.kinds]
    suits = rng.sample(playable, rng.randint(1, min(3, len(playable))))
    faces = rng.choice(_FACES) if rng.random() < 0.4 else rng.sample(range(9), rng.randint(1, 3))
    while True:
        if rng.random() < 0.2:
            sets = [[_kind(rng, suits, faces)] * 2 for _ in range(7)]
        else:
            sets = [_set(rng, suits, faces) for _ in range(4)] + [[_kind(rng, suits, faces)] * 2]
            if rng.random() < 0.3:
                for place, tiles in _figure(rng).items():
                    sets[place] = tiles
        held = Counter(tile for tiles in sets for tile in tiles)
        if max(held.values()) <= 4:
            break
        faces = sorted({*faces, rng.randrange(9)})  # too few kinds for the sets: add one
    declared = rng.randint(0, 4) if len(sets) == 5 and rng.random() < 0.5 else 0
    melds = tuple(_meld(rng, tiles, held[tiles[0]] == 3) for tiles in sets[:declared])
    concealed = [tile for tiles in sets[declared:] for tile in tiles]
    rng.shuffle(concealed)
    flowers = ruleset.tiles.flowers
    held_flowers = tuple(rng.sample(flowers, rng.randint(0, len(flowers))))
    how = rng.choice([WinType.DISCARD, WinType.SELF_DRAW, WinType.LAST_TILE])
    if flowers and len(held_flowers) == len(flowers):
        how = WinType.SELF_DRAW  # all the flowers win at once, never on a discard
    return name, Win(
        tuple(concealed),
        melds,
        rng.choice(concealed),
        how,
        rng.choice(list(Seat)),
        flowers=held_flowers,
    )


def _kind(rng: random.Random, suits: list[int], faces: list[int]) -> int:
    suit, face = rng.choice(suits), rng.choice(faces)
    return 27 + face % 7 if suit == 3 else 9 * suit + face


def _set(rng: random.Random, suits: list[int], faces: list[int]) -> list[int]:
    """A chow or a pung."""
    numbered = [suit for suit in suits if suit < 3]
    if numbered and rng.random() < 0.5:
        low = 9 * rng.choice(numbered) + min(rng.choice(faces), 6)
        return [low, low + 1, low + 2]
    return [_kind(rng, suits, faces)] * 3


def _figure(rng: random.Random) -> dict[int, list[int]]:
    """Sets in a figure, by place among the four sets and the pair (4): similar sets (one
    number in each suit, or two pungs and the pair), a straight, consecutive pungs, or
    identical chows."""
    suit, face = rng.randrange(3), rng.randrange(7)
    figures = [
        [[9 * s + face + i for i in range(3)] for s in range(3)],
        [[9 * s + face] * 3 for s in range(3)],
        [[9 * s + face] * 3 for s in range(2)] + [[], [], [18 + face] * 2],
        [[9 * suit + low + i for i in range(3)] for low in (0, 3, 6)],
        [[9 * suit + face + step] * 3 for step in range(3)],
        [[9 * suit + face + i for i in range(3)]] * 3,
    ]
    return {place: tiles for place, tiles in enumerate(rng.choice(figures)) if tiles}


def _meld(rng: random.Random, tiles: list[int], fourth_free: bool) -> Meld:
    """The set declared: a chow, or a pung (a kong if the fourth tile is not in the hand)."""
    if tiles[0] != tiles[1]:
        return Meld(MeldKind.CHOW, tuple(tiles))
    kinds = [MeldKind.PUNG] + [MeldKind.KONG, MeldKind.CONCEALED_KONG] * fourth_free
    kind = rng.choice(kinds)
    return Meld(kind, tuple(tiles[:1] * (3 if kind is MeldKind.PUNG else 4)))


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32))
def test_no_gate_hides_a_pattern_and_deciding_gates_agree(seed: int) -> None:
    name, win = random_win(random.Random(seed))
    ruleset = get_ruleset(name)
    views = ruleset.views(win)
    for view in views:
        for spec in ruleset.patterns:
            if view.form not in spec.forms:
                continue
            times = spec.predicate(view)
            opens = spec.gate.opens(view.features)
            assert opens or not times, (spec.name, view.arrangement.describe())
            if spec.gate.decides:
                assert times == opens, (spec.name, view.arrangement.describe())


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32))
def test_scoring_each_reading_once_gives_the_score_of_every_place(seed: int) -> None:
    name, win = random_win(random.Random(seed))
    ruleset = get_ruleset(name)
    assert not ruleset.scores_the_wait
    every_place = type("EveryPlace", (type(ruleset),), {"scores_the_wait": True})(ruleset.data)
    assert ruleset.score(win) == every_place.score(win)


def _features_in_words(view: HandView) -> Feature:
    """The features of an arrangement, spelled out from its sets and all its tiles."""
    held = [kind for kind, count in enumerate(view.counts) if count]
    suits = {kind // 9 for kind in held if kind < 27}
    orphans = [kind for kind in held if is_orphan(kind)]
    honour_sets = sum(tile >= 27 for tile in view.triplets)
    win = view.win
    checks = {
        Feature.HONOURS: any(kind >= 27 for kind in held),
        Feature.ORPHANS: bool(orphans),
        Feature.SIMPLES_ONLY: not orphans,
        Feature.ONE_SUIT: len(suits) == 1,
        Feature.THREE_SUITS: len(suits) == 3,
        Feature.NO_SUITS: not suits,
        Feature.ORPHANS_ONLY: len(orphans) == len(held),
        Feature.NO_456: not any(kind < 27 and kind % 9 in (3, 4, 5) for kind in held),
        Feature.NINE_OF_A_SUIT: any(sum(view.counts[9 * s : 9 * s + 9]) >= 9 for s in range(3)),
        Feature.FOUR_OF_A_KIND: 4 in view.counts,
        Feature.SEQUENCES_2: len(view.sequences) >= 2,
        Feature.SEQUENCES_3: len(view.sequences) >= 3,
        Feature.SEQUENCES_4: len(view.sequences) >= 4,
        Feature.TRIPLETS_2: len(view.triplets) >= 2,
        Feature.TRIPLETS_3: len(view.triplets) >= 3,
        Feature.TRIPLETS_4: len(view.triplets) >= 4,
        Feature.CONCEALED_2: view.concealed_triplets >= 2,
        Feature.CONCEALED_3: view.concealed_triplets >= 3,
        Feature.CONCEALED_4: view.concealed_triplets >= 4,
        Feature.HONOUR_SET: honour_sets >= 1,
        Feature.HONOUR_SETS_2: honour_sets >= 2,
        Feature.KONG: view.kongs >= 1,
        Feature.SEQUENCE_REPEAT: len(set(view.sequences)) < len(view.sequences),
        Feature.SPECIAL_WIN: win.win_type not in (WinType.DISCARD, WinType.SELF_DRAW),
        Feature.CONCEALED_HAND: not any(meld.exposed for meld in win.melds),
        Feature.DECLARED: bool(win.melds),
        Feature.FLOWERS: bool(win.flowers),
    }
    found = Feature(0)
    for feature, present in checks.items():
        if present:
            found |= feature
    return found


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32))
def test_the_features_that_gate_patterns_are_what_the_arrangement_holds(seed: int) -> None:
    """The feature bits are worked out with int arithmetic from memoised profiles and
    censuses; spelled out from the arrangement itself they are the same."""
    name, win = random_win(random.Random(seed))
    for view in get_ruleset(name).views(win):
        assert Feature(view.features) == _features_in_words(view), view.arrangement.describe()
