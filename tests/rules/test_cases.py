"""Every worked case of rules_examples.json, for every ruleset the table has."""

from collections.abc import Mapping

import pytest

from controller.rules import Seat, get_ruleset
from tests.rules.cases import Case, base_name, load_cases

CASES = load_cases()


def test_the_zung_jung_cases_are_all_there() -> None:
    assert len([case for case in CASES if case.ruleset == "zung-jung"]) == 7


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.id)
def test_worked_case(case: Case) -> None:
    score = get_ruleset(case.ruleset).score(case.win)
    expected = case.expected
    assert score.valid == expected["valid"], score.reason
    if not expected["valid"]:
        assert score.patterns == ()
        return
    got = sorted(base_name(p.name) for p in score.patterns)
    assert got == sorted(base_name(name) for name in expected["patterns"]), score.arrangement
    if "fan" in expected:
        assert score.total == expected["fan"]
    assert score.score == expected["points"]
    assert sum(score.payments.values()) == 0
    if "payments" in expected:
        _check_payments(case, score.payments, expected["payments"])


def _check_payments(case: Case, payments: Mapping[Seat, int], expected: dict[str, int]) -> None:
    ruleset = get_ruleset(case.ruleset)
    discarder = ruleset.discarder(case.win)
    for seat in case.win.seat.others():
        key = "discarder" if seat is discarder else "each_other"
        assert payments[seat] == -expected[key], seat
