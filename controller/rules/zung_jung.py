"""Zung Jung v3.3 scoring on WMC competition rules: the pattern predicates and the payments.

Only the highest pattern of a group counts; groups add (Value Honor counts per set). A hand
with no pattern is a Chicken Hand. A pattern worth the limit (320) or more counts alone;
otherwise a total at or over the limit becomes the limit.
"""

from collections.abc import Sequence

from controller.rules.data import Table, get
from controller.rules.errors import RulesError
from controller.rules.hand import Win, WinType
from controller.rules.patterns import Hit, Predicate, keep_better, needs, shared_hit
from controller.rules.ruleset import Ruleset
from controller.rules.score import PatternValue, Payments, Tally
from controller.rules.seats import SEATS
from controller.rules.tiles import DRAGONS, WHITE, WINDS, is_orphan
from controller.rules.timing import TimePenalty
from controller.rules.views import Feature, HandView

_NINE_GATES = (3, 1, 1, 1, 1, 1, 1, 1, 3)
_HEAVENLY = WinType.HEAVENLY
_E, _S, _W, _N = SEATS
_new = tuple.__new__
"""`_new(Tally, fields)` makes a Tally from all its fields without a Python call."""
TALLIES_KEPT = 4096
"""Tallies a ruleset keeps worked out (`ZungJung.tally`); the first ones met stay."""


# --- 1 trivial


@needs(Feature.SEQUENCES_4, decides=True)
def all_sequences(view: HandView) -> bool:
    """Four sequences."""
    return len(view.sequences) == 4


@needs(Feature.CONCEALED_HAND, decides=True)
def concealed_hand(view: HandView) -> bool:
    """No set melded from a discard (concealed kongs allowed, winning on a discard allowed)."""
    return not view.melded


@needs(Feature.SIMPLES_ONLY, decides=True)
def no_terminals(view: HandView) -> bool:
    """Only 2-8 number tiles."""
    return view.facts.simples_only


# --- 2 one suit


@needs(Feature.ONE_SUIT, Feature.HONOURS, decides=True)
def mixed_one_suit(view: HandView) -> bool:
    """Number tiles of one suit plus honours."""
    return len(view.facts.suits) == 1 and view.facts.honours


@needs(Feature.ONE_SUIT, without=Feature.HONOURS, decides=True)
def pure_one_suit(view: HandView) -> bool:
    """Number tiles of one suit only."""
    return len(view.facts.suits) == 1 and not view.facts.honours


@needs(Feature.ONE_SUIT)
def nine_gates(view: HandView) -> bool:
    """1112345678999 of one suit held concealed, winning on any tile of that suit.

    The dealer's heavenly hand has no winning tile of its own, so it is not Nine Gates.
    """
    win = view.win
    if win.melds or win.win_type is _HEAVENLY or not pure_one_suit(view):
        return False
    counts = [0] * 9
    base = min(win.concealed) // 9 * 9
    for tile in win.concealed:
        counts[tile - base] += 1
    counts[win.win_tile - base] -= 1
    return tuple(counts) == _NINE_GATES


# --- 3 honours


def _dragon_sets(view: HandView) -> int:
    sets = 0
    if view.facts.honours:
        for tile in view.triplets:
            if tile >= WHITE:
                sets += 1
    return sets


def _wind_sets(view: HandView) -> int:
    sets = 0
    if view.facts.honours:
        for tile in view.triplets:
            if 27 <= tile < WHITE:
                sets += 1
    return sets


@needs(Feature.HONOUR_SET)
def value_honor(view: HandView) -> int:
    """Per set: a triplet or kong of dragons or of the seat's own wind (no prevailing wind)."""
    seat_wind = WINDS[view.win.seat]
    sets = 0
    for tile in view.triplets:
        if tile >= WHITE or tile == seat_wind:
            sets += 1
    return sets


@needs(Feature.HONOUR_SETS_2)
def small_three_dragons(view: HandView) -> bool:
    """Two dragon sets and a dragon pair."""
    return _dragon_sets(view) == 2 and view.pair in DRAGONS


@needs(Feature.HONOUR_SETS_2)
def big_three_dragons(view: HandView) -> bool:
    """Three dragon sets."""
    return _dragon_sets(view) == 3


@needs(Feature.HONOUR_SETS_2)
def small_three_winds(view: HandView) -> bool:
    """Two wind sets and a wind pair."""
    return _wind_sets(view) == 2 and view.pair in WINDS


@needs(Feature.HONOUR_SETS_2)
def big_three_winds(view: HandView) -> bool:
    """Three wind sets."""
    return _wind_sets(view) == 3


@needs(Feature.HONOUR_SETS_2)
def small_four_winds(view: HandView) -> bool:
    """Three wind sets and a wind pair."""
    return _wind_sets(view) == 3 and view.pair in WINDS


@needs(Feature.HONOUR_SETS_2)
def big_four_winds(view: HandView) -> bool:
    """Four wind sets."""
    return _wind_sets(view) == 4


@needs(Feature.NO_SUITS, decides=True)
def all_honors(view: HandView) -> bool:
    """Honour tiles only."""
    return not view.facts.suits


# --- 4 triplets and kongs


@needs(Feature.TRIPLETS_4, decides=True)
def all_triplets(view: HandView) -> bool:
    """Four triplets or kongs."""
    return len(view.triplets) == 4


_AT_LEAST = {2: Feature.CONCEALED_2, 3: Feature.CONCEALED_3, 4: Feature.CONCEALED_4}


def _concealed(count: int) -> Predicate:
    @needs(_AT_LEAST[count], without=_AT_LEAST.get(count + 1), decides=True)
    def predicate(view: HandView) -> bool:
        return view.concealed_triplets == count

    predicate.__doc__ = (
        f"{count} concealed triplets (a concealed kong counts; one won on a discard does not)."
    )
    return predicate


def _kongs(count: int) -> Predicate:
    @needs(Feature.KONG)
    def predicate(view: HandView) -> bool:
        return view.kongs == count

    predicate.__doc__ = f"{count} kong(s), exposed or concealed."
    return predicate


# --- 5 identical sets


def _repeats(view: HandView) -> list[int]:
    """How often each repeated sequence occurs, most first (e.g. [2, 2])."""
    if len(view.sequences) < 2:
        return []
    found = view.memo.get("repeats")
    if found is None:
        runs = view.sequences
        found = [times for times in map(runs.count, set(runs)) if times > 1]
        if len(found) > 1:
            found.sort(reverse=True)
        view.memo["repeats"] = found
    return found  # type: ignore[return-value]


@needs(Feature.SEQUENCE_REPEAT)
def two_identical_sequences(view: HandView) -> bool:
    """Two sequences of the same suit and numbers."""
    return bool(_repeats(view))


@needs(Feature.SEQUENCE_REPEAT)
def two_identical_sequences_twice(view: HandView) -> bool:
    """Two different pairs of identical sequences."""
    return len(_repeats(view)) == 2


@needs(Feature.SEQUENCE_REPEAT, Feature.SEQUENCES_3)
def three_identical_sequences(view: HandView) -> bool:
    """Three identical sequences."""
    return _repeats(view)[:1] == [3]


@needs(Feature.SEQUENCE_REPEAT, Feature.SEQUENCES_3)
def four_identical_sequences(view: HandView) -> bool:
    """Four identical sequences."""
    return _repeats(view)[:1] == [4]


# --- 6 similar sets


def _in_all_suits(tiles: tuple[int, ...]) -> bool:
    """Whether some characters tile here has its dots and bamboo twins here too."""
    for tile in tiles:  # noqa: SIM110 (a loop, not any() over a generator: cheaper per hand)
        if tile < 9 and tile + 9 in tiles and tile + 18 in tiles:
            return True
    return False


@needs(Feature.SEQUENCES_3, Feature.THREE_SUITS)
def three_similar_sequences(view: HandView) -> bool:
    """The same sequence in all three suits."""
    return _in_all_suits(view.sequences)


@needs(Feature.TRIPLETS_2, Feature.THREE_SUITS)
def small_three_similar_triplets(view: HandView) -> bool:
    """Triplets of one number in two suits and the pair of that number in the third."""
    pair = view.pair
    if not 0 <= pair < 27:
        return False
    # the same number in the other two suits: 9 and 18 kinds further on, round the 27
    return (pair + 9) % 27 in view.triplets and (pair + 18) % 27 in view.triplets


@needs(Feature.TRIPLETS_3, Feature.THREE_SUITS)
def three_similar_triplets(view: HandView) -> bool:
    """Triplets of one number in all three suits."""
    return _in_all_suits(view.triplets)


# --- 7 consecutive sets


@needs(Feature.SEQUENCES_3, Feature.NINE_OF_A_SUIT)
def nine_tile_straight(view: HandView) -> bool:
    """123, 456 and 789 of one suit."""
    runs = view.sequences
    return any(base in runs and base + 3 in runs and base + 6 in runs for base in (0, 9, 18))


def _run_of_triplets(view: HandView, length: int) -> bool:
    """Whether `length` triplets of one suit have consecutive numbers."""
    tiles = view.triplets
    return any(
        tile % 9 <= 9 - length and all(tile + step in tiles for step in range(1, length))
        for tile in tiles
        if tile < 27
    )


@needs(Feature.TRIPLETS_3, Feature.NINE_OF_A_SUIT)
def three_consecutive_triplets(view: HandView) -> bool:
    """Triplets of three consecutive numbers in one suit."""
    return _run_of_triplets(view, 3)


@needs(Feature.TRIPLETS_4, Feature.NINE_OF_A_SUIT)
def four_consecutive_triplets(view: HandView) -> bool:
    """Triplets of four consecutive numbers in one suit."""
    return len(view.triplets) == 4 and _run_of_triplets(view, 4)


# --- 8 terminals


def _every_block_has_orphan(view: HandView) -> bool:
    if view.facts.simples_only:
        return False
    for block in view.blocks:
        if block.shape == 0:
            if block.tile % 9 not in (0, 6):
                return False
        elif not is_orphan(block.tile):
            return False
    return True


@needs(Feature.NO_456, Feature.ORPHANS)
def mixed_lesser_terminals(view: HandView) -> bool:
    """Every set and the pair hold a terminal or an honour."""
    return _every_block_has_orphan(view)


@needs(Feature.NO_456, Feature.ORPHANS)
def pure_lesser_terminals(view: HandView) -> bool:
    """Every set and the pair hold a terminal; no honours."""
    return not view.facts.honours and _every_block_has_orphan(view)


@needs(Feature.ORPHANS_ONLY, without=Feature.NO_SUITS, decides=True)
def mixed_greater_terminals(view: HandView) -> bool:
    """Terminals and honours only."""
    return view.facts.orphans_only and bool(view.facts.suits)


@needs(Feature.ORPHANS_ONLY, without=Feature.HONOURS, decides=True)
def pure_greater_terminals(view: HandView) -> bool:
    """Terminals only."""
    return view.facts.terminals_only


# --- 9 incidental


def _won(win_type: WinType) -> Predicate:
    @needs(Feature.SPECIAL_WIN)
    def predicate(view: HandView) -> bool:
        return view.win.win_type is win_type

    predicate.__doc__ = f"Won by {win_type.value}."
    return predicate


# --- 10 irregular


@needs(decides=True)
def thirteen_terminals(view: HandView) -> bool:
    """One of each terminal and honour plus a pair of one of them."""
    return True


@needs(decides=True)
def seven_pairs(view: HandView) -> bool:
    """Seven pairs."""
    return True


PREDICATES: dict[str, Predicate] = {
    "All Sequences": all_sequences,
    "Concealed Hand": concealed_hand,
    "No Terminals": no_terminals,
    "Mixed One-Suit": mixed_one_suit,
    "Pure One-Suit": pure_one_suit,
    "Nine Gates": nine_gates,
    "Value Honor": value_honor,
    "Small Three Dragons": small_three_dragons,
    "Big Three Dragons": big_three_dragons,
    "Small Three Winds": small_three_winds,
    "Big Three Winds": big_three_winds,
    "Small Four Winds": small_four_winds,
    "Big Four Winds": big_four_winds,
    "All Honors": all_honors,
    "All Triplets": all_triplets,
    "Two Concealed Triplets": _concealed(2),
    "Three Concealed Triplets": _concealed(3),
    "Four Concealed Triplets": _concealed(4),
    "One Kong": _kongs(1),
    "Two Kongs": _kongs(2),
    "Three Kongs": _kongs(3),
    "Four Kongs": _kongs(4),
    "Two Identical Sequences": two_identical_sequences,
    "Two Identical Sequences Twice": two_identical_sequences_twice,
    "Three Identical Sequences": three_identical_sequences,
    "Four Identical Sequences": four_identical_sequences,
    "Three Similar Sequences": three_similar_sequences,
    "Small Three Similar Triplets": small_three_similar_triplets,
    "Three Similar Triplets": three_similar_triplets,
    "Nine-Tile Straight": nine_tile_straight,
    "Three Consecutive Triplets": three_consecutive_triplets,
    "Four Consecutive Triplets": four_consecutive_triplets,
    "Mixed Lesser Terminals": mixed_lesser_terminals,
    "Pure Lesser Terminals": pure_lesser_terminals,
    "Mixed Greater Terminals": mixed_greater_terminals,
    "Pure Greater Terminals": pure_greater_terminals,
    "Final Draw": _won(WinType.LAST_TILE),
    "Final Discard": _won(WinType.LAST_DISCARD),
    "Win on Kong": _won(WinType.KONG_REPLACEMENT),
    "Robbing a Kong": _won(WinType.ROBBING_KONG),
    "Blessing of Heaven": _won(WinType.HEAVENLY),
    "Blessing of Earth": _won(WinType.EARTHLY),
    "Thirteen Terminals": thirteen_terminals,
    "Seven Pairs": seven_pairs,
}


class ZungJung(Ruleset):
    """Zung Jung v3.3 on WMC rules."""

    name = "zung-jung"
    data_file = "zung_jung.toml"
    predicates = PREDICATES
    scores_the_wait = False  # no pattern reads where the winning tile sits

    def __init__(self, data: Table) -> None:
        super().__init__(data)
        self.chicken: int = get(data, "scoring.chicken_hand", int)
        self.limit: int = get(data, "scoring.limit", int)
        self.discard_share: int = get(data, "settlement.discard_share", int)
        chicken = (PatternValue("Chicken Hand", self.chicken),)
        self._chicken = Tally(chicken, self.chicken, self.chicken)
        self._tallies: dict[tuple[Hit, ...], Tally] = {}
        """Tallies by their hits (shared objects, see `patterns.shared_hit`): hands bring
        few combinations of them."""

    def check_melds(self, win: Win) -> None:
        """Blessing of Heaven does not follow a concealed kong (ZJ 9.4.1)."""
        if win.win_type is _HEAVENLY and not any(m.exposed for m in win.melds):
            raise RulesError(
                "a heavenly win holds the dealt tiles: after a concealed kong the dealer "
                "wins on the kong's replacement (kong-replacement), not Blessing of Heaven "
                "(ZJ 9.4.1)"
            )

    def tally(self, view: HandView) -> Tally:
        """Best of each group added up, Chicken Hand if none, then the 320 limit rule."""
        # The best hit of each group, in data order (`patterns.keep_better`; a hit present
        # more than once is shared: `patterns.shared_hit`).
        hits: list[Hit] = []
        seen = 0
        for predicate, once, group in self.patterns_by_form[view.form][view.features]:
            if predicate is None:  # decided by the features: present once
                hit = once
            else:
                times = predicate(view)
                if not times:
                    continue
                hit = once if times == 1 else shared_hit(once, int(times))
            if seen & group:
                keep_better(hits, hit)
            else:
                seen |= group
                hits.append(hit)
        if not hits:
            return self._chicken
        key = tuple(hits)
        found = self._tallies.get(key)
        if found is None:
            found = self._add_up(hits)
            if len(self._tallies) < TALLIES_KEPT:
                self._tallies[key] = found
        return found

    def _add_up(self, hits: list[Hit]) -> Tally:
        """The hits of one arrangement added up, then the limit rule (see `tally`)."""
        top = hits[0]
        patterns = []
        total = 0
        for hit in hits:
            patterns.append(hit.counted)
            total += hit.value
            if hit.spec.value > top.spec.value:
                top = hit
        if top.spec.value >= self.limit:
            note = f"limit: {top.spec.name} is worth {self.limit} or more, so it counts alone"
            return Tally((top.counted,), top.value, top.value, (note,))
        if total >= self.limit:
            note = f"limit: total {total} capped at {self.limit}"
            return Tally(tuple(patterns), self.limit, self.limit, (note,))
        return _new(Tally, (tuple(patterns), total, total, (), ""))

    def settle_win(self, win: Win, tally: Tally) -> Payments:
        """Self-drawn: each pays V. Discard: each pays V up to 25, else the discarder 3V-50."""
        value = tally.score
        share = self.discard_share
        discarder = self.discarder(win) if value > share else None
        each = -value if discarder is None else -share
        result = {_E: each, _S: each, _W: each, _N: each}  # (cheaper than dict.fromkeys)
        if discarder is not None:
            result[discarder] = 2 * share - 3 * value
        result[win.seat] = 3 * value
        return result

    def time_penalty(self, turns: Sequence[float]) -> TimePenalty:
        """Penalty points for one player's turn times (seconds) in one hand."""
        return self.timing.assess(turns)


RULESET = ZungJung
