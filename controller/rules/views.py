"""The view of a hand that pattern predicates read: features, tile facts, one arrangement.

Per hand, `TileFacts` (shared between hands whose suits hold the same kinds of tile) and a
`Context` are worked out once; per arrangement, a `HandView` adds the reading's sets and
its `Feature` bits, which gate the predicates (see `patterns.needs`).
"""

from bisect import bisect_left
from collections.abc import Sequence
from enum import IntFlag
from operator import itemgetter

from controller.rules.blocks import (
    BLOCKS,
    CODE_BLOCKS,
    CONCEALED,
    HONOUR_SETS,
    KONGS,
    LEFT_OUT_BYTE,
    PAIR_CODE,
    REPEATS,
    SEQUENCE_TILES,
    SEQUENCES,
    TILE_BITS,
    TRIPLET_CODE,
    TRIPLET_TILES,
    TRIPLETS,
    Block,
    Reading,
    Shape,
)
from controller.rules.hand import Win, WinType
from controller.rules.shapes import Arrangement, Form, count_tiles
from controller.rules.suits import (
    HOLDS_456,
    HOLDS_ANY,
    HOLDS_FOUR,
    HOLDS_MIDDLE,
    HOLDS_NINE,
    HOLDS_TERMINAL,
    PROFILE_BITS,
    OneWay,
    hand_profile,
)
from controller.rules.tiles import EAST


class Feature(IntFlag):
    """Cheap facts about an arrangement that gate predicates (see `patterns.needs`)."""

    HONOURS = 1
    """At least one wind or dragon."""
    ORPHANS = 2
    """At least one terminal or honour."""
    ONE_SUIT = 4
    """Number tiles of exactly one suit."""
    SEQUENCES_2 = 8
    SEQUENCES_3 = 16
    TRIPLETS_2 = 32
    """At least two triplets or kongs."""
    TRIPLETS_3 = 64
    KONG = 128
    CONCEALED_2 = 256
    """At least two concealed triplets or kongs."""
    SPECIAL_WIN = 512
    """Won other than by a plain discard or self-draw (kong, last tile, heavenly, ...)."""
    HONOUR_SET = 1024
    """At least one triplet or kong of honours."""
    HONOUR_SETS_2 = 2048
    ORPHANS_ONLY = 4096
    """Only terminals and honours (no 2-8)."""
    NO_456 = 8192
    """No 4, 5 or 6 of any suit (so every set may hold a terminal or honour)."""
    SEQUENCE_REPEAT = 16384
    """Two identical sequences."""
    NO_SUITS = 32768
    """Honours only."""
    SIMPLES_ONLY = 1 << 16
    """Only 2-8 number tiles (no terminal, no honour)."""
    THREE_SUITS = 1 << 17
    """Number tiles of all three suits."""
    NINE_OF_A_SUIT = 1 << 18
    """Nine or more tiles of one suit (room for three sets of it)."""
    SEQUENCES_4 = 1 << 19
    TRIPLETS_4 = 1 << 20
    CONCEALED_3 = 1 << 21
    CONCEALED_4 = 1 << 22
    CONCEALED_HAND = 1 << 23
    """Nothing melded from a discard (concealed kongs allowed)."""
    DECLARED = 1 << 24
    """At least one declared meld (a concealed kong included)."""
    FLOWERS = 1 << 25
    """At least one flower held."""
    FOUR_OF_A_KIND = 1 << 26
    """All four tiles of some kind (a kong, or four held)."""


_PLAIN_WINS = (WinType.DISCARD, WinType.SELF_DRAW)
_REGULAR = Form.REGULAR
_new = tuple.__new__
"""`_new(Arrangement, fields)` makes a named tuple from its fields without a Python call."""


def _at_least(least: int, *bits: Feature) -> tuple[int, ...]:
    """The Feature bits of each count 0..7, where `bits[i]` means "at least `least + i`"."""
    return tuple(
        sum(int(bit) for i, bit in enumerate(bits) if count >= least + i) for count in range(8)
    )


# Plain ints, looked up by count: IntFlag arithmetic is too slow for the scoring loop, and a
# hand never seen before may bring a census or a profile never seen before.
_BY_SEQUENCES = _at_least(2, Feature.SEQUENCES_2, Feature.SEQUENCES_3, Feature.SEQUENCES_4)
_BY_TRIPLETS = _at_least(2, Feature.TRIPLETS_2, Feature.TRIPLETS_3, Feature.TRIPLETS_4)
_BY_CONCEALED = _at_least(2, Feature.CONCEALED_2, Feature.CONCEALED_3, Feature.CONCEALED_4)
_BY_HONOUR_SETS = _at_least(1, Feature.HONOUR_SET, Feature.HONOUR_SETS_2)
_KONG = Feature.KONG.value
_SEQUENCE_REPEAT = Feature.SEQUENCE_REPEAT.value


def _census_features(census: int) -> int:
    """The Feature bits that follow from a reading's census (`blocks.census`)."""
    return (
        _BY_SEQUENCES[census >> SEQUENCES & 7]
        | _BY_TRIPLETS[census >> TRIPLETS & 7]
        | _BY_CONCEALED[census >> CONCEALED & 7]
        | _BY_HONOUR_SETS[census >> HONOUR_SETS & 7]
        | (_KONG if census >> KONGS & 7 else 0)
        | (_SEQUENCE_REPEAT if census >> REPEATS & 7 else 0)
    )


_CENSUS_FEATURES: dict[int, int] = {}
"""Feature bits per census, memoised."""
_SPECIAL_WIN = Feature.SPECIAL_WIN.value
_CONCEALED_HAND = Feature.CONCEALED_HAND.value
_DECLARED = Feature.DECLARED.value
_FLOWERS = Feature.FLOWERS.value
_HONOURS, _ORPHANS, _SIMPLES_ONLY = (
    Feature.HONOURS.value,
    Feature.ORPHANS.value,
    Feature.SIMPLES_ONLY.value,
)
_ONE_SUIT, _THREE_SUITS, _NO_SUITS = (
    Feature.ONE_SUIT.value,
    Feature.THREE_SUITS.value,
    Feature.NO_SUITS.value,
)
_ORPHANS_ONLY, _NO_456 = Feature.ORPHANS_ONLY.value, Feature.NO_456.value
_NINE_OF_A_SUIT, _FOUR_OF_A_KIND = Feature.NINE_OF_A_SUIT.value, Feature.FOUR_OF_A_KIND.value


_SUIT_MASK = (1 << PROFILE_BITS) - 1
_HELD_SUITS = tuple(tuple(suit for suit in range(3) if held >> suit & 1) for held in range(8))
"""The suits holding a tile, by which suits do (a bit each)."""
_HELD_FEATURES = tuple(
    {0: _NO_SUITS, 1: _ONE_SUIT, 3: _THREE_SUITS}.get(len(suits), 0) for suits in _HELD_SUITS
)
"""The Feature bits that follow from which number suits hold a tile."""


def _every_features(every: int) -> int:
    """The Feature bits that follow from the number suits' profiles or'ed together."""
    return (
        (_ORPHANS_ONLY if not every & HOLDS_MIDDLE else 0)
        | (0 if every & HOLDS_456 else _NO_456)
        | (_NINE_OF_A_SUIT if every & HOLDS_NINE else 0)
        | (_FOUR_OF_A_KIND if every & HOLDS_FOUR else 0)
    )


_EVERY_FEATURES = tuple(map(_every_features, range(1 << PROFILE_BITS)))


class TileFacts:
    """Facts about all of a hand's tiles (melds included) that no arrangement changes.

    They follow from which kinds of tile each suit holds, so hands with the same profile
    share one object (`tile_facts`).
    """

    __slots__ = ("features", "honours", "orphans_only", "simples_only", "suits", "terminals_only")

    def __init__(self, key: int) -> None:
        """The facts of a packed profile whose `facts_key` is `key`."""
        every = key & _SUIT_MASK  # the number suits' profiles or'ed together
        honour_bits = key >> PROFILE_BITS & _SUIT_MASK
        held = key >> 2 * PROFILE_BITS  # which number suits hold a tile
        self.suits = _HELD_SUITS[held]
        """The suits (0 characters, 1 dots, 2 bamboo) with at least one tile."""
        self.honours = honours = bool(honour_bits & HOLDS_ANY)
        self.simples_only = simples_only = not honours and not every & HOLDS_TERMINAL
        self.orphans_only = not every & HOLDS_MIDDLE
        self.terminals_only = self.orphans_only and not honours
        self.features = (
            _EVERY_FEATURES[every]
            | _HELD_FEATURES[held]
            | (_HONOURS if honours else 0)
            | (_SIMPLES_ONLY if simples_only else _ORPHANS)
            | (_FOUR_OF_A_KIND if honour_bits & HOLDS_FOUR else 0)
        )

    @classmethod
    def of(cls, tiles: Sequence[int]) -> "TileFacts":
        """Facts about these tiles."""
        return tile_facts(hand_profile(count_tiles(tiles)))


_FACTS: dict[int, TileFacts] = {}
SHARED_FACTS: dict[int, TileFacts] = {}
"""The facts by what they follow from (see `facts_key`): a new packed profile rarely brings
new facts."""


def facts_key(packed: int) -> int:
    """What TileFacts read of a packed profile: the number suits' bits together, the honours'
    bits, and which number suits hold a tile (the suit tables' `facts` or'ed together)."""
    m, p, s = packed & _SUIT_MASK, packed >> PROFILE_BITS & _SUIT_MASK, packed >> 14 & _SUIT_MASK
    held = (m & HOLDS_ANY) | (p & HOLDS_ANY) << 1 | (s & HOLDS_ANY) << 2
    return (m | p | s) | (packed >> 3 * PROFILE_BITS) << PROFILE_BITS | held << 2 * PROFILE_BITS


def tile_facts(packed: int) -> TileFacts:
    """The shared facts of a packed profile (`suits.hand_profile`)."""
    found = _FACTS.get(packed)
    if found is None:
        found = _FACTS[packed] = keyed_facts(facts_key(packed))
    return found


def keyed_facts(key: int) -> TileFacts:
    """The shared facts of a packed profile whose `facts_key` is `key`."""
    found = SHARED_FACTS.get(key)
    if found is None:
        found = SHARED_FACTS[key] = TileFacts(key)
    return found


def _win_features(win: Win, melded: bool) -> int:
    """The Feature bits of how a hand was won and declared (no tile facts)."""
    features = 0 if win.win_type in _PLAIN_WINS else _SPECIAL_WIN
    if not melded:
        features |= _CONCEALED_HAND
    if win.melds:
        features |= _DECLARED
    if win.flowers:
        features |= _FLOWERS
    return features


def _melded(win: Win) -> bool:
    """Whether some meld of the win was melded from a discard (not a concealed kong)."""
    return bool(win.melds) and any(meld.exposed for meld in win.melds)


class Context:
    """What every arrangement of one declared win shares, worked out once per hand."""

    __slots__ = ("counts", "facts", "features", "melded", "self_drawn", "win")

    def __init__(self, win: Win, counts: Sequence[int], facts: TileFacts, self_drawn: bool) -> None:
        self.win = win
        self.counts = counts
        self.facts = facts
        self.self_drawn = self_drawn
        self.melded = melded = _melded(win)
        self.features = facts.features | _win_features(win, melded)


class HandView:
    """One arrangement of a winning hand, summarised for pattern predicates.

    `memo` is for predicates of one ruleset to share work on the same arrangement.
    """

    __slots__ = (
        "_memo",
        "blocks",
        "concealed_triplets",
        "counts",
        "facts",
        "features",
        "form",
        "kongs",
        "melded",
        "pair",
        "pairs",
        "self_drawn",
        "sequences",
        "triplets",
        "win",
        "win_index",
    )

    def __init__(self, form: Form, reading: Reading, win_index: int, context: Context) -> None:
        """The view of a reading in `form`, its winning tile in block `win_index`."""
        self.form = form
        self.blocks = reading.blocks
        self.win_index = win_index
        """The index of the block holding the winning tile (-1: a shape with no blocks)."""
        self.win = context.win
        self.counts = context.counts
        """Counts per kind (34) of all the hand's tiles, melds included."""
        self.facts = context.facts
        self.self_drawn = context.self_drawn
        self.melded = context.melded
        self._memo: dict[str, object] | None = None
        self.sequences = reading.sequences
        self.triplets = reading.triplets
        self.pairs = pairs = reading.pairs
        self.pair = pairs[0] if len(pairs) == 1 else -1
        census = reading.census
        self.kongs = census >> KONGS & 7
        self.concealed_triplets = census >> CONCEALED & 7
        features = _CENSUS_FEATURES.get(census)
        if features is None:
            features = _CENSUS_FEATURES[census] = _census_features(census)
        self.features = context.features | features

    @classmethod
    def of(cls, arrangement: Arrangement, context: Context) -> "HandView":
        """The view of any arrangement (its blocks are summed up here)."""
        form, blocks, win_index = arrangement
        return cls(form, Reading.of(blocks), win_index, context)

    @property
    def win_block(self) -> Block | None:
        """The block holding the winning tile (None for a shape with no blocks)."""
        return self.blocks[self.win_index] if self.blocks else None

    @property
    def arrangement(self) -> Arrangement:
        """The arrangement this view shows."""
        return _new(Arrangement, (self.form, self.blocks, self.win_index))

    @property
    def sets(self) -> tuple[Block, ...]:
        """The sets of a regular hand (every block but the pair)."""
        return tuple(block for block in self.blocks if block.shape != 3)

    @property
    def memo(self) -> dict[str, object]:
        """Scratch space for one ruleset's predicates to share work on this arrangement."""
        if self._memo is None:
            self._memo = {}
        return self._memo


_view = object.__new__


def regular_views(
    found: list[tuple[Reading, int]],
    win: Win,
    counts: Sequence[int],
    facts: TileFacts,
    self_drawn: bool,
) -> list[HandView]:
    """The views of a win's regular readings (`shapes.regular_readings`), as HandView makes
    them from a Context, without making one: most hands have one reading."""
    melded = _melded(win)
    shared = facts.features | _win_features(win, melded)
    views = []
    for reading, index in found:
        view = _view(HandView)
        view.form = _REGULAR
        view.blocks, view.sequences, view.triplets, view.pairs, census = reading
        view.win_index = index
        view.win = win
        view.counts = counts
        view.facts = facts
        view.self_drawn = self_drawn
        view.melded = melded
        view._memo = None
        pairs = view.pairs
        view.pair = pairs[0] if len(pairs) == 1 else -1
        view.kongs = census >> KONGS & 7
        view.concealed_triplets = census >> CONCEALED & 7
        features = _CENSUS_FEATURES.get(census)
        if features is None:
            features = _CENSUS_FEATURES[census] = _census_features(census)
        view.features = shared | features
        views.append(view)
    return views


_TRIPLET = Shape.TRIPLET
_OPENED = 1 << CONCEALED


def concealed_views(
    one_way: OneWay,
    win: Win,
    counts: Sequence[int],
    facts: TileFacts,
    self_drawn: bool,
    every_place: bool,
) -> list[HandView]:
    """The views of a concealed hand (no melds) whose suits read one way each, with one pair
    among them (`suits.hand_tables`). As `shapes.regular_readings` and `regular_views` make
    them (same views, same order), in one pass: most hands are these.
    """
    parts, census, pair = one_way
    codes = b"".join(parts)
    # `blocks.read_codes`, inlined: five blocks, one of them the pair.
    sequences = tuple(codes.translate(SEQUENCE_TILES).replace(LEFT_OUT_BYTE, b""))
    triplets = tuple(codes.translate(TRIPLET_TILES).replace(LEFT_OUT_BYTE, b""))
    if len(codes) > 1:  # (as `blocks.read_codes`: an itemgetter of one item gives the item)
        blocks = itemgetter(*codes)(CODE_BLOCKS)
    else:
        blocks = tuple(map(CODE_BLOCKS.__getitem__, codes))
    # The places of `blocks.code_places` in the winning tile's suit.
    kind = win.win_tile
    part = parts[kind // 9]
    offset = codes.find(part)  # (suits hold different tiles: their codes differ)
    places = []  # the indexes of the blocks the winning tile may sit in
    opened = -1  # the index of a triplet completed by the discard (as opened)
    if kind < EAST:
        first = bisect_left(part, kind - 2)  # the first sequence that may hold it
        if first < len(part) and part[first] <= kind:
            places.append(offset + first)
    at = part.find(TRIPLET_CODE | kind)
    if at >= 0:
        if not self_drawn:
            opened = offset + at
            places.append(opened)
        elif every_place or not places:
            places.append(offset + at)
    at = part.find(PAIR_CODE | kind)
    # (the pair is a place too unless the reading as it is already has one: places holds
    # at most a sequence and then a triplet, and an opened triplet is another reading)
    if at >= 0 and (every_place or not places or places[0] == opened == places[-1]):
        places.append(offset + at)
    # (`_win_features` of a win with no melds, inlined)
    shared = facts.features | _CONCEALED_HAND
    if win.win_type not in _PLAIN_WINS:
        shared |= _SPECIAL_WIN
    if win.flowers:
        shared |= _FLOWERS
    views = []
    for index in places:
        view = _view(HandView)
        view.form = _REGULAR
        view.sequences = sequences
        view.triplets = triplets
        view.pairs = (pair,)
        view.pair = pair
        view.win_index = index
        view.win = win
        view.counts = counts
        view.facts = facts
        view.self_drawn = self_drawn
        view.melded = False
        view._memo = None
        view.kongs = 0
        if index == opened:
            exposed = BLOCKS[_TRIPLET, codes[index] & TILE_BITS, False, False]  # (`Reading.opened`)
            view.blocks = blocks[:index] + (exposed,) + blocks[index + 1 :]
            held = census - _OPENED
        else:
            view.blocks = blocks
            held = census
        view.concealed_triplets = held >> CONCEALED & 7
        features = _CENSUS_FEATURES.get(held)
        if features is None:
            features = _CENSUS_FEATURES[held] = _census_features(held)
        view.features = shared | features
        views.append(view)
    return views
