"""Situations that cannot happen at a table are refused with a one-line RulesError (the CLI
turns it into exit 2), never scored as if they were possible."""

import pytest

from controller.rules import RULESET_NAMES, RulesError, Seat, WinType, get_ruleset
from tests.rules.helpers import win, zj


@pytest.mark.parametrize("name", RULESET_NAMES)
def test_robbing_a_kong_while_holding_another_copy_would_be_five(name: str) -> None:
    ruleset = get_ruleset(name)
    # W adds a 5m to its exposed pung of 5m; S robs that tile: S holds no other 5m.
    one = win("345m678m789m22p333p", tile="5m", how=WinType.ROBBING_KONG, seat=Seat.S)
    assert ruleset.score(one).reason  # a question the ruleset answers (valid or not)
    two = win("345m456m789m22p333p", tile="5m", how=WinType.ROBBING_KONG, seat=Seat.S)
    with pytest.raises(RulesError, match="would be five"):
        ruleset.score(two)


@pytest.mark.parametrize("name", RULESET_NAMES)
@pytest.mark.parametrize(("how", "seat"), [(WinType.HEAVENLY, Seat.E), (WinType.EARTHLY, Seat.S)])
def test_heavenly_and_earthly_wins_have_no_exposed_sets(
    name: str, how: WinType, seat: Seat
) -> None:
    melded = win("345m678m789m22p", "pung:333p", tile="2p", how=how, seat=seat)
    with pytest.raises(RulesError, match="no exposed sets"):
        get_ruleset(name).score(melded)


def test_zung_jung_blessing_of_heaven_does_not_follow_a_concealed_kong() -> None:
    # ZJ 9.4.1: after a concealed kong the dealer wins on the replacement, not on the deal
    with pytest.raises(RulesError, match="not Blessing of Heaven"):
        zj("345m678m789m22p", "concealed-kong:3333p", tile="2p", how=WinType.HEAVENLY)
    kong = zj("345m678m789m22p", "concealed-kong:3333p", tile="2p", how=WinType.KONG_REPLACEMENT)
    assert kong.valid and "Win on Kong" in [p.name for p in kong.patterns]


@pytest.mark.parametrize("discarder", [Seat.W, Seat.N])
def test_an_earthly_win_on_a_discard_is_on_the_dealers_discard(discarder: Seat) -> None:
    hand = "123m456p789s123p55s"
    with pytest.raises(RulesError, match="dealer's"):
        zj(hand, how=WinType.EARTHLY, seat=Seat.S, discarder=discarder)
    assert zj(hand, how=WinType.EARTHLY, seat=Seat.S, discarder=Seat.E).valid
    assert zj(hand, how=WinType.EARTHLY, seat=Seat.S).payments[Seat.E] < -25


@pytest.mark.parametrize("name", RULESET_NAMES)
def test_a_self_drawn_win_names_no_discarder(name: str) -> None:
    drawn = win("345m678m789m22p333p", tile="2p", how=WinType.SELF_DRAW, discarder=Seat.N)
    with pytest.raises(RulesError, match="no discarder"):
        get_ruleset(name).score(drawn)


def test_eight_flowers_never_win_on_a_discard() -> None:
    shanghai = get_ruleset("shanghai")
    base = win("1112345678999m", tile="9m")
    eight = tuple(shanghai.tiles.flowers)
    from controller.rules.values import replace

    with pytest.raises(RulesError, match="never on a discard"):
        shanghai.score(replace(base, flowers=eight))
    drawn = replace(base, flowers=eight, win_type=WinType.SELF_DRAW)
    assert shanghai.score(drawn).valid
