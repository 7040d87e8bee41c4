"""Patterns as data plus one predicate each, and the view of a hand the predicates read.

A ruleset's TOML lists its patterns (`[patterns."Name"]` with value, group and the hand
forms it applies to); its module maps each name to a predicate `HandView -> int` that says
how many times the pattern is present (0 = not present; most return a bool). A predicate
may be marked `@needs(Feature.X, ...)`: it is then only asked when the arrangement has
those cheap features, which keeps scoring fast.
"""

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import IntFlag
from functools import cached_property
from typing import NamedTuple, TypeVar

from controller.rules.data import Table, get
from controller.rules.errors import RulesError
from controller.rules.hand import Win, WinType
from controller.rules.score import PatternValue
from controller.rules.shapes import FORM_NAMES, Arrangement, Block, Form, count_tiles

_FORMS_BY_NAME = {name: form for form, name in FORM_NAMES.items()}


class Feature(IntFlag):
    """Cheap facts about an arrangement that gate predicates (see `needs`)."""

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


_PLAIN_WINS = (WinType.DISCARD, WinType.SELF_DRAW)
# Plain ints: IntFlag arithmetic is too slow for the scoring loop.
_HONOURS = Feature.HONOURS.value
_ORPHANS = Feature.ORPHANS.value
_ONE_SUIT = Feature.ONE_SUIT.value
_SEQUENCES_2 = Feature.SEQUENCES_2.value
_SEQUENCES_3 = Feature.SEQUENCES_3.value
_TRIPLETS_2 = Feature.TRIPLETS_2.value
_TRIPLETS_3 = Feature.TRIPLETS_3.value
_KONG = Feature.KONG.value
_CONCEALED_2 = Feature.CONCEALED_2.value
_SPECIAL_WIN = Feature.SPECIAL_WIN.value
_HONOUR_SET = Feature.HONOUR_SET.value
_HONOUR_SETS_2 = Feature.HONOUR_SETS_2.value
_ORPHANS_ONLY = Feature.ORPHANS_ONLY.value
_NO_456 = Feature.NO_456.value
_SEQUENCE_REPEAT = Feature.SEQUENCE_REPEAT.value
_NO_SUITS = Feature.NO_SUITS.value


_TERMINAL, _MIDDLE, _456 = 2, 4, 8
_SUIT_BITS: dict[tuple[int, ...], int] = {}


def _suit_bits(part: tuple[int, ...]) -> int:
    """Memoised: 1 any tile, 2 a terminal, 4 a 2-8, 8 a 4-6 of this suit's 9 counts."""
    bits = _SUIT_BITS.get(part, -1)
    if bits < 0:
        bits = (
            bool(any(part))
            | (bool(part[0] or part[8]) << 1)
            | (bool(any(part[1:8])) << 2)
            | (bool(any(part[3:6])) << 3)
        )
        _SUIT_BITS[part] = bits
    return bits


class TileFacts:
    """Facts about all of a hand's tiles (melds included) that no arrangement changes."""

    __slots__ = (
        "counts",
        "features",
        "honours",
        "orphans_only",
        "simples_only",
        "suits",
        "terminals_only",
    )

    def __init__(self, counts: Sequence[int]) -> None:
        self.counts = counts
        row = tuple(counts)
        bits = [_suit_bits(row[0:9]), _suit_bits(row[9:18]), _suit_bits(row[18:27])]
        self.suits: tuple[int, ...] = tuple(s for s in (0, 1, 2) if bits[s])
        """The suits (0 characters, 1 dots, 2 bamboo) with at least one tile."""
        self.honours = any(row[27:34])
        every = bits[0] | bits[1] | bits[2]
        middles = every & _MIDDLE
        self.simples_only = not self.honours and not every & _TERMINAL
        self.orphans_only = not middles
        self.terminals_only = not middles and not self.honours
        features = _HONOURS if self.honours else 0
        if not self.simples_only:
            features |= _ORPHANS
        if len(self.suits) == 1:
            features |= _ONE_SUIT
        elif not self.suits:
            features |= _NO_SUITS
        if not middles:
            features |= _ORPHANS_ONLY
        if not every & _456:
            features |= _NO_456
        self.features = features

    @classmethod
    def of(cls, tiles: Sequence[int]) -> "TileFacts":
        """Facts about these tiles."""
        return cls(count_tiles(tiles))


class HandView:
    """One arrangement of a winning hand, summarised for pattern predicates.

    `memo` is for predicates of one ruleset to share work on the same arrangement.
    """

    __slots__ = (
        "_memo",
        "arrangement",
        "blocks",
        "concealed_triplets",
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
        "win_block",
    )

    def __init__(
        self, arrangement: Arrangement, win: Win, facts: TileFacts, self_drawn: bool
    ) -> None:
        self.arrangement = arrangement
        self.form = arrangement.form
        self.blocks = blocks = arrangement.blocks
        self.win = win
        self.facts = facts
        self.self_drawn = self_drawn
        self.win_block: Block | None = blocks[arrangement.win_block] if blocks else None
        self.melded = bool(win.melds) and any(meld.exposed for meld in win.melds)
        self._memo: dict[str, object] | None = None
        sequences: list[int] = []
        triplets: list[int] = []
        pairs: list[int] = []
        kongs = concealed = honour_sets = 0
        for shape, tile, hidden, _ in blocks:
            if shape == 0:
                sequences.append(tile)
            elif shape == 3:
                pairs.append(tile)
            else:
                triplets.append(tile)
                if tile >= 27:
                    honour_sets += 1
                if shape == 2:
                    kongs += 1
                if hidden:
                    concealed += 1
        sequences.sort()
        triplets.sort()
        self.sequences = tuple(sequences)
        self.triplets = tuple(triplets)
        self.pairs = tuple(pairs)
        self.pair = pairs[0] if len(pairs) == 1 else -1
        self.kongs = kongs
        self.concealed_triplets = concealed
        features = facts.features
        if len(sequences) >= 2:
            features |= _SEQUENCES_3 | _SEQUENCES_2 if len(sequences) >= 3 else _SEQUENCES_2
            if len(set(sequences)) < len(sequences):
                features |= _SEQUENCE_REPEAT
        if len(triplets) >= 2:
            features |= _TRIPLETS_3 | _TRIPLETS_2 if len(triplets) >= 3 else _TRIPLETS_2
        if honour_sets:
            features |= _HONOUR_SETS_2 | _HONOUR_SET if honour_sets >= 2 else _HONOUR_SET
        if kongs:
            features |= _KONG
        if concealed >= 2:
            features |= _CONCEALED_2
        if win.win_type not in _PLAIN_WINS:
            features |= _SPECIAL_WIN
        self.features = features

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


Predicate = Callable[[HandView], int]
P = TypeVar("P", bound=Predicate)
_NEEDS: dict[Callable[..., int], int] = {}


def needs(*features: Feature) -> Callable[[P], P]:
    """Mark a predicate as false unless the arrangement has all these features."""

    def mark(predicate: P) -> P:
        """Record the predicate's needed features; the predicate itself is unchanged."""
        mask = 0
        for feature in features:
            mask |= int(feature)
        _NEEDS[predicate] = mask
        return predicate

    return mark


@dataclass(frozen=True)
class PatternSpec:
    """One pattern of a ruleset: name, value, group (only the best of a group counts), forms."""

    name: str
    value: int
    group: str
    forms: frozenset[Form]
    predicate: Predicate

    @property
    def needs(self) -> int:
        """The features (bits of Feature) the predicate needs to be asked at all."""
        return _NEEDS.get(self.predicate, 0)

    @cached_property
    def once(self) -> PatternValue:
        """The pattern counted once, as a score lists it."""
        return PatternValue(self.name, self.value)


def load_patterns(data: Table, predicates: Mapping[str, Predicate]) -> tuple[PatternSpec, ...]:
    """The `[patterns]` of a ruleset's data, each bound to its predicate, in file order."""
    table = get(data, "patterns", dict)
    missing = sorted(set(predicates) - set(table))
    if missing:
        raise RulesError(f"ruleset data lacks patterns: {', '.join(missing)}")
    specs = []
    for name in table:
        if name not in predicates:
            raise RulesError(f"ruleset data names pattern '{name}' that the ruleset cannot detect")
        value = get(data, f"patterns.{name}.value", int)
        group = get(table[name], "group", str) if "group" in table[name] else name
        forms = _forms(table[name].get("forms", ["regular"]), name)
        specs.append(PatternSpec(name, value, group, forms, predicates[name]))
    return tuple(specs)


def _forms(names: object, pattern: str) -> frozenset[Form]:
    if not isinstance(names, list) or not all(name in _FORMS_BY_NAME for name in names):
        choices = ", ".join(_FORMS_BY_NAME)
        raise RulesError(f"pattern '{pattern}': forms must be a list of {choices}")
    return frozenset(_FORMS_BY_NAME[name] for name in names)


class Hit(NamedTuple):
    """A pattern found in a hand, `times` times."""

    spec: PatternSpec
    times: int

    @property
    def value(self) -> int:
        """The pattern's value times the number of times it is present."""
        return self.spec.value * self.times

    @property
    def counted(self) -> PatternValue:
        """As a score lists it: the name (with `xN` when counted N > 1 times) and the value."""
        if self.times == 1:
            return self.spec.once
        return PatternValue(f"{self.spec.name} x{self.times}", self.spec.value * self.times)


class Compiled:
    """The patterns of one hand form, ready to run: which to ask is memoised per feature set."""

    __slots__ = ("_asked", "_specs")

    def __init__(self, specs: Sequence[PatternSpec]) -> None:
        self._specs = tuple((spec.needs, spec.predicate, spec) for spec in specs if spec.value)
        self._asked: dict[int, tuple[tuple[Predicate, PatternSpec], ...]] = {}

    def asked(self, features: int) -> tuple[tuple[Predicate, PatternSpec], ...]:
        """The (predicate, spec) pairs whose needed features are all in `features`."""
        found = self._asked.get(features)
        if found is None:
            found = tuple((p, s) for mask, p, s in self._specs if features & mask == mask)
            self._asked[features] = found
        return found


def by_form(specs: Sequence[PatternSpec]) -> dict[Form, Compiled]:
    """For each hand form, the patterns (with a non-zero value) that apply to it, ready to run."""
    return {form: Compiled([s for s in specs if form in s.forms]) for form in Form}


def evaluate(compiled: Compiled, view: HandView) -> list[Hit]:
    """Every pattern present in this arrangement, in data order.

    `compiled` is the entry of `by_form` for the view's form.
    """
    hits = []
    for predicate, spec in compiled.asked(view.features):
        times = predicate(view)
        if times:
            hits.append(Hit(spec, int(times)))
    return hits


def best_per_group(hits: list[Hit]) -> list[Hit]:
    """Only the highest-valued hit of each group, in data order."""
    if len(hits) < 2:
        return hits
    best: dict[str, Hit] = {}
    for hit in hits:
        held = best.get(hit.spec.group)
        if held is None or hit.value > held.value:
            best[hit.spec.group] = hit
    if len(best) == len(hits):
        return list(hits)
    kept = {id(hit) for hit in best.values()}
    return [hit for hit in hits if id(hit) in kept]
