"""A session of several hands for each ruleset, from power-on, with nobody at the keyboard:
the dealer moves as the ruleset says, every wall and every deal is checked, every result is
stored before the next hand starts, and the scores add up."""

from itertools import pairwise
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

from controller.table.cycle import Phase
from controller.table.ports import StatusPattern
from tests.sim.rig import Rig

SESSIONS = {
    # ruleset: (simulator seed, hands)
    "zung-jung": (0, 5),
    "sichuan": (0, 4),
    "shanghai": (5, 4),
}


@pytest.mark.parametrize("ruleset", list(SESSIONS))
async def test_a_session_plays_itself_from_power_on(
    ruleset: str, tmp_path: Path, pins: MockFactory
) -> None:
    seed, hands = SESSIONS[ruleset]
    async with Rig(tmp_path, ruleset, hands=hands, seed=seed) as rig:
        view = await rig.until_phase(Phase.SESSION_OVER, Phase.FAULT)
        session = rig.cycle.session
        assert session is not None
        history = session.history

    assert view.phase is Phase.SESSION_OVER, view.fault
    assert rig.panel.status is StatusPattern.IDLE
    assert view.over_reason == f"all {hands} hands played"
    assert [hand for hand, _ in rig.cycle.wall_checks] == list(range(1, hands + 1))
    assert all(problems == () for _, problems in rig.cycle.wall_checks)
    assert rig.cycle.deal_checks == [(hand, ()) for hand in range(1, hands + 1)]
    assert [r.start.hand for r in rig.sink.results] == list(range(1, hands + 1))
    assert [r.start.dealer for r in rig.sink.results] == [h.dealer for h in history]
    assert all(sum(r.payments) == 0 for r in rig.sink.results)
    totals = [sum(r.payments[place] for r in rig.sink.results) for place in range(4)]
    assert list(view.scores) == totals
    assert rig.commands().count("RaiseWalls") == hands


async def test_wmc_deal_passes_after_every_hand_four_to_a_round(
    tmp_path: Path, pins: MockFactory
) -> None:
    async with Rig(tmp_path, "zung-jung", hands=5, seed=9) as rig:
        await rig.until_phase(Phase.SESSION_OVER)
        history = rig.cycle.session.history if rig.cycle.session else []
    assert [(h.dealer, h.round) for h in history] == [(0, 1), (1, 1), (2, 1), (3, 1), (0, 2)]
    assert [len(r.start.dice) for r in rig.sink.results] == [4] * 5, "WMC rolls twice"
    assert any(r.wins for r in rig.sink.results) and any(r.drawn for r in rig.sink.results)


async def test_shanghai_winner_deals_and_a_draw_repeats(tmp_path: Path, pins: MockFactory) -> None:
    seed, hands = SESSIONS["shanghai"]
    async with Rig(tmp_path, "shanghai", hands=hands, seed=seed) as rig:
        await rig.until_phase(Phase.SESSION_OVER)
        history = rig.cycle.session.history if rig.cycle.session else []
    assert any(h.winners for h in history) and any(not h.winners for h in history)
    for hand, after in pairwise(history):
        expected = hand.winners[0] if hand.winners else hand.dealer
        assert after.dealer == expected, f"hand {after.number} dealt by the wrong seat"


async def test_sichuan_dice_choose_each_dealer_and_three_wins_end_a_hand(
    tmp_path: Path, pins: MockFactory
) -> None:
    seed, hands = SESSIONS["sichuan"]
    async with Rig(tmp_path, "sichuan", hands=hands, seed=seed) as rig:
        await rig.until_phase(Phase.SESSION_OVER)
        session = rig.cycle.session
        assert session is not None
    history, rolls = session.history, session.dealer_rolls
    assert len(rolls) == hands - 1
    for hand, after, roll in zip(history, history[1:], rolls, strict=False):
        assert after.dealer == (hand.dealer + sum(roll) - 1) % 4
    assert all(len(r.wins) <= 3 for r in rig.sink.results)
    assert all(len(r.start.dice) == 2 for r in rig.sink.results), "Sichuan rolls once"
