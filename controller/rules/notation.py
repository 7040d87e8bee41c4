"""The mpsz tile notation: `123m456p789s111z55z`, honours 1z-7z, flowers 1f-8f.

Digits collect until a suit letter names their suit. Whitespace is ignored. Errors say
what is wrong and at which character (1-based), e.g. `unknown suit 'x' at position 7`.
"""

from collections.abc import Iterable

from controller.rules.errors import NotationError
from controller.rules.tiles import FLOWER_BASE, FLOWERS, KINDS, number, suit

LETTERS = "mpszf"
_LIMITS = {"m": 9, "p": 9, "s": 9, "z": 7, "f": FLOWERS}
_BASES = {"m": 0, "p": 9, "s": 18, "z": 27, "f": FLOWER_BASE}
_NAMES = {f"{d}{s}": _BASES[s] + d - 1 for s in LETTERS for d in range(1, _LIMITS[s] + 1)}
"""Every single tile's name and kind: the simulator and the tile-set map ask for these a lot."""


def parse_tiles(text: str) -> list[int]:
    """The tile kinds written in `text`, in the order written."""
    tiles: list[int] = []
    pending: list[tuple[int, int]] = []  # (digit, 1-based position)
    for index, char in enumerate(text, start=1):
        if char.isspace():
            continue
        if char.isdigit():
            pending.append((int(char), index))
        elif char in LETTERS:
            if not pending:
                raise NotationError(
                    f"suit letter '{char}' at position {index} has no digits", text, index
                )
            tiles.extend(_tile(digit, char, at, text) for digit, at in pending)
            pending = []
        else:
            raise NotationError(f"unknown suit '{char}' at position {index}", text, index)
    if pending:
        digits = "".join(str(digit) for digit, _ in pending)
        at = pending[0][1]
        raise NotationError(
            f"'{digits}' at position {at} has no suit letter (m, p, s, z or f)", text, at
        )
    return tiles


def parse_tile(text: str) -> int:
    """Exactly one tile, e.g. `5p` or `7z`."""
    kind = _NAMES.get(text)
    if kind is not None:
        return kind
    tiles = parse_tiles(text)
    if len(tiles) != 1:
        raise NotationError(f"'{text}' is {len(tiles)} tiles, expected one tile", text, 1)
    return tiles[0]


def _tile(digit: int, letter: str, position: int, text: str) -> int:
    if not 1 <= digit <= _LIMITS[letter]:
        raise NotationError(
            f"there is no tile {digit}{letter} (at position {position})", text, position
        )
    return _BASES[letter] + digit - 1


def tile_str(kind: int) -> str:
    """One tile in notation, e.g. `5p`."""
    return f"{number(kind)}{_letter(kind)}"


def format_tiles(kinds: Iterable[int], *, sort: bool = True) -> str:
    """Tiles in notation; sorted by default, else in the given order (runs share a letter)."""
    ordered = sorted(kinds) if sort else list(kinds)
    parts: list[str] = []
    run = ""
    letter = ""
    for kind in ordered:
        this = _letter(kind)
        if run and this != letter:
            parts.append(run + letter)
            run = ""
        run += str(number(kind))
        letter = this
    if run:
        parts.append(run + letter)
    return "".join(parts)


def _letter(kind: int) -> str:
    return "f" if kind >= KINDS else LETTERS[suit(kind)]
