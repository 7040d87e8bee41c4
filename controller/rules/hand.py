"""A declared win as data: concealed tiles, declared melds and how the winning tile came."""

from enum import StrEnum

from controller.rules.errors import RulesError
from controller.rules.notation import format_tiles, parse_tile, parse_tiles
from controller.rules.seats import Seat
from controller.rules.tiles import KINDS, is_suited
from controller.rules.values import value


class MeldKind(StrEnum):
    """A declared set: exposed chow, pung or kong, or a concealed kong."""

    CHOW = "chow"
    PUNG = "pung"
    KONG = "kong"
    CONCEALED_KONG = "concealed-kong"


class WinType(StrEnum):
    """How the winning tile came (the CLI's `--win`)."""

    DISCARD = "discard"
    SELF_DRAW = "self-draw"
    ROBBING_KONG = "robbing-kong"
    KONG_REPLACEMENT = "kong-replacement"
    LAST_TILE = "last-tile"
    LAST_DISCARD = "last-discard"
    AFTER_KONG_DISCARD = "after-kong-discard"
    HEAVENLY = "heavenly"
    EARTHLY = "earthly"


_KONGS = frozenset({MeldKind.KONG, MeldKind.CONCEALED_KONG})
_CONCEALED_KONG = MeldKind.CONCEALED_KONG
"""Looking a member up on its enum class is slow (the enum's metaclass has a __getattr__)."""


@value
class Meld:
    """A declared set; `tiles` are kinds in ascending order."""

    kind: MeldKind
    tiles: tuple[int, ...]

    def __post_init__(self) -> None:
        _check_meld(self.kind, self.tiles)

    @property
    def first(self) -> int:
        """The lowest tile of the set."""
        return self.tiles[0]

    @property
    def is_kong(self) -> bool:
        """An exposed or concealed kong."""
        return self.kind in _KONGS

    @property
    def exposed(self) -> bool:
        """Melded from another player's tile (everything but a concealed kong)."""
        return self.kind is not _CONCEALED_KONG

    @classmethod
    def parse(cls, text: str) -> "Meld":
        """A meld from `KIND:TILES`, e.g. `pung:555z` or `chow:345p`."""
        kind_text, sep, tiles_text = text.partition(":")
        if not sep:
            raise RulesError(f"meld '{text}' must be KIND:TILES, e.g. pung:555z")
        try:
            kind = MeldKind(kind_text.strip().lower())
        except ValueError:
            choices = ", ".join(kind.value for kind in MeldKind)
            raise RulesError(f"unknown meld kind '{kind_text}': use {choices}") from None
        return cls(kind, tuple(sorted(parse_tiles(tiles_text))))

    def __str__(self) -> str:
        return f"{self.kind.value}:{format_tiles(self.tiles)}"


def _check_meld(kind: MeldKind, tiles: tuple[int, ...]) -> None:
    size = 3 if kind in (MeldKind.CHOW, MeldKind.PUNG) else 4
    shown = format_tiles(tiles)
    if len(tiles) != size:
        raise RulesError(f"a {kind.value} has {size} tiles, '{shown}' has {len(tiles)}")
    if any(tile >= KINDS for tile in tiles):
        raise RulesError(f"a flower cannot be part of a {kind.value} ('{shown}')")
    if kind is MeldKind.CHOW:
        low = tiles[0]
        if not (is_suited(low) and low % 9 <= 6 and tiles == (low, low + 1, low + 2)):
            raise RulesError(f"'{shown}' is not a chow: three consecutive tiles of one suit")
    elif len(set(tiles)) != 1:
        raise RulesError(f"'{shown}' is not a {kind.value}: its tiles must be identical")


@value
class Win:
    """A declared win. `concealed` holds the winning tile; `discarder` None means the default."""

    concealed: tuple[int, ...]
    melds: tuple[Meld, ...] = ()
    win_tile: int = -1
    win_type: WinType = WinType.DISCARD
    seat: Seat = Seat.E
    discarder: Seat | None = None
    flowers: tuple[int, ...] = ()
    draw_streak: int = 0
    """Drawn hands in a row just before this one (for draw bonuses)."""
    finished: frozenset[Seat] = frozenset()
    """Seats that already won and left this hand (Sichuan blood battle): they do not pay."""

    def __post_init__(self) -> None:
        if not self.concealed:
            raise RulesError("the hand has no concealed tiles")
        if self.win_tile == -1:
            object.__setattr__(self, "win_tile", self.concealed[-1])
        elif self.win_tile not in self.concealed:
            raise RulesError("the winning tile must be one of the concealed tiles")
        if self.seat in self.finished or self.discarder in self.finished:
            raise RulesError("a seat that already won takes no further part in the hand")

    @classmethod
    def of(
        cls,
        hand: str,
        melds: tuple[str, ...] = (),
        win_tile: str | None = None,
        win_type: WinType = WinType.DISCARD,
        seat: Seat = Seat.E,
        discarder: Seat | None = None,
        flowers: str = "",
        draw_streak: int = 0,
    ) -> "Win":
        """A win written in notation, e.g. `Win.of("234m345p567s678s55p", ("pung:777z",))`."""
        return cls(
            concealed=tuple(parse_tiles(hand)),
            melds=tuple(Meld.parse(text) for text in melds),
            win_tile=parse_tile(win_tile) if win_tile else -1,
            win_type=win_type,
            seat=seat,
            discarder=discarder,
            flowers=tuple(parse_tiles(flowers)),
            draw_streak=draw_streak,
        )

    @property
    def all_tiles(self) -> list[int]:
        """Every tile of the hand: concealed and melded (kongs count four), no flowers."""
        tiles = list(self.concealed)
        for meld in self.melds:
            tiles.extend(meld.tiles)
        return tiles

    def describe(self) -> str:
        """The hand in notation, melds after a bar: `234m55p | pung:777z`."""
        parts = [format_tiles(self.concealed)] + [str(meld) for meld in self.melds]
        return " | ".join(parts)
