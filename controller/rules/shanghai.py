"""Shanghai mahjong (上海麻将): only special hands win; base points, fan and the 喇子 limit.

A hand wins only if it is special: Mixed One-Suit, Pure One-Suit, All Pungs, All Honours,
Jumbled Winds (fourteen honours, no shape needed), Eight Flowers (wins at once) or a
heavenly or earthly win with a regular shape. A limit hand pays its multiple of the limit
and counts alone (the highest one); any other hand pays base x 2^fan x rate, capped at the
limit. After drawn hands in a row every score, the limit included, doubles per draw (荒番).
"""

from collections import Counter
from collections.abc import Sequence

from controller.rules.data import Table, get
from controller.rules.errors import RulesError
from controller.rules.hand import Win, WinType
from controller.rules.patterns import Hit, Predicate, evaluate, needs
from controller.rules.ruleset import Ruleset
from controller.rules.score import PatternValue, Payments, Tally, payments_from
from controller.rules.shapes import Arrangement, Form, Shape
from controller.rules.tiles import EAST, FLOWERS, RED, WHITE
from controller.rules.values import replace
from controller.rules.views import Feature, HandView

EIGHT_FLOWERS = "八花"
KINDS = ("base", "fan", "limit")
FAN_MODES = ("doubling", "multiplier")
PLAIN_HAND = (
    "a plain hand may not win: Shanghai needs a special hand (one suit with or without "
    "honours, all pungs, all honours, Jumbled Winds, Eight Flowers, or a heavenly or "
    "earthly win)"
)
_SPECIAL = Arrangement(Form.SPECIAL, (), -1)
_PLAIN = Tally((), 0, 0, rejected=PLAIN_HAND)
_KONG_REPLACEMENT = WinType.KONG_REPLACEMENT


# --- base points (底分)


@needs(decides=True)
def a_win(view: HandView) -> bool:
    """Every winning hand."""
    return True


@needs(Feature.FLOWERS)
def flowers(view: HandView) -> int:
    """Per flower held."""
    return len(view.win.flowers)


SUITED, WIND, DRAGON = range(27), range(EAST, WHITE), range(WHITE, RED + 1)


_TRIPLET, _KONG = Shape.TRIPLET, Shape.KONG


def _pungs(view: HandView, tiles: range) -> int:
    return sum(1 for b in view.blocks if b.shape == _TRIPLET and b.tile in tiles)


@needs(Feature.HONOUR_SET)
def wind_pungs(view: HandView) -> int:
    """Per pung of winds (any wind; a kong is counted as a kong instead)."""
    return _pungs(view, WIND)


@needs(Feature.HONOUR_SET)
def dragon_pungs(view: HandView) -> int:
    """Per pung of dragons."""
    return _pungs(view, DRAGON)


def _kongs(tiles: range, concealed: bool) -> Predicate:
    @needs(Feature.KONG)
    def predicate(view: HandView) -> int:
        return sum(
            1
            for b in view.blocks
            if b.shape == _KONG and b.concealed is concealed and b.tile in tiles
        )

    how = "concealed" if concealed else "exposed"
    what = {SUITED: "suit tiles", WIND: "a wind", DRAGON: "a dragon"}[tiles]
    predicate.__doc__ = f"Per {how} kong of {what}."
    return predicate


# --- fan (番): doublings that add


@needs(Feature.SPECIAL_WIN)
def win_on_kong(view: HandView) -> bool:
    """Self-drawn on the replacement tile of a kong or a flower (杠开)."""
    return view.win.win_type is WinType.KONG_REPLACEMENT


@needs(Feature.DECLARED)
def big_crane(view: HandView) -> bool:
    """Four declared sets, won on the single tile left in the hand (大吊车)."""
    return len(view.win.melds) == 4


@needs(Feature.ONE_SUIT, Feature.HONOURS, decides=True)
def mixed_one_suit(view: HandView) -> bool:
    """Number tiles of one suit plus honours."""
    return len(view.facts.suits) == 1 and view.facts.honours


@needs(Feature.TRIPLETS_4, decides=True)
def all_pungs(view: HandView) -> bool:
    """Four pungs or kongs."""
    return len(view.triplets) == 4


# --- limit hands (multiples of 喇子)


@needs(Feature.SPECIAL_WIN)
def heavenly(view: HandView) -> bool:
    """The dealer wins on the dealt hand."""
    return view.win.win_type is WinType.HEAVENLY


@needs(Feature.SPECIAL_WIN)
def earthly(view: HandView) -> bool:
    """A non-dealer wins in the first go-round."""
    return view.win.win_type is WinType.EARTHLY


@needs(Feature.FLOWERS)
def eight_flowers(view: HandView) -> bool:
    """All eight flowers held."""
    return len(view.win.flowers) == FLOWERS


@needs(Feature.NO_SUITS, decides=True)
def honours_only(view: HandView) -> bool:
    """Winds and dragons only (字一色 as four pungs and a pair, 乱风向 in any arrangement)."""
    return not view.facts.suits


@needs(Feature.ONE_SUIT, Feature.TRIPLETS_4, without=Feature.HONOURS, decides=True)
def pure_pungs(view: HandView) -> bool:
    """One suit, no honours, four pungs or kongs."""
    return pure_one_suit(view) and len(view.triplets) == 4


@needs(Feature.ONE_SUIT, without=Feature.HONOURS, decides=True)
def pure_one_suit(view: HandView) -> bool:
    """Number tiles of one suit only."""
    return len(view.facts.suits) == 1 and not view.facts.honours


@needs(Feature.ONE_SUIT, Feature.HONOURS, Feature.TRIPLETS_4, decides=True)
def mixed_pungs(view: HandView) -> bool:
    """One suit plus honours, four pungs or kongs."""
    return mixed_one_suit(view) and len(view.triplets) == 4


PREDICATES: dict[str, Predicate] = {
    "和牌": a_win,
    "花": flowers,
    "风碰": wind_pungs,
    "字碰": dragon_pungs,
    "明杠": _kongs(SUITED, concealed=False),
    "暗杠": _kongs(SUITED, concealed=True),
    "风明杠": _kongs(WIND, concealed=False),
    "风暗杠": _kongs(WIND, concealed=True),
    "字明杠": _kongs(DRAGON, concealed=False),
    "字暗杠": _kongs(DRAGON, concealed=True),
    "杠开": win_on_kong,
    "大吊车": big_crane,
    "混一色": mixed_one_suit,
    "碰碰胡": all_pungs,
    "天和": heavenly,
    "地和": earthly,
    "八花": eight_flowers,
    "字一色": honours_only,
    "乱风向": honours_only,
    "清碰": pure_pungs,
    "清一色": pure_one_suit,
    "混碰": mixed_pungs,
}


class Shanghai(Ruleset):
    """Shanghai mahjong as design/rules.md reads seed 000."""

    name = "shanghai"
    data_file = "shanghai.toml"
    predicates = PREDICATES
    scores_the_wait = False  # no pattern reads where the winning tile sits

    def __init__(self, data: Table) -> None:
        super().__init__(data)
        self.limit: int = _positive(data, "scoring.limit")
        self.rate: int = _positive(data, "scoring.rate")
        self.draw_bonus: int = _positive(data, "scoring.draw_bonus")
        self.fan_mode: str = get(data, "scoring.fan_mode", str)
        if self.fan_mode not in FAN_MODES:
            raise RulesError(
                f"scoring.fan_mode: use {' or '.join(FAN_MODES)}; got '{self.fan_mode}'"
            )
        self.kinds = {spec.name: _kind(data, spec.name) for spec in self.patterns}
        self.qualifying = frozenset(
            name for name, kind in self.kinds.items() if _qualifies(data, name, kind)
        )

    # --- which hands may be declared

    def uses_draw_streak(self) -> bool:
        """The draw bonus (荒番) multiplies a win after drawn hands, unless it is x1."""
        return self.draw_bonus > 1

    def check(self, win: Win) -> list[int]:
        """The usual checks; also a win on a flower's replacement, and Eight Flowers one short.

        A flower's replacement tile is drawn like a kong's (declared as kong-replacement, with
        the flowers and no kong). Eight Flowers wins at once on the eighth flower, before its
        replacement comes, so the hand may hold one tile fewer than a full hand.
        """
        if len(win.flowers) == FLOWERS and not self.is_self_drawn(win.win_type):
            raise RulesError(
                "Eight Flowers wins at once on the eighth flower drawn, never on a discard"
            )
        if win.win_type is _KONG_REPLACEMENT and not any(m.is_kong for m in win.melds):
            if not win.flowers:
                raise RulesError("a win on a replacement tile needs a declared kong or a flower")
            win = replace(win, win_type=WinType.SELF_DRAW)
        if len(win.flowers) != FLOWERS or len(win.concealed) != 13 - 3 * len(win.melds):
            return super().check(win)
        held = Counter(win.all_tiles)
        spare = next(k for k in sorted(self.tiles.kinds) if held[k] < self.tiles.copies)
        counts = super().check(replace(win, concealed=(*win.concealed, spare)))
        counts[spare] -= 1
        return counts

    def extra_arrangements(self, win: Win, counts: Sequence[int]) -> list[Arrangement]:
        """Jumbled Winds (honours only) and Eight Flowers win with no shape at all."""
        if len(win.flowers) == FLOWERS:
            return [_SPECIAL]
        if any(counts[:27]) or any(meld.first < 27 for meld in win.melds):
            return []
        return [_SPECIAL]

    # --- scoring

    def tally(self, view: HandView) -> Tally:
        """A limit hand alone, else base x 2^fan x rate capped at the limit; then 荒番."""
        hits = evaluate(self.patterns_by_form[view.form], view)
        streak = view.win.draw_streak
        top: Hit | None = None
        for hit in hits:
            if self.kinds[hit.spec.name] == "limit" and (top is None or hit.value > top.value):
                top = hit
        if top is not None:
            return self._limit_hand(top, streak)
        for hit in hits:
            if hit.spec.name in self.qualifying:
                return self._points(hits, streak)
        return _PLAIN

    def _limit_hand(self, top: Hit, streak: int) -> Tally:
        points = top.value * self.limit
        note = f"limit hand: {top.spec.name} pays {top.value} x the limit {self.limit} = {points}"
        more, score = self._bonus(streak, points)
        return Tally((PatternValue(top.spec.name, points),), score, score, (note, *more))

    def _points(self, hits: list[Hit], streak: int) -> Tally:
        base = sum(hit.value for hit in hits if self.kinds[hit.spec.name] == "base")
        fan = sum(hit.value for hit in hits if self.kinds[hit.spec.name] == "fan")
        if self.fan_mode == "doubling":
            points, times = base * 2**fan * self.rate, f"2^{fan} (fan)"
        else:
            points, times = base * max(fan, 1) * self.rate, f"{max(fan, 1)} (fan)"
        rate = f" x rate {self.rate}" if self.rate != 1 else ""
        notes = [f"{base} base points x {times}{rate} = {points}"]
        capped = min(points, self.limit)
        if points > self.limit:
            notes.append(f"capped at the limit (喇子) {self.limit}")
        more, score = self._bonus(streak, capped)
        patterns = tuple(hit.counted for hit in hits)
        return Tally(patterns, points * self.draw_bonus**streak, score, (*notes, *more))

    def _bonus(self, streak: int, points: int) -> tuple[tuple[str, ...], int]:
        if not streak or self.draw_bonus == 1:
            return (), points
        times = self.draw_bonus**streak
        hands = "hand" if streak == 1 else "hands in a row"
        note = f"draw bonus (荒番): after {streak} drawn {hands}, x{times} = {points * times}"
        return (note,), points * times

    # --- payments

    def settle_win(self, win: Win, tally: Tally) -> Payments:
        """The discarder pays a discard win; on a self-drawn win (or Eight Flowers) each other."""
        value = tally.score
        eight = any(pattern.name == EIGHT_FLOWERS for pattern in tally.patterns)
        payer = None if eight else self.discarder(win)
        if payer is None:
            return payments_from(dict.fromkeys(win.seat.others(), value), win.seat)
        return payments_from({payer: value}, win.seat)


def _positive(data: Table, path: str) -> int:
    value: int = get(data, path, int)
    if value < 1:
        raise RulesError(f"ruleset data '{path}' must be at least 1, not {value}")
    return value


def _qualifies(data: Table, name: str, kind: str) -> bool:
    """Whether a pattern lets a hand win: every limit hand; a fan only if the data says so."""
    if kind == "fan":
        return bool(get(data, f"patterns.{name}.qualifies", bool))
    return kind == "limit"


def _kind(data: Table, name: str) -> str:
    kind: str = get(data, f"patterns.{name}.kind", str)
    if kind not in KINDS:
        raise RulesError(f"pattern '{name}': kind must be {', '.join(KINDS)}; got '{kind}'")
    return kind


RULESET = Shanghai
