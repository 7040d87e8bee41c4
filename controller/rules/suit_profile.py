"""A suit's profile: which kinds of tile its counts hold, as bits (no readings needed).

The shipped suit table (`suit_search`) stores the profile of each count it holds, so a suit
found there is not profiled again; `suits` profiles the others with `profile`.
"""

# Profile bits: which kinds of tile a suit holds.
HOLDS_ANY = 1
HOLDS_TERMINAL = 2
"""A 1 or a 9."""
HOLDS_MIDDLE = 4
"""A 2-8."""
HOLDS_456 = 8
HOLDS_NINE = 16
"""Nine tiles or more (room for three sets)."""
HOLDS_ODD = 32
"""A kind held an odd number of times (so no seven pairs)."""
HOLDS_FOUR = 64
"""All four tiles of a kind."""


def _kinds(*kinds: int) -> int:
    """A mask of these kinds' counts in `int.from_bytes(counts, "big")` of a number suit."""
    return sum(0xFF << 8 * (8 - kind) for kind in kinds)


_TERMINALS, _MIDDLES, _456 = _kinds(0, 8), _kinds(*range(1, 8)), _kinds(3, 4, 5)
_LOW_BITS = int.from_bytes(bytes([1] * 9), "big")
"""The lowest bit of each count: set where a kind is held an odd number of times."""


def suit_profile(counts: bytes) -> int:
    """Which kinds of tile one number suit's 9 counts hold (bits HOLDS_*)."""
    return profile(counts, int.from_bytes(counts, "big"))


def profile(counts: bytes, held: int) -> int:
    """`suit_profile`, given the counts as one int (`held`, big-endian: 1s in the top byte)."""
    if not held:
        return 0
    return (
        HOLDS_ANY
        | (HOLDS_TERMINAL if held & _TERMINALS else 0)
        | (HOLDS_MIDDLE if held & _MIDDLES else 0)
        | (HOLDS_456 if held & _456 else 0)
        | (HOLDS_NINE if sum(counts) >= 9 else 0)
        | (HOLDS_ODD if held & _LOW_BITS else 0)
        | (HOLDS_FOUR if 4 in counts else 0)
    )
