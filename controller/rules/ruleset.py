"""The ruleset interface: one data file plus one module of pattern predicates.

`Ruleset` does everything the data can drive (tile set, wall and deal, claims, dealer
rotation, checking a declared hand, finding every arrangement, waits); a ruleset module
subclasses it and writes `tally` (how its patterns combine into a score) and
`settle_win` (who pays), and may override the other hooks. See README.md.
"""

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import ClassVar

from controller.rules.claims import ClaimRules, KongKind
from controller.rules.data import Table, get
from controller.rules.errors import RulesError
from controller.rules.hand import Meld, Win, WinType
from controller.rules.notation import tile_str
from controller.rules.patterns import PatternSpec, Predicate, by_form, load_patterns
from controller.rules.penalties import PenaltyPoints
from controller.rules.rotation import DealState, HandOutcome, RotationRules
from controller.rules.score import Payments, Score, Tally, no_payments
from controller.rules.seats import Seat
from controller.rules.shapes import (
    FORM_NAMES,
    FORMS_BY_NAME,
    Arrangement,
    Form,
    declared_reading,
    irregular_arrangements,
    regular_readings,
    waits,
)
from controller.rules.suits import MIDDLES, ODD_COUNTS, hand_profile, hand_tables
from controller.rules.tiles import KINDS
from controller.rules.tileset import TileSet
from controller.rules.timing import TimingRules
from controller.rules.values import field, value
from controller.rules.views import (
    SHARED_FACTS,
    Context,
    HandView,
    concealed_views,
    keyed_facts,
    regular_views,
    tile_facts,
)
from controller.rules.wall import WallLayout, WallPlan

_SPECIAL_CONTEXT = frozenset({WinType.HEAVENLY, WinType.EARTHLY, WinType.KONG_REPLACEMENT})
# Module constants: looking a member up on its enum class is slow in the scoring loop.
_REGULAR, _SPECIAL, _EARTHLY, _DEALER = Form.REGULAR, Form.SPECIAL, WinType.EARTHLY, Seat.E
_ROBBING_KONG = WinType.ROBBING_KONG
_PLAIN_WINS = (WinType.DISCARD, WinType.SELF_DRAW)
_shared_facts = SHARED_FACTS.get
_new = tuple.__new__
"""`_new(Score, fields)` makes a named tuple from all its fields as one tuple (cheaper than
calling the class or its `_make`, both Python functions)."""


_PLANS_KEPT = 4
"""Wall plans a ruleset keeps worked out (`Ruleset.wall_plan`)."""


@value
class SeatAtDraw:
    """One player's state when the wall runs out (input to draw settlement)."""

    concealed: tuple[int, ...]
    melds: tuple[Meld, ...] = ()
    won: bool = False
    kong_income: int = 0
    kong_paid_by: Mapping[Seat, int] = field(default_factory=dict, compare=False)
    """Who paid that kong income and how much (so a ruleset can have it returned)."""


class Ruleset(ABC):
    """A ruleset built from its data; subclasses name their data file and predicates."""

    name: ClassVar[str]
    """The ruleset's name (a shipped one's is a `RulesetName`; extensions may add others)."""
    data_file: ClassVar[str]
    predicates: ClassVar[Mapping[str, Predicate]]
    scores_the_wait: ClassVar[bool] = True
    """Whether a pattern may read where the winning tile sits (`HandView.win_block`). If not,
    readings whose blocks are the same wherever the winning tile sits are scored once."""

    def __init__(self, data: Table) -> None:
        if get(data, "name", str) != self.name:
            raise RulesError(f"ruleset file is for '{data['name']}', not '{self.name}'")
        self.data = data
        self.title: str = get(data, "title", str)
        self.unit: str = get(data, "scoring.unit", str)
        self.tiles = TileSet.from_data(data)
        self.wall = WallLayout.from_data(data, self.tiles.total)
        self.claims = ClaimRules.from_data(data)
        self.rotation = RotationRules.from_data(data)
        self.timing = TimingRules.from_data(data)
        self.penalties = PenaltyPoints.from_data(data)
        self.seating_draw: bool = get(data, "session.seating_draw", bool)
        """Whether a session starts with the seating draw of seed 003 (`[session]`)."""
        self.patterns: tuple[PatternSpec, ...] = load_patterns(data, self.predicates)
        self.patterns_by_form = by_form(self.patterns)
        self.forms = self._forms(get(data, "hand.forms", list))
        self._regular, self._special = _REGULAR in self.forms, _SPECIAL in self.forms
        self.four_in_pairs: bool = get(data, "hand.seven_pairs_four_of_a_kind", bool)
        self.self_drawn_wins = frozenset(self._win_types(get(data, "hand.self_drawn", list)))
        self._missing_kinds = tuple(k for k in range(KINDS) if k not in self.tiles.kinds)
        self._copies = self.tiles.copies
        self._allowed_counts = frozenset(range(self._copies + 1))
        self._rejects = type(self).rejection is not Ruleset.rejection
        """Whether the ruleset has a `rejection` of its own (else none is asked for)."""
        self._plans: dict[tuple[tuple[int, ...], Seat], WallPlan] = {}
        """The last few wall plans worked out (immutable; a hand asks for its plan three
        times). Few are kept: a plan is large and four dice give over a thousand of them."""

    # --- hooks a ruleset module writes or may override

    @abstractmethod
    def tally(self, view: HandView) -> Tally:
        """Combine the patterns of one arrangement into a score (or reject it)."""

    @abstractmethod
    def settle_win(self, win: Win, tally: Tally) -> Payments:
        """Who pays whom for this win (the four deltas sum to zero)."""

    def check_melds(self, win: Win) -> None:  # noqa: B027 (a hook: no check by default)
        """Raise RulesError for declared melds this ruleset refuses with this win (asked
        first by `check`, for a win with melds only; none by default)."""

    def rejection(self, win: Win) -> str:
        """Why these tiles can never win here, however arranged ('' = they may)."""
        return ""

    def extra_arrangements(self, win: Win, counts: Sequence[int]) -> list[Arrangement]:
        """Readings of the hand in this ruleset's own shapes (Form.SPECIAL); none by default.

        `counts` are the concealed tiles' counts per kind. Scored like any other reading.
        """
        return []

    def better(self, tally: Tally, than: Tally) -> bool:
        """Whether one arrangement's tally beats another's (freedom of count keeps the best)."""
        return (tally.score, tally.total) > (than.score, than.total)

    def settle_kong(
        self, kind: KongKind, konger: Seat, discarder: Seat | None, players_in: Sequence[Seat]
    ) -> Payments:
        """Payments made at once for a kong (none by default)."""
        return no_payments()

    def settle_draw(self, seats: Mapping[Seat, SeatAtDraw]) -> Payments:
        """Payments when the wall runs out with no (further) winner (none by default)."""
        return no_payments()

    def pass_kong_income(self, konger: Seat, winners: Sequence[Seat], income: int) -> Payments:
        """What a win on the discard after a kong (杠上炮) moves of the kong's income (none)."""
        return no_payments()

    def must_win(
        self, concealed: Sequence[int], melds: Sequence[Meld], tile: int, wall_before_draw: int
    ) -> bool:
        """Whether a ready player may not pass a win on `tile` (no such rule by default)."""
        return False

    def hand_over(self, winners: int, wall_left: int) -> bool:
        """Whether the hand ends: by default at the first win or when the wall is empty."""
        return winners >= 1 or wall_left <= 0

    @property
    def claim_window_s(self) -> float:
        """Seconds after a discard during which it may be claimed (`claims.window_seconds`)."""
        claims = self.data.get("claims", {})
        value = claims.get("window_seconds", 3.0) if isinstance(claims, dict) else 3.0
        return float(value) if isinstance(value, int | float) and value > 0 else 3.0

    # --- the table's questions

    def wall_plan(self, dice: tuple[int, ...], dealer: Seat = Seat.E) -> WallPlan:
        """The break, the deal and the draw order these dice give."""
        key = (tuple(dice), dealer)
        plan = self._plans.get(key)
        if plan is None:
            if len(self._plans) >= _PLANS_KEPT:
                del self._plans[next(iter(self._plans))]  # the oldest
            plan = self._plans[key] = self.wall.plan(key[0], dealer)
        return plan

    def next_deal(
        self, state: DealState, outcome: HandOutcome, dice: tuple[int, int] | None = None
    ) -> DealState:
        """Who deals the next hand and whether the round moved on."""
        return self.rotation.next_state(state, outcome, dice)

    def is_self_drawn(self, win_type: WinType) -> bool:
        """Whether the winning tile of this kind of win came from the wall."""
        return win_type in self.self_drawn_wins

    def discarder(self, win: Win) -> Seat | None:
        """Who pays as discarder: None on a self-drawn win; the konger when robbing a kong."""
        if win.win_type in self.self_drawn_wins:
            return None
        if win.discarder is not None:
            return win.discarder
        return _DEALER if win.win_type is _EARTHLY else win.seat.previous

    def score(self, win: Win) -> Score:
        """Validate and score a declared win; an invalid hand is a normal answer (valid False)."""
        counts = self.check(win)
        if self._rejects:
            reason = self.rejection(win)
            if reason:
                return self._invalid(reason)
        views = self._views(win, counts)
        if len(views) == 1:  # most hands read one way (`_best`, inlined)
            view = views[0]
            tally = self.tally(view)
            # (`view.arrangement`: a property is a call)
            arrangement = _new(Arrangement, (view.form, view.blocks, view.win_index))
        else:
            found = self._best(win, views)
            if isinstance(found, str):
                return self._invalid(found)
            tally, arrangement = found
        patterns, total, value, limits, rejected = tally
        if rejected:  # (the one reading refused: `_best` keeps no refused reading)
            return self._invalid(rejected)
        reason = "; ".join(("winning hand", *limits)) if limits else "winning hand"
        payments = self.settle_win(win, tally)
        name, unit = self.name, self.unit
        return _new(
            Score, (name, True, reason, patterns, limits, total, unit, value, payments, arrangement)
        )

    def views(self, win: Win) -> list[HandView]:
        """The view of every arrangement of a declared win: what its patterns are asked."""
        return self._views(win, self.check(win))

    def uses_draw_streak(self) -> bool:
        """Whether drawn hands in a row before a win change its score (a draw bonus)."""
        return False

    def uses_finished(self) -> bool:
        """Whether seats that already won may be named (a hand that goes on after a win)."""
        return False

    def check_applies(self, win: Win) -> None:
        """Raise RulesError if the win names facts this ruleset has no use for (a tool's
        options are then refused rather than ignored); `score` itself does not ask this."""
        if win.draw_streak and not self.uses_draw_streak():
            raise RulesError(f"{self.name} has no draw bonus: a draw streak does not apply")
        if win.finished and not self.uses_finished():
            raise RulesError(f"{self.name} ends a hand at its first win: no seat has won yet")

    def can_win(self, win: Win) -> bool:
        """Whether the declared hand is a valid win (shape and ruleset conditions)."""
        return self.score(win).valid

    def waits(self, concealed: Sequence[int], melds: Sequence[Meld] = ()) -> list[int]:
        """The tiles that would make a valid win of this 13-tile hand (won on a discard)."""
        self._check_tiles(concealed, melds, extra=1)
        held = [tile for meld in melds for tile in meld.tiles]
        if Form.SPECIAL in self.forms:  # the ruleset's own shapes: try every tile
            candidates = [k for k in range(KINDS) if (list(concealed) + held).count(k) < 4]
        else:
            forms = self.forms if not melds else frozenset({Form.REGULAR})
            candidates = waits(concealed, forms, self.four_in_pairs, held)
        result = []
        for tile in candidates:
            if tile not in self.tiles.kinds:
                continue
            hand = (*concealed, tile)
            if self.can_win(Win(hand, tuple(melds), tile, WinType.DISCARD, Seat.S, Seat.E)):
                result.append(tile)
        return result

    # --- checking input

    def check(self, win: Win) -> list[int]:
        """Raise RulesError if the declared hand is malformed; else the concealed counts."""
        melds = win.melds
        if melds:
            self.check_melds(win)
        counts = self._check_tiles(win.concealed, melds)
        # (most wins are plain and name no flowers, streak, discarder or finished seat)
        if (
            win.flowers
            or win.draw_streak
            or win.discarder is not None
            or win.finished
            or win.win_type not in _PLAIN_WINS
        ):
            self._check_declared(win)
        return counts

    def _check_declared(self, win: Win) -> None:
        """`check` of what a win declares beside its tiles."""
        if win.flowers:
            self._check_flowers(win.flowers)
        if win.draw_streak < 0:
            raise RulesError("draw streak cannot be negative")
        how = win.win_type
        if how in _SPECIAL_CONTEXT:
            self._check_context(win)
        discarder = win.discarder
        if discarder is not None:
            if how in self.self_drawn_wins:
                raise RulesError(f"a {how.value} win has no discarder: the tile came from the wall")
            if discarder is win.seat:
                raise RulesError(f"seat {win.seat.name} cannot win on its own discard")
        if how is _EARTHLY and how not in self.self_drawn_wins and discarder not in (None, _DEALER):
            raise RulesError("an earthly win on a discard is on the dealer's (E) first discard")
        if how is _ROBBING_KONG and win.all_tiles.count(win.win_tile) > 1:
            tile = tile_str(win.win_tile)
            raise RulesError(
                f"robbing a kong: the other three {tile} are in the kong, so the hand "
                f"cannot hold another {tile} (that would be five)"
            )
        if win.finished and self.discarder(win) in win.finished:
            raise RulesError("the discarder already won this hand: name the discarder")

    @staticmethod
    def _check_context(win: Win) -> None:
        how = win.win_type
        if how is WinType.HEAVENLY and win.seat is not Seat.E:
            raise RulesError("a heavenly win is the dealer's: the winner must sit E")
        if how is WinType.EARTHLY and win.seat is Seat.E:
            raise RulesError("an earthly win is a non-dealer's: the winner cannot sit E")
        if how in (WinType.HEAVENLY, WinType.EARTHLY) and any(m.exposed for m in win.melds):
            raise RulesError(f"a {how.value} win is won before any claim: it has no exposed sets")
        if win.win_type is WinType.KONG_REPLACEMENT and not any(m.is_kong for m in win.melds):
            raise RulesError("a win on a kong replacement needs a declared kong")

    def _check_tiles(
        self, concealed: Sequence[int], melds: Sequence[Meld], extra: int = 0
    ) -> list[int]:
        if len(concealed) + 3 * len(melds) != 14 - extra:
            expected = 14 - extra - 3 * len(melds)
            raise RulesError(
                f"with {len(melds)} meld(s) the hand holds {expected} concealed tiles, "
                f"got {len(concealed)}"
            )
        # Counts per kind, checked against the copies as they are counted.
        counts = [0] * KINDS
        most = self._copies
        over = False
        try:
            for tile in concealed:
                held = counts[tile] + 1
                counts[tile] = held
                if held > most:
                    over = True
        except IndexError:  # a kind past the 34 tiles: a flower
            raise RulesError("a flower in the hand: flowers are passed separately") from None
        total = counts
        if melds:
            total = _with_melds(counts, melds)
            over = not self._allowed_counts.issuperset(total)
        if over:
            tile = total.index(max(total))
            raise RulesError(f"more than {self.tiles.copies} tiles {tile_str(tile)} in the hand")
        if self._missing_kinds and any(map(total.__getitem__, self._missing_kinds)):
            tile = next(kind for kind in self._missing_kinds if total[kind])
            raise RulesError(f"{self.name} plays without {tile_str(tile)}")
        return counts

    def _check_flowers(self, flowers: Sequence[int]) -> None:
        for flower in flowers:
            if flower not in self.tiles.flowers:
                raise RulesError(f"{self.name} plays without flower tiles ({tile_str(flower)})")
        if len(set(flowers)) != len(flowers):
            raise RulesError("each flower exists once: a flower is listed twice")

    # --- internals

    def _best(self, win: Win, views: list[HandView]) -> tuple[Tally, Arrangement] | str:
        """The best view's tally and arrangement (freedom of count), or why none may win."""
        best: tuple[Tally, HandView] | None = None
        rejected = ""
        for view in views:
            tally = self.tally(view)
            if tally.rejected:
                rejected = rejected or tally.rejected
            elif best is None or self.better(tally, best[0]):
                best = (tally, view)
        if best is None:
            return rejected or self._not_a_shape(bool(win.melds))
        return best[0], best[1].arrangement

    def _views(self, win: Win, counts: list[int]) -> list[HandView]:
        """A view of every arrangement of the hand, in the order they are scored."""
        tables, packed, key, one_way = hand_tables(counts)
        self_drawn = win.win_type in self.self_drawn_wins
        melds = win.melds
        views: list[HandView] = []
        context = None  # what the views not made here share, made if there are any
        if melds:
            every = _with_melds(counts, melds)
            facts = tile_facts(hand_profile(every))
            if self._regular:
                found = regular_readings(
                    tables, declared_reading(melds), win.win_tile, self_drawn, self.scores_the_wait
                )
                if found:
                    views = regular_views(found, win, every, facts, self_drawn)
        else:
            every = counts
            facts = _shared_facts(key) or keyed_facts(key)
            if self._regular:
                wait = self.scores_the_wait
                if one_way is not None:  # most hands: every suit reads one way
                    views = concealed_views(one_way, win, counts, facts, self_drawn, wait)
                else:
                    found = regular_readings(tables, None, win.win_tile, self_drawn, wait)
                    if found:
                        views = regular_views(found, win, counts, facts, self_drawn)
            if not packed & ODD_COUNTS or not packed & MIDDLES:
                irregular = irregular_arrangements(
                    counts, packed, win.win_tile, self.forms, self.four_in_pairs
                )
                for arrangement in irregular:
                    context = context or Context(win, every, facts, self_drawn)
                    views.append(HandView.of(arrangement, context))
        if self._special:
            for arrangement in self.extra_arrangements(win, counts):
                context = context or Context(win, every, facts, self_drawn)
                views.append(HandView.of(arrangement, context))
        return views

    def _not_a_shape(self, melded: bool) -> str:
        shapes = ["four sets and a pair"]
        if not melded:
            shapes += [
                FORM_NAMES[f].replace("-", " ")
                for f in (Form.SEVEN_PAIRS, Form.THIRTEEN_ORPHANS)
                if f in self.forms
            ]
        return "not a winning hand: the tiles make no " + " or ".join(shapes)

    def _invalid(self, reason: str) -> Score:
        return Score(self.name, False, reason, unit=self.unit)

    @staticmethod
    def _forms(names: list[object]) -> frozenset[Form]:
        try:
            return frozenset(FORMS_BY_NAME[str(name)] for name in names)
        except KeyError as exc:
            raise RulesError(
                f"hand.forms: unknown form {exc}; use {', '.join(FORMS_BY_NAME)}"
            ) from None

    @staticmethod
    def _win_types(names: list[object]) -> list[WinType]:
        try:
            return [WinType(str(name)) for name in names]
        except ValueError as exc:
            raise RulesError(f"hand.self_drawn: {exc}") from None


def _with_melds(counts: list[int], melds: Sequence[Meld]) -> list[int]:
    """Counts of the concealed tiles and the melds' tiles together."""
    total = list(counts)
    for meld in melds:
        for tile in meld.tiles:
            total[tile] += 1
    return total
