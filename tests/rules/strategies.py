"""Hypothesis strategies for hands."""

from collections import Counter

from hypothesis import strategies as st

_sequence = st.builds(
    lambda suit, low: [9 * suit + low + i for i in range(3)], st.integers(0, 2), st.integers(0, 6)
)
_triplet = st.builds(lambda kind: [kind] * 3, st.integers(0, 33))


def _hand(sets: list[list[int]], pair: int) -> list[int]:
    return [tile for tiles in sets for tile in tiles] + [pair, pair]


sets_and_pair = st.builds(
    _hand, st.lists(st.one_of(_sequence, _triplet), min_size=4, max_size=4), st.integers(0, 33)
).filter(lambda tiles: max(Counter(tiles).values()) <= 4)
"""Fourteen tiles made of four random sets (sequences or triplets) and a pair."""
