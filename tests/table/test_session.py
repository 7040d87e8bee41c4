"""Sessions: how long they last, who deals next under each ruleset, the running scores."""

import pytest

from controller.rules import get_ruleset
from controller.table.session import Session, SessionPlan

PLAYERS = ("ann", "bo", "cy", "di")


def session(name: str, **length: float) -> Session:
    plan = SessionPlan("s", name, PLAYERS, **length)  # type: ignore[arg-type]
    return Session(plan, get_ruleset(name), started_at=100.0)


def test_wmc_deal_moves_on_every_hand_and_four_hands_make_a_round() -> None:
    table = session("zung-jung", hands=0)
    dealers = []
    for winners in [(), (2,), (), (1,), (0,)]:
        dealers.append((table.deal.dealer, table.round_wind))
        table.finish_hand(winners, (0, 0, 0, 0))
    assert dealers == [(0, "E"), (1, "E"), (2, "E"), (3, "E"), (0, "S")]


def test_shanghai_winner_deals_and_a_draw_repeats() -> None:
    table = session("shanghai", hands=0)
    dealers = []
    for winners in [(), (2,), (2,), (), (3,)]:
        dealers.append(table.deal.dealer)
        table.finish_hand(winners, (0, 0, 0, 0))
    assert dealers == [0, 0, 2, 2, 2]
    assert table.deal.dealer == 3


def test_sichuan_rolls_for_every_new_dealer() -> None:
    table = session("sichuan", hands=0)
    table.finish_hand((1, 3), (-2, 1, 0, 1))
    due = [table.needs_dealer_roll]
    assert table.roll_for_dealer((2, 4)) == 1, "6 counted from the dealer: the next seat"
    due.append(table.needs_dealer_roll)
    assert due == [True, False] and table.dealer_rolls == [(2, 4)]


def test_scores_run_and_the_session_ends_by_hands_rounds_or_time() -> None:
    by_hands = session("zung-jung", hands=2)
    by_hands.finish_hand((1,), (-5, 15, -5, -5))
    assert by_hands.over_reason(200.0) == ""
    by_hands.finish_hand((), (0, 0, 0, 0))
    assert by_hands.over_reason(200.0) == "all 2 hands played"
    assert by_hands.scores == [-5, 15, -5, -5]

    by_rounds = session("zung-jung", hands=0, rounds=1)
    for _ in range(4):
        by_rounds.finish_hand((), (0, 0, 0, 0))
    assert by_rounds.over_reason(200.0) == "all 1 rounds played"

    by_time = session("zung-jung", hands=0, deadline_s=3600.0, margin_s=300.0)
    assert by_time.over_reason(100.0 + 3299.0) == ""
    assert by_time.over_reason(100.0 + 3300.0) == "the session's time is up"


def test_a_session_needs_four_different_players() -> None:
    with pytest.raises(ValueError, match="four different players"):
        SessionPlan("s", "zung-jung", ("ann", "ann", "bo", "cy"))
