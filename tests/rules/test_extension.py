"""The hooks a new ruleset uses, exercised by a tiny ruleset built in the test.

It plays Zung Jung's tiles and wall but wins on any 14 honours (a ruleset's own shape,
like Shanghai's Jumbled Winds), pays a flat 8 from the discarder, and charges kongs.
"""

import copy
from collections.abc import Sequence

from controller.rules import (
    Arrangement,
    Form,
    HandView,
    KongKind,
    PatternValue,
    Payments,
    Ruleset,
    Seat,
    Tally,
    Win,
    WinType,
    get_ruleset,
    parse_tiles,
)
from controller.rules.patterns import evaluate
from controller.rules.score import payments_from


def jumbled(view: HandView) -> bool:
    """Fourteen honours in any arrangement."""
    return view.form is Form.SPECIAL


def all_sets(view: HandView) -> bool:
    """A regular hand."""
    return view.form is Form.REGULAR


PREDICATES = {"Jumbled Honours": jumbled, "Plain Hand": all_sets}


class Jumbled(Ruleset):
    name = "jumbled"
    data_file = "zung_jung.toml"
    predicates = PREDICATES

    def extra_arrangements(self, win: Win, counts: Sequence[int]) -> list[Arrangement]:
        if not win.melds and not any(counts[:27]):
            return [Arrangement(Form.SPECIAL, (), -1)]
        return []

    def tally(self, view: HandView) -> Tally:
        hits = evaluate(self.patterns_by_form[view.form], view)
        if view.form is Form.REGULAR:
            return Tally((), 0, 0, rejected="only honours may win here")
        patterns = tuple(hit.counted for hit in hits)
        total = sum(p.value for p in patterns)
        return Tally(patterns, total, total)

    def rejection(self, win: Win) -> str:
        return "the North seat sits out" if win.seat is Seat.N else ""

    def settle_win(self, win: Win, tally: Tally) -> Payments:
        payer = self.discarder(win) or win.seat.next
        return payments_from({payer: tally.score}, win.seat)

    def settle_kong(
        self, kind: KongKind, konger: Seat, discarder: Seat | None, players_in: Sequence[Seat]
    ) -> Payments:
        amount = 2 if kind is KongKind.CONCEALED else 1
        return payments_from({seat: amount for seat in players_in if seat is not konger}, konger)


def make() -> Jumbled:
    data = copy.deepcopy(get_ruleset("zung-jung").data)
    data["name"] = "jumbled"
    data["hand"]["forms"] = ["regular", "special"]
    data["patterns"] = {
        "Jumbled Honours": {"value": 8, "forms": ["special"]},
        "Plain Hand": {"value": 1},
    }
    return Jumbled(data)


def test_a_rulesets_own_shape_wins_and_is_scored() -> None:
    ruleset = make()
    score = ruleset.score(Win.of("11223344556677z", seat=Seat.S, discarder=Seat.W))
    assert score.valid, score.reason
    assert score.patterns == (PatternValue("Jumbled Honours", 8),)
    assert score.payments == {Seat.E: 0, Seat.S: 8, Seat.W: -8, Seat.N: 0}
    assert score.arrangement == "special"


def test_an_arrangement_the_ruleset_refuses_gives_its_reason() -> None:
    score = make().score(Win.of("123m456p789s123p55s"))
    assert not score.valid
    assert score.reason == "only honours may win here"


def test_a_hand_level_rejection() -> None:
    score = make().score(Win.of("11223344556677z", seat=Seat.N))
    assert not score.valid and score.reason == "the North seat sits out"


def test_waits_use_the_rulesets_own_shapes() -> None:
    assert make().waits(parse_tiles("1122334455667z")) == parse_tiles("1234567z")


def test_kong_payments_hook() -> None:
    paid = make().settle_kong(KongKind.CONCEALED, Seat.W, None, (Seat.E, Seat.S, Seat.W))
    assert paid == {Seat.E: -2, Seat.S: -2, Seat.W: 4, Seat.N: 0}


def test_finished_seats_are_part_of_a_win() -> None:
    win = Win.of("123m456p789s123p55s", win_type=WinType.SELF_DRAW)
    assert win.finished == frozenset()
    later = Win(win.concealed, finished=frozenset({Seat.N}), seat=Seat.S)
    assert later.finished == {Seat.N}
