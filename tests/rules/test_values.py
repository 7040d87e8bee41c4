"""The rules engine's value classes (a declared win, a meld, a ruleset's tables) behave as
frozen dataclasses did: made by position or keyword, read-only, equal and hashed by their
fields, shown by them, changed only through `replace`, which checks the new value again."""

import copy
import pickle

import pytest

from controller.rules import Meld, MeldKind, RulesError, Seat, Win, WinType
from controller.rules.ruleset import SeatAtDraw
from controller.rules.timing import TimePenalty
from controller.rules.values import FrozenValueError, fields, replace, value

HAND = (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9, 10, 10)


def test_a_win_is_made_by_position_or_keyword_with_its_defaults_and_checks() -> None:
    by_position = Win(HAND, (), 10, WinType.DISCARD, Seat.S, Seat.E)
    by_keyword = Win(concealed=HAND, win_tile=10, seat=Seat.S, discarder=Seat.E)
    assert by_position == by_keyword
    assert Win(HAND).win_tile == 10  # the last concealed tile by default (__post_init__)
    with pytest.raises(RulesError, match="winning tile"):
        Win(HAND, win_tile=33)
    with pytest.raises(TypeError):
        Win()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Win(HAND, colour="red")  # type: ignore[call-arg]


def test_a_value_is_read_only() -> None:
    win = Win(HAND)
    with pytest.raises(FrozenValueError):
        win.seat = Seat.N  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del win.seat
    assert win.seat is Seat.E


def test_values_are_equal_and_hashed_by_their_fields_and_only_by_them() -> None:
    chow = Meld(MeldKind.CHOW, (0, 1, 2))
    assert chow == Meld(MeldKind.CHOW, (0, 1, 2))
    assert hash(chow) == hash(Meld(MeldKind.CHOW, (0, 1, 2)))
    assert chow != Meld(MeldKind.CHOW, (1, 2, 3))
    as_tuple: object = (MeldKind.CHOW, (0, 1, 2))
    assert chow != as_tuple  # not a tuple
    assert TimePenalty(3, False) != TimePenalty(3, True)
    assert len({TimePenalty(3, False), TimePenalty(3, False)}) == 1
    # a field declared with compare=False is left out of both
    paid = SeatAtDraw(HAND[:13], kong_paid_by={Seat.E: 2})
    assert paid == SeatAtDraw(HAND[:13])
    assert hash(paid) == hash(SeatAtDraw(HAND[:13]))


def test_a_default_factory_makes_a_new_default_for_each_value() -> None:
    first, second = SeatAtDraw(HAND[:13]), SeatAtDraw(HAND[:13])
    assert first.kong_paid_by == {}
    assert first.kong_paid_by is not second.kong_paid_by


def test_replace_changes_fields_and_checks_the_new_value_again() -> None:
    win = Win(HAND)
    drawn = replace(win, win_type=WinType.SELF_DRAW, discarder=None)
    assert (drawn.win_type, drawn.concealed, win.win_type) == (
        WinType.SELF_DRAW,
        HAND,
        WinType.DISCARD,
    )
    with pytest.raises(RulesError, match="winning tile"):
        replace(win, win_tile=33)
    with pytest.raises(TypeError, match="no field colour"):
        replace(win, colour="red")
    assert fields(win)[:3] == ("concealed", "melds", "win_tile")


def test_a_value_shows_its_fields_matches_by_position_and_survives_a_copy() -> None:
    chow = Meld(MeldKind.CHOW, (0, 1, 2))
    assert repr(TimePenalty(3, False)) == "TimePenalty(points=3, forfeit=False)"
    match chow:
        case Meld(MeldKind.CHOW, (first, _, _)):
            assert first == 0
        case _:
            pytest.fail("a meld matches by its fields' positions")
    win = Win(HAND, (), 10, WinType.DISCARD, Seat.S, Seat.E)
    assert pickle.loads(pickle.dumps(win)) == win
    assert copy.deepcopy(win) == win


def test_a_value_class_that_extends_another_is_refused_rather_than_losing_its_fields() -> None:
    with pytest.raises(TypeError, match="does not extend"):

        @value
        class Penalised(TimePenalty):
            reason: str
