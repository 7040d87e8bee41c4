"""How a simulated player decides: which tile to throw away, and whether tiles make a win.

Deliberately simple and deterministic: keep pairs and neighbours, throw isolated tiles, and
steer towards what the ruleset needs (Sichuan: void in one suit; Shanghai: one suit with
honours). Good enough that hands end in wins as well as in draws. Claims and kongs follow the same
steering: a pung or kong of a kind the hand keeps, a chow from two loose neighbours.
"""

from collections import Counter
from collections.abc import Sequence
from functools import cache

from controller.rules import Claim, Meld, RulesError, Ruleset, Seat, Win, WinType
from controller.rules.shapes import Form, count_tiles, is_win
from controller.rules.tiles import FLOWER_BASE, KINDS, is_suited, suit

_KEEP_BY_COUNT = {1: 0, 2: 4, 3: 8, 4: 8}


@cache
def _suits(kinds: frozenset[int]) -> tuple[int, ...]:
    """The suits among a tile set's kinds, in order (asked at every discard and claim)."""
    return tuple(sorted({suit(k) for k in kinds if is_suited(k)}))


def choose_discard(hand: Sequence[int], ruleset: Ruleset) -> int:
    """The tile kind to throw away from `hand` (flowers are never in it): the one worth least
    (pairs and sets kept, neighbours kept, the ruleset's unwanted suit first), the highest
    kind of those worth the same."""
    counts = [0] * KINDS
    for kind in hand:
        counts[kind] += 1
    suits = _suits(ruleset.tiles.kinds)
    held = [sum(counts[s * 9 : s * 9 + 9]) for s in range(3)]
    weakest = min(suits, key=lambda s: (held[s], s))
    strongest = max(suits, key=lambda s: (held[s], -s))
    sichuan, shanghai = ruleset.name == "sichuan", ruleset.name == "shanghai"
    best: tuple[int, int] | None = None
    for kind in set(hand):
        count = counts[kind]
        value = _KEEP_BY_COUNT[min(count, 4)]
        if kind < 27:  # suited: neighbours in the same suit count
            rank = kind % 9
            value += (
                (rank >= 2 and counts[kind - 2] > 0)
                + 3 * (rank >= 1 and counts[kind - 1] > 0)
                + 3 * (rank <= 7 and counts[kind + 1] > 0)
                + (rank <= 6 and counts[kind + 2] > 0)
            )
            if sichuan and kind // 9 == weakest:
                value -= 10
            if shanghai and kind // 9 != strongest:
                value -= 6
        elif count == 1:
            value -= 1
        if best is None or (value, -kind) < best:
            best = (value, -kind)
    assert best is not None, "a hand to throw from"
    return -best[1]


def may_win(
    ruleset: Ruleset,
    concealed: Sequence[int],
    melds: Sequence[Meld] = (),
    flowers: Sequence[int] = (),
) -> bool:
    """Whether these concealed tiles (beside these sets and flowers) can make a win at all: no
    flowers among them, and a winning shape, or one of the ruleset's own (Form.SPECIAL).
    `wins` says no to every hand this says no to, at a fraction of the cost."""
    if max(concealed, default=0) >= FLOWER_BASE:
        return False  # a flower among them (flowers are the highest kinds)
    counts = count_tiles(concealed)
    if is_win(counts, ruleset.forms, ruleset.four_in_pairs):
        return True
    if Form.SPECIAL not in ruleset.forms:
        return False
    win = Win(tuple(concealed), tuple(melds), flowers=tuple(flowers))
    return bool(ruleset.extra_arrangements(win, counts))


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
    win_type: WinType | None = None,
) -> bool:
    """Whether these tiles (the winning tile among `concealed`) make a valid win; `win_type`
    says how the tile came (default: a plain discard or self-draw)."""
    if not may_win(ruleset, concealed, melds, flowers):
        return False
    win = Win(
        tuple(sorted(concealed)),
        tuple(melds),
        win_tile,
        win_type or (WinType.SELF_DRAW if self_drawn else WinType.DISCARD),
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


def _wanted(kind: int, hand: Sequence[int], ruleset: Ruleset) -> bool:
    """Whether a set of this kind fits the hand the ruleset steers towards."""
    if not is_suited(kind):
        return ruleset.name != "sichuan"
    if ruleset.name not in ("sichuan", "shanghai"):
        return True
    held = Counter(suit(k) for k in hand if is_suited(k))
    suits = _suits(ruleset.tiles.kinds)
    if ruleset.name == "sichuan":
        return suit(kind) != min(suits, key=lambda s: (held[s], s))
    if ruleset.name == "shanghai":
        return suit(kind) == max(suits, key=lambda s: (held[s], -s))
    return True


def claim_on(
    ruleset: Ruleset, hand: Sequence[int], tile: int, *, may_chow: bool, may_kong: bool
) -> tuple[Claim, tuple[int, ...]] | None:
    """The set a player would make with a discarded `tile` (and the kinds it takes from
    its hand), or None to let it pass: a kong or a pung of a kind it keeps, else a chow
    from two loose neighbours (where `may_chow`)."""
    if not _wanted(tile, hand, ruleset):
        return None
    held = hand.count(tile)
    if may_kong and ruleset.claims.kong and held == 3:
        return Claim.KONG, (tile,) * 3
    if ruleset.claims.pung and held >= 2:
        return Claim.PUNG, (tile,) * 2
    if not (may_chow and ruleset.claims.chow and is_suited(tile)):
        return None
    for low, high in ((tile - 2, tile - 1), (tile - 1, tile + 1), (tile + 1, tile + 2)):
        if all(0 <= k < 27 and suit(k) == suit(tile) and hand.count(k) == 1 for k in (low, high)):
            return Claim.CHOW, (low, high)
    return None


def concealed_kong(ruleset: Ruleset, hand: Sequence[int]) -> int | None:
    """A kind held four times in the hand that the player declares as a concealed kong."""
    if not ruleset.claims.kong:
        return None
    return next(
        (k for k in sorted(set(hand)) if hand.count(k) == 4 and _wanted(k, hand, ruleset)), None
    )


def added_kong(ruleset: Ruleset, hand: Sequence[int], pungs: Sequence[int]) -> int | None:
    """A hand tile the player adds to one of its exposed pungs (of these kinds)."""
    if not ruleset.claims.kong:
        return None
    return next((k for k in sorted(set(hand)) if k in pungs), None)
