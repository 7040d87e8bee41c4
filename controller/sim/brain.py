"""How a simulated player decides: which tile to throw away, and whether tiles make a win.

Deliberately simple and deterministic: keep pairs and neighbours, throw isolated tiles, and
steer towards what the ruleset needs (Sichuan: void in one suit; Shanghai: one suit with
honours). Good enough that hands end in wins as well as in draws.
"""

from collections import Counter
from collections.abc import Sequence

from controller.rules import Meld, RulesError, Ruleset, Seat, Win, WinType
from controller.rules.shapes import Form, count_tiles, is_win
from controller.rules.tiles import is_flower, is_suited, suit

_KEEP_BY_COUNT = {1: 0, 2: 4, 3: 8, 4: 8}


def choose_discard(hand: Sequence[int], ruleset: Ruleset) -> int:
    """The tile kind to throw away from `hand` (flowers are never in it)."""
    counts = Counter(hand)
    held = Counter(suit(k) for k in hand if is_suited(k))
    suits = sorted({suit(k) for k in ruleset.tiles.kinds if is_suited(k)})
    weakest = min(suits, key=lambda s: (held[s], s))
    strongest = max(suits, key=lambda s: (held[s], -s))

    def worth(kind: int) -> int:
        value = _KEEP_BY_COUNT[min(counts[kind], 4)]
        if is_suited(kind):
            value += sum(
                (3 if abs(step) == 1 else 1)
                for step in (-2, -1, 1, 2)
                if suit(kind + step) == suit(kind) and 0 <= kind + step < 27 and counts[kind + step]
            )
            if ruleset.name == "sichuan" and suit(kind) == weakest:
                value -= 10
            if ruleset.name == "shanghai" and suit(kind) != strongest:
                value -= 6
        elif counts[kind] == 1:
            value -= 1
        return value

    return min(sorted(counts), key=lambda kind: (worth(kind), -kind))


def wins(
    ruleset: Ruleset,
    concealed: Sequence[int],
    win_tile: int,
    *,
    self_drawn: bool,
    seat: Seat,
    discarder: Seat | None = None,
    flowers: Sequence[int] = (),
    melds: Sequence[Meld] = (),
    finished: frozenset[Seat] = frozenset(),
    draw_streak: int = 0,
) -> bool:
    """Whether these tiles (the winning tile among `concealed`) make a valid win."""
    if any(is_flower(k) for k in concealed):
        return False
    counts = count_tiles(concealed)
    if Form.SPECIAL not in ruleset.forms and not is_win(
        counts, ruleset.forms, ruleset.four_in_pairs
    ):
        return False
    win = Win(
        tuple(sorted(concealed)),
        tuple(melds),
        win_tile,
        WinType.SELF_DRAW if self_drawn else WinType.DISCARD,
        seat,
        discarder,
        tuple(sorted(flowers)),
        draw_streak,
        finished,
    )
    try:
        return ruleset.score(win).valid
    except RulesError:
        return False
