"""Results, commands and acks are signed: any change to a signed message breaks its signature."""

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.errors import UsageError
from controller.hub.contract.envelopes import ResultMessage, encode
from controller.hub.contract.signing import TableKey
from tests.hub.factories import KEY_TEXT, OTHER_KEY_TEXT, START, hand_result

KEY = TableKey(KEY_TEXT)
SIGNED = KEY.sign(
    ResultMessage(table="t1", boot=3, seq=17, id="a" * 32, ts=START, result=hand_result())
)
PAYLOAD = encode(SIGNED)


def test_the_tables_key_verifies_its_result_and_another_key_does_not() -> None:
    assert KEY.verify(PAYLOAD)
    assert not TableKey(OTHER_KEY_TEXT).verify(PAYLOAD)


def test_signature_does_not_depend_on_key_order_or_spacing() -> None:
    reordered = msgspec.json.format(
        msgspec.json.encode(msgspec.json.decode(PAYLOAD), order="sorted")
    )
    assert KEY.verify(reordered)


def _paths(value: object, at: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    if isinstance(value, dict):
        return [p for k, v in value.items() if k != "sig" for p in _paths(v, at + (k,))]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _paths(v, at + (i,))]
    return [at]


LEAVES = _paths(msgspec.json.decode(PAYLOAD))


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(LEAVES), st.one_of(st.integers(), st.text(max_size=5), st.booleans()))
def test_changing_any_signed_field_breaks_the_signature(
    path: tuple[object, ...], new: object
) -> None:
    data = msgspec.json.decode(PAYLOAD)
    holder = data
    for step in path[:-1]:
        holder = holder[step]
    if holder[path[-1]] == new:
        return
    holder[path[-1]] = new
    assert not KEY.verify(msgspec.json.encode(data))


def test_a_short_key_is_refused_with_advice() -> None:
    with pytest.raises(UsageError, match="openssl rand -hex 32"):
        TableKey("secret")


def test_a_key_never_shows_in_its_repr() -> None:
    assert KEY_TEXT not in repr(KEY)
