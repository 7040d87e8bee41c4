"""A hand result the referee cannot get wrong: seats, zero-sum payments, penalties, draw flag."""

from datetime import timedelta

import msgspec
import pytest

from controller.hub.contract.envelopes import MalformedMessage, ResultMessage, decode, encode
from controller.hub.contract.incidents import IncidentKind
from controller.hub.contract.result import Incident
from controller.hub.contract.table_events import PlayMove
from tests.hub.factories import START, hand_result


def test_a_result_survives_encoding_exactly() -> None:
    result = hand_result(
        incidents=(Incident(at=START, seat=1, kind=IncidentKind.TURN_TIME, penalty=5),)
    )
    assert result.totals() == [24, -5, -24, 0]
    decoded = msgspec.json.decode(msgspec.json.encode(result), type=type(result))
    assert decoded == result


@pytest.mark.parametrize(
    ("change", "complaint"),
    [
        ({"payments": [24, 0, -20, 0]}, "summing to zero"),
        ({"payments": [0, 0, 0]}, "4 amounts"),
        ({"penalties": [0, -5, 0, 0]}, "do not match the incidents"),
        ({"draw": True}, "'draw' must be true exactly when 'wins' is empty"),
        ({"ended_at": START}, "before 'started_at'"),
    ],
)
def test_inconsistent_results_cannot_be_built(change: dict[str, object], complaint: str) -> None:
    good = msgspec.to_builtins(hand_result())
    with pytest.raises(msgspec.ValidationError, match=complaint):
        msgspec.convert({**good, **msgspec.to_builtins(change)}, type=type(hand_result()))


def test_a_player_cannot_sit_twice() -> None:
    with pytest.raises(ValueError, match="same player twice"):
        hand_result(players=("ann", "ann", "cy", "dee"))


def test_the_hub_gets_a_plain_error_for_a_bad_result_not_a_crash() -> None:
    message = ResultMessage(table="t1", boot=1, seq=1, id="0" * 32, ts=START, result=hand_result())
    text = encode(message).replace(b'"payments":[24,0,-24,0]', b'"payments":[24,0,-20,0]')
    with pytest.raises(MalformedMessage, match=r"not a valid result message: .*zero"):
        decode(text, ResultMessage)


@pytest.mark.parametrize("move", ["draw", "replacement_draw", "concealed_kong", "declare"])
def test_moves_that_hide_tiles_cannot_show_them(move: str) -> None:
    with pytest.raises(ValueError, match="concealed"):
        PlayMove(session="s1", hand=1, seat=0, move=move, tiles=["5p"])  # type: ignore[arg-type]


def test_a_discard_must_show_its_tile() -> None:
    PlayMove(session="s1", hand=1, seat=0, move="discard", tiles=["5p"])
    with pytest.raises(ValueError, match="must show its tiles"):
        PlayMove(session="s1", hand=1, seat=0, move="discard")


def test_timestamps_keep_their_zone() -> None:
    later = hand_result().ended_at + timedelta(seconds=1)
    assert later.tzinfo is not None
