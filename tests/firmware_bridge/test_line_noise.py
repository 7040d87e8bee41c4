"""The simulated line's noise: each byte is damaged at the configured rate, independently of
how the bytes are cut into writes, and the same seed gives the same line."""

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from firmware_bridge.sim.faults import LineNoise

CHUNK = st.lists(st.integers(1, 300), min_size=1, max_size=40)


def _damaged(noise: LineNoise, sizes: list[int]) -> int:
    """Bytes the noise changed over writes of these sizes (of zero bytes)."""
    return sum(sum(1 for byte in noise.damage(bytes(size)) if byte) for size in sizes)


@pytest.mark.parametrize("rate", [0.005, 0.03, 0.3])
def test_bytes_are_damaged_at_the_configured_rate(rate: float) -> None:
    noise = LineNoise(rate, 0.0, random.Random(5))
    sizes = [random.Random(6).randrange(1, 120) for _ in range(4000)]
    total = sum(sizes)
    expected = total * rate
    spread = 5 * (total * rate * (1 - rate)) ** 0.5  # five standard deviations
    assert abs(_damaged(noise, sizes) - expected) <= spread


def test_no_noise_leaves_the_line_alone_and_full_noise_damages_every_byte() -> None:
    data = bytes(range(256)) * 4
    assert LineNoise(0.0, 0.0, random.Random(1)).damage(data) is data
    damaged = LineNoise(1.0, 0.0, random.Random(1)).damage(data)
    assert all(a != b for a, b in zip(damaged, data, strict=True))


@given(sizes=CHUNK, seed=st.integers(0, 2**32))
def test_the_same_seed_damages_the_same_bytes_and_keeps_every_length(
    sizes: list[int], seed: int
) -> None:
    one, other = (LineNoise(0.1, 0.0, random.Random(seed)) for _ in range(2))
    first = [one.damage(bytes(n)) for n in sizes]
    assert first == [other.damage(bytes(n)) for n in sizes]
    assert [len(chunk) for chunk in first] == sizes
