"""Sichuan blood battle (血战到底): fan patterns, payments, kong payments and draw settlement.

Only the single highest base pattern counts; roots (根), 杠上花 and 杠上炮 add to it.
A hand of F fan pays base x 2^(F-1). Readings decided here (defaults in `sichuan.toml`):
- A root is a tile kind the hand holds all four of: a kong (exposed or concealed), four
  concealed, or a pung plus the fourth tile elsewhere in the hand.
- Base patterns of equal value (天胡 and 清龙七对) are resolved to the one worth more fan
  with its roots; 天胡/地胡 count no roots, 龙七对/清龙七对 absorb one.
- 地胡 is a non-dealer's win on their first draw, so it is self-drawn.
- Players who have already won are `Win.finished`: they do not pay a self-drawn win.
- 杠上炮: the fan is scored with the win; the kong's income passes to each winner by
  `pass_kong_income` (one call per 杠上炮, with every winner of that discard).
- The last-4 rule (最后四张): `must_win` says whether a ready player must win on a tile
  that came from the wall when it held 4 tiles or fewer; the referee refuses a pass then.
- Kong payments (`settle_kong`) are made when the kong stands; an added kong that is
  robbed is never settled. Blood battle: `hand_over` says when the hand ends.
"""

from collections.abc import Iterable, Mapping, Sequence

from controller.rules.claims import KongKind
from controller.rules.data import Table, get
from controller.rules.errors import RulesError
from controller.rules.hand import Meld, MeldKind, Win, WinType
from controller.rules.patterns import Hit, Predicate, evaluate, needs
from controller.rules.ruleset import Ruleset, SeatAtDraw
from controller.rules.score import Payments, Score, Tally, add_payments, no_payments, payments_from
from controller.rules.seats import SEATS, Seat
from controller.rules.views import Feature, HandView

BASE = "base"
ROOT = "根"
THREE_SUITS = "three suits: a Sichuan hand must be void in one suit"
NO_CHOW = "a chow: Sichuan has no chow (pung and kong only)"
_NO_BASE = Tally((), 0, 0, rejected="no base pattern counts for this hand")


def _suits(tiles: Iterable[int]) -> int:
    return len({tile // 9 for tile in tiles})


# --- base patterns


@needs(decides=True)
def plain(view: HandView) -> bool:
    """平胡: four sets and a pair."""
    return True


@needs(Feature.TRIPLETS_4, decides=True)
def all_pungs(view: HandView) -> bool:
    """对对胡: four pungs or kongs and a pair."""
    return len(view.triplets) == 4


@needs(Feature.ONE_SUIT, decides=True)
def pure_one_suit(view: HandView) -> bool:
    """清一色: every tile of one suit."""
    return len(view.facts.suits) == 1


@needs(Feature.NO_456)
def terminal_sets(view: HandView) -> bool:
    """带幺九: every set and the pair hold a 1 or a 9."""
    for block in view.blocks:
        face = block.tile % 9
        if face not in ((0, 6) if block.shape == 0 else (0, 8)):
            return False
    return True


@needs(decides=True)
def seven_pairs(view: HandView) -> bool:
    """七对: seven pairs, nothing melded."""
    return True


@needs(Feature.ONE_SUIT, Feature.TRIPLETS_4, decides=True)
def pure_pungs(view: HandView) -> bool:
    """清对: all pungs of one suit."""
    return all_pungs(view) and pure_one_suit(view)


@needs(Feature.TRIPLETS_3)
def pungs_258(view: HandView) -> bool:
    """将对: all pungs or kongs of 2, 5 or 8, and a pair of 2, 5 or 8."""
    tiles = (*view.triplets, view.pair)
    return len(view.triplets) == 4 and all(tile % 9 in (1, 4, 7) for tile in tiles)


@needs(Feature.FOUR_OF_A_KIND, decides=True)
def dragon_seven_pairs(view: HandView) -> bool:
    """龙七对: seven pairs holding four of a kind."""
    return 4 in view.counts


@needs(Feature.ONE_SUIT, decides=True)
def pure_seven_pairs(view: HandView) -> bool:
    """清七对: seven pairs of one suit."""
    return pure_one_suit(view)


@needs(Feature.ONE_SUIT, Feature.NO_456)
def pure_terminal_sets(view: HandView) -> bool:
    """清幺九: 带幺九 of one suit."""
    return pure_one_suit(view) and terminal_sets(view)


@needs(Feature.ONE_SUIT, Feature.FOUR_OF_A_KIND, decides=True)
def pure_dragon_seven_pairs(view: HandView) -> bool:
    """清龙七对: 龙七对 of one suit."""
    return pure_one_suit(view) and dragon_seven_pairs(view)


def _won(win_type: WinType) -> Predicate:
    @needs(Feature.SPECIAL_WIN)
    def predicate(view: HandView) -> bool:
        return view.win.win_type is win_type

    predicate.__doc__ = f"Won by {win_type.value}."
    return predicate


# --- extras


@needs(Feature.FOUR_OF_A_KIND)
def roots(view: HandView) -> int:
    """根: per tile kind held four times (melded as a kong or not)."""
    return view.counts.count(4)


def self_drawn(view: HandView) -> bool:
    """自摸: the winning tile came from the wall."""
    return view.self_drawn


PREDICATES: dict[str, Predicate] = {
    "平胡": plain,
    "对对胡": all_pungs,
    "清一色": pure_one_suit,
    "带幺九": terminal_sets,
    "七对": seven_pairs,
    "清对": pure_pungs,
    "将对": pungs_258,
    "龙七对": dragon_seven_pairs,
    "清七对": pure_seven_pairs,
    "清幺九": pure_terminal_sets,
    "天胡": _won(WinType.HEAVENLY),
    "地胡": _won(WinType.EARTHLY),
    "清龙七对": pure_dragon_seven_pairs,
    ROOT: roots,
    "杠上花": _won(WinType.KONG_REPLACEMENT),
    "杠上炮": _won(WinType.AFTER_KONG_DISCARD),
    "自摸": self_drawn,
}


class Sichuan(Ruleset):
    """Sichuan blood battle: fan, one-to-one payments, kong payments, draw settlement."""

    name = "sichuan"
    data_file = "sichuan.toml"
    predicates = PREDICATES
    scores_the_wait = False  # no pattern reads where the winning tile sits

    def __init__(self, data: Table) -> None:
        super().__init__(data)
        self.max_fan: int = get(data, "scoring.max_fan", int)
        self.base: int = get(data, "settlement.base", int)
        self.self_drawn_extra: int = get(data, "settlement.self_drawn_extra", int)
        self.kong_rates = {
            KongKind.EXPOSED: get(data, "settlement.kong_exposed", int),
            KongKind.ADDED: get(data, "settlement.kong_added", int),
            KongKind.CONCEALED: get(data, "settlement.kong_concealed", int),
        }
        self.flower_pig: int = get(data, "draw.flower_pig", int)
        self.pig_pays_winners: bool = get(data, "draw.pig_pays_players_who_won", bool)
        self.returns_kongs: bool = get(data, "draw.not_ready_returns_kongs", bool)
        self.must_win_last: int = get(data, "claims.must_win_last", int)
        self.winners_to_end: int = get(data, "battle.winners_to_end", int)
        if self.max_fan < 0 or self.base < 1 or not 1 <= self.winners_to_end <= 3:
            raise RulesError("sichuan: max_fan >= 0 (0 = no cap), base >= 1, winners_to_end 1-3")
        table = data["patterns"]
        self._absorbs = {name: int(table[name].get("absorbs_roots", 0)) for name in table}
        self._no_roots = {name for name in table if not table[name].get("counts_roots", True)}

    # --- scoring

    def rejection(self, win: Win) -> str:
        """No chow; at most two suits (void in one)."""
        if win.melds and any(meld.kind is MeldKind.CHOW for meld in win.melds):
            return NO_CHOW
        return THREE_SUITS if _suits(win.all_tiles) == 3 else ""

    def tally(self, view: HandView) -> Tally:
        """The single highest base pattern, plus roots and the other extras; then max_fan."""
        hits = evaluate(self.patterns_by_form[view.form], view)
        bases = [hit for hit in hits if hit.spec.group == BASE]
        if not bases:
            return _NO_BASE
        found = roots(view)
        top = bases[0]
        if len(bases) > 1:
            top = max(bases, key=lambda hit: (hit.value, self._roots_kept(hit, found)))
        kept = self._roots_kept(top, found)
        counted: list[Hit] = []
        for hit in hits:
            if hit.spec.group == BASE:
                if hit is top:
                    counted.append(hit)
            elif hit.spec.name == ROOT:
                if kept:
                    counted.append(Hit(hit.spec, kept))
            else:
                counted.append(hit)
        patterns = tuple([hit.counted for hit in counted])
        fan = sum([hit.value for hit in counted])
        limits: tuple[str, ...] = ()
        if self.max_fan and fan > self.max_fan:
            limits = (f"limit: {fan} fan capped at {self.max_fan}",)
            fan = self.max_fan
        return Tally(patterns, fan, 2 ** (fan - 1), limits)

    def _roots_kept(self, base: Hit, found: int) -> int:
        if base.spec.name in self._no_roots:
            return 0
        return max(0, found - self._absorbs.get(base.spec.name, 0))

    def uses_finished(self) -> bool:
        """Blood battle: the hand goes on after a win, so earlier winners may be named."""
        return True

    def check(self, win: Win) -> list[int]:
        """As the base check; a self-drawn win needs someone still in to pay it."""
        counts = super().check(win)
        if self.discarder(win) is None and len(win.finished - {win.seat}) == 3:
            raise RulesError("the other three have won: the hand is over")
        return counts

    # --- payments

    def settle_win(self, win: Win, tally: Tally) -> Payments:
        """Discard: the discarder pays; self-drawn: every player still in pays."""
        stake = tally.score * self.base
        discarder = self.discarder(win)
        if discarder is not None:
            return payments_from({discarder: stake}, win.seat)
        each = stake + self.self_drawn_extra * self.base
        payers = [seat for seat in win.seat.others() if seat not in win.finished]
        return payments_from(dict.fromkeys(payers, each), win.seat)

    def settle_discard(self, wins: Sequence[Win]) -> tuple[tuple[Score, ...], Payments]:
        """Several players winning on one discard (一炮多响): each settled one-to-one."""
        discarders = {self.discarder(win) for win in wins}
        if not wins or None in discarders or len(discarders) != 1:
            raise RulesError("a shared discard: every win is on a discard by the same player")
        if len({win.seat for win in wins}) != len(wins):
            raise RulesError("a shared discard: each seat wins once")
        scores = tuple(self.score(win) for win in wins)
        return scores, add_payments(*(score.payments for score in scores))

    def pass_kong_income(self, konger: Seat, winners: Sequence[Seat], income: int) -> Payments:
        """杠上炮: the konger hands the kong's income to each winner on the discard after it."""
        if income < 0 or konger in winners or len(set(winners)) != len(winners):
            raise RulesError("杠上炮: income >= 0, passed from the konger to other, distinct seats")
        result = no_payments()
        for winner in winners:
            _pay(result, konger, winner, income)
        return result

    def settle_kong(
        self, kind: KongKind, konger: Seat, discarder: Seat | None, players_in: Sequence[Seat]
    ) -> Payments:
        """Exposed: the discarder pays 1x; added: each still in 1x; concealed: each still in 2x."""
        amount = self.kong_rates[kind] * self.base
        if kind is KongKind.EXPOSED:
            if discarder is None or discarder is konger:
                raise RulesError("a kong on a discard: name the discarder (another player)")
            return payments_from({discarder: amount}, konger)
        if discarder is not None:
            raise RulesError(f"an {kind.value} kong is made from the player's own tiles")
        return payments_from({s: amount for s in players_in if s is not konger}, konger)

    # --- the wall runs out

    def settle_draw(self, seats: Mapping[Seat, SeatAtDraw]) -> Payments:
        """Flower pigs pay 16x; not-ready players pay ready ones and return kong income."""
        if set(seats) != set(SEATS):
            raise RulesError("draw settlement needs all four seats")
        still = [seat for seat in SEATS if not seats[seat].won]
        pigs = {seat for seat in still if self._is_pig(seat, seats[seat])}
        fans = {seat: self._highest(seat, seats[seat]) for seat in still if seat not in pigs}
        ready = {seat: fan for seat, fan in fans.items() if fan}
        result = no_payments()
        for pig in pigs:
            for other in pig.others():
                if other not in pigs and (self.pig_pays_winners or not seats[other].won):
                    _pay(result, pig, other, self.flower_pig * self.base)
        for seat in fans:
            if seat not in ready:
                for winner, fan in ready.items():
                    _pay(result, seat, winner, 2 ** (fan - 1) * self.base)
        if self.returns_kongs:
            for seat in still:
                if seat not in ready:
                    self._return_kongs(result, seat, seats[seat])
        return result

    def is_flower_pig(self, concealed: Sequence[int], melds: Sequence[Meld] = ()) -> bool:
        """花猪: still holding tiles of all three suits."""
        return _suits([*concealed, *(tile for meld in melds for tile in meld.tiles)]) == 3

    def highest_fan(self, concealed: Sequence[int], melds: Sequence[Meld] = ()) -> int:
        """The most fan a 13-tile hand could win with on a discard (0: not ready)."""
        best = 0
        for tile in self.waits(concealed, melds):
            win = Win((*concealed, tile), tuple(melds), tile, WinType.DISCARD, Seat.S, Seat.E)
            best = max(best, self.score(win).total)
        return best

    def _is_pig(self, seat: Seat, state: SeatAtDraw) -> bool:
        if any(meld.kind is MeldKind.CHOW for meld in state.melds):
            raise RulesError(f"seat {seat.name}: {NO_CHOW}")
        return self.is_flower_pig(state.concealed, state.melds)

    def _highest(self, seat: Seat, state: SeatAtDraw) -> int:
        try:
            return self.highest_fan(state.concealed, state.melds)
        except RulesError as exc:
            raise RulesError(f"seat {seat.name}: {exc}") from None

    @staticmethod
    def _return_kongs(result: Payments, seat: Seat, state: SeatAtDraw) -> None:
        paid = state.kong_paid_by
        if sum(paid.values()) != state.kong_income or seat in paid:
            raise RulesError(
                f"seat {seat.name}: kong income {state.kong_income} must be the sum of "
                f"kong_paid_by from the other seats"
            )
        for payer, amount in paid.items():
            _pay(result, seat, payer, amount)

    # --- play

    def must_win(
        self, concealed: Sequence[int], melds: Sequence[Meld], tile: int, wall_before_draw: int
    ) -> bool:
        """最后四张: whether a ready player must win on `tile` (no pass allowed).

        `concealed` is the 13-tile hand without `tile`; `wall_before_draw` is how many tiles
        the wall held just before `tile` was drawn from it (by this player or the discarder).
        """
        if wall_before_draw < 1:
            raise RulesError("a tile drawn from the wall: the wall held at least one tile")
        return wall_before_draw <= self.must_win_last and tile in self.waits(concealed, melds)

    def hand_over(self, winners: int, wall_left: int) -> bool:
        """血战到底: the hand ends when three have won or the wall is empty."""
        return winners >= self.winners_to_end or wall_left <= 0


def _pay(result: Payments, payer: Seat, receiver: Seat, amount: int) -> None:
    result[payer] -= amount
    result[receiver] += amount


RULESET = Sichuan
