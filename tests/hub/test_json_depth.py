"""The depth bound on untrusted JSON: the fast check agrees with the nesting of any JSON value,
strings full of brackets, quotes and backslashes included, so no payload nested deeper than
MAX_DEPTH reaches the parser and none within it is refused."""

from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.hub.contract.envelopes import MAX_DEPTH, MalformedMessage, parse_json

tricky_text = st.text(alphabet='[]{}"\\ab/', max_size=12)
values = st.recursive(
    st.none() | st.integers() | tricky_text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(tricky_text, inner, max_size=3),
    max_leaves=40,
)


def depth(value: Any) -> int:
    """Levels of arrays and objects in a JSON value."""
    if isinstance(value, list):
        return 1 + max((depth(item) for item in value), default=0)
    if isinstance(value, dict):
        return 1 + max((depth(item) for item in value.values()), default=0)
    return 0


def wrapped(value: Any, levels: int) -> Any:
    for index in range(levels):
        value = [value, "]]}}"] if index % 2 else {"[": value, "k": "\\"}
    return value


@settings(max_examples=300)
@given(values, st.integers(0, MAX_DEPTH + 3))
def test_json_is_parsed_just_when_it_is_nested_no_deeper_than_the_limit(
    value: Any, levels: int
) -> None:
    value = wrapped(value, levels)
    payload = msgspec.json.encode(value)
    if depth(value) <= MAX_DEPTH:
        assert parse_json(payload) == value
    else:
        with pytest.raises(MalformedMessage, match="nested deeper"):
            parse_json(payload)
