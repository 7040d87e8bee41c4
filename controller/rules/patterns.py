"""Patterns as data plus one predicate each: loading, gating and asking them.

A ruleset's TOML lists its patterns (`[patterns."Name"]` with value, group and the hand
forms it applies to); its module maps each name to a predicate `HandView -> int` that says
how many times the pattern is present (0 = not present; most return a bool). A predicate
may be marked `@needs(Feature.X, ...)`: it is then only asked when the arrangement has
those cheap features, which keeps scoring fast (see `Gate`).
"""

from collections.abc import Callable, Mapping, Sequence
from functools import cached_property
from itertools import compress
from typing import NamedTuple, TypeVar

from controller.rules.data import Table, get
from controller.rules.errors import RulesError
from controller.rules.score import PatternValue
from controller.rules.shapes import FORMS_BY_NAME, Form
from controller.rules.values import value
from controller.rules.views import Feature, HandView

Predicate = Callable[[HandView], int]
P = TypeVar("P", bound=Predicate)


class Gate(NamedTuple):
    """When a predicate is asked: the arrangement has every feature of `needs` and none of
    `without`. A gate that `decides` is exact: the pattern is present (once) just when the
    gate opens, so the predicate is not asked at all (tests check the two agree)."""

    needs: int = 0
    without: int = 0
    decides: bool = False

    def opens(self, features: int) -> bool:
        """Whether an arrangement with these features passes the gate."""
        return features & self.needs == self.needs and not features & self.without


_GATES: dict[Callable[..., int], Gate] = {}


def needs(
    *features: Feature, without: Feature | None = None, decides: bool = False
) -> Callable[[P], P]:
    """Mark a predicate as false unless the arrangement has all these features and none of
    `without`; with `decides`, as true exactly then (see `Gate`)."""

    def mark(predicate: P) -> P:
        """Record the predicate's gate; the predicate itself is unchanged."""
        mask = 0
        for feature in features:
            mask |= int(feature)
        _GATES[predicate] = Gate(mask, int(without or 0), decides)
        return predicate

    return mark


@value
class PatternSpec:
    """One pattern of a ruleset: name, value, group (only the best of a group counts), forms."""

    name: str
    value: int
    group: str
    forms: frozenset[Form]
    predicate: Predicate

    @property
    def gate(self) -> Gate:
        """When the predicate is asked (an open gate by default)."""
        return _GATES.get(self.predicate, _OPEN)

    @property
    def needs(self) -> int:
        """The features (bits of Feature) the predicate needs to be asked at all."""
        return self.gate.needs

    @cached_property
    def once(self) -> PatternValue:
        """The pattern counted once, as a score lists it."""
        return PatternValue(self.name, self.value)


_OPEN = Gate()


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
    if not isinstance(names, list) or not all(name in FORMS_BY_NAME for name in names):
        choices = ", ".join(FORMS_BY_NAME)
        raise RulesError(f"pattern '{pattern}': forms must be a list of {choices}")
    return frozenset(FORMS_BY_NAME[name] for name in names)


class Hit:
    """A pattern found in a hand, `times` times."""

    __slots__ = ("counted", "spec", "times", "value")

    def __init__(self, spec: PatternSpec, times: int) -> None:
        self.spec = spec
        self.times = times
        self.value = spec.value * times
        """The pattern's value times the number of times it is present."""
        self.counted = (
            spec.once if times == 1 else PatternValue(f"{spec.name} x{times}", self.value)
        )
        """As a score lists it: the name (with `xN` when counted N > 1 times) and the value."""

    def __repr__(self) -> str:
        return f"Hit({self.spec.name!r}, {self.times})"


_LANE = 32
"""Bits per gate when every gate is tried at once (`Compiled.__missing__`): features use
fewer than _LANE - 1."""
_OPEN_IF_CLEAR = bytes([1]) + bytes(255)
"""bytes.translate table: a gate's top byte (0 unless shut) to whether it opens."""

Asked = tuple[tuple[Predicate | None, Hit, int], ...]
"""Predicates to ask (None: decided by the features, present), each with the hit it makes
when present once and its group's bit."""


class Compiled(dict[int, Asked]):
    """The patterns of one hand form, ready to run: `compiled[features]` is what to ask of
    an arrangement with those features (worked out the first time, then a dict look-up)."""

    def __init__(self, specs: Sequence[PatternSpec]) -> None:
        super().__init__()
        groups: dict[str, int] = {}
        for spec in specs:
            groups.setdefault(spec.group, 1 << len(groups))
        self.specs = tuple(
            (spec.gate, spec.predicate, Hit(spec, 1), groups[spec.group])
            for spec in specs
            if spec.value
        )
        self._asked = tuple(
            (None if gate.decides else predicate, once, group)
            for gate, predicate, once, group in self.specs
        )
        masks = [(gate.needs, gate.without) for gate, *_ in self.specs]
        # The distinct gates, each spec's (a byte), and every gate's masks in a lane of _LANE
        # bits of one int (features fit below a lane's top bit): features never seen before
        # try every gate at once (see `__missing__`).
        lanes = {mask: lane for lane, mask in enumerate(dict.fromkeys(masks))}
        self._gate_of = bytes(map(lanes.__getitem__, masks))
        self._unused = bytes(256 - len(lanes))
        """Pads the open gates to a bytes.translate table (from `_gate_of`)."""
        every_needs = every_without = read = 0
        for (needs, without), lane in lanes.items():
            every_needs |= needs << _LANE * lane
            every_without |= without << _LANE * lane
            read |= needs | without
        self._needs, self._withouts, self._lanes = every_needs, every_without, len(lanes)
        self._ones = ((1 << _LANE * len(lanes)) - 1) // ((1 << _LANE) - 1)
        """A 1 in each lane (a mask times it: the mask in every lane)."""
        self._tops = self._ones << _LANE - 1
        if read >> _LANE - 1:
            raise ValueError(f"feature bits past {_LANE - 2} do not fit a gate's lane")
        self._read = read
        """The feature bits some gate reads: features alike in these ask alike."""
        self._by_read: dict[int, Asked] = {}

    def __missing__(self, features: int) -> Asked:
        read = features & self._read
        found = self._by_read.get(read)
        if found is None:
            # Gate.opens of each gate, in its lane: no needed bit missing, no unwanted one
            # present. A lane that is not 0 shuts its gate: adding all ones below the lane's
            # top bit sets that bit just then, and the lane's top byte holds it.
            ones, tops = self._ones, self._tops
            shut = self._needs & (self._read ^ read) * ones | self._withouts & read * ones
            tops &= shut + tops - ones
            flags = tops.to_bytes(_LANE // 8 * self._lanes, "little")[_LANE // 8 - 1 :: 4]
            specs_open = self._gate_of.translate(flags.translate(_OPEN_IF_CLEAR) + self._unused)
            found = self._by_read[read] = tuple(compress(self._asked, specs_open))
        self[features] = found
        return found

    def asked(self, features: int) -> Asked:
        """The patterns whose gates open for `features`, in data order."""
        return self[features]


def by_form(specs: Sequence[PatternSpec]) -> dict[Form, Compiled]:
    """For each hand form, the patterns (with a non-zero value) that apply to it, ready to run."""
    return {form: Compiled([s for s in specs if form in s.forms]) for form in Form}


def evaluate(compiled: Compiled, view: HandView) -> list[Hit]:
    """Every pattern present in this arrangement, in data order.

    `compiled` is the entry of `by_form` for the view's form.
    """
    hits = []
    for predicate, once, _ in compiled[view.features]:
        times = 1 if predicate is None else predicate(view)
        if times:
            hits.append(once if times == 1 else Hit(once.spec, int(times)))
    return hits


_MULTIPLES: dict[tuple[Hit, int], Hit] = {}
"""Hits of patterns present more than once, shared like the hits of patterns present once
(a ruleset may keep what a combination of hits adds up to, by the hits)."""


def shared_hit(once: Hit, times: int) -> Hit:
    """The shared hit of the pattern of `once` present `times` (> 1) times."""
    found = _MULTIPLES.get((once, times))
    if found is None:
        found = _MULTIPLES[once, times] = Hit(once.spec, times)
    return found


def keep_better(hits: list[Hit], hit: Hit) -> None:
    """Replace the hit of the same group if this one is worth more (it comes later in data
    order, so it goes last)."""
    held = next(h for h in hits if h.spec.group == hit.spec.group)
    if hit.value > held.value:
        hits.remove(held)
        hits.append(hit)


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
