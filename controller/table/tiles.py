"""Which tile each RFID tag is glued to, and tiles and tags in the words a technician reads."""

from collections.abc import Iterable, Mapping

from controller.rules import RulesError, format_tiles, parse_tile, tile_str
from controller.rules.tiles import FLOWER_BASE, HONOUR_NAMES, is_flower, is_honour, number, suit

SEAT_LETTERS = "ESWN"
_SUITS = ("character", "dot", "bamboo")
_FLOWERS = ("plum", "orchid", "chrysanthemum", "bamboo")
_SEASONS = ("spring", "summer", "autumn", "winter")
_COUNTS = ("no", "one", "two", "three", "four")


class TileMapError(ValueError):
    """A tile-set mapping that names something that is not a tile."""


class TileMap:
    """Tag UID -> tile kind for the tiles of one tile-set file."""

    def __init__(self, name: str, kinds: Mapping[int, int]) -> None:
        self.name = name
        self._kinds = dict(kinds)

    @classmethod
    def from_names(cls, name: str, tiles: Mapping[int, str]) -> "TileMap":
        """A map from UID -> tile in mpsz notation (as tile-set files write it)."""
        kinds = {}
        for uid, text in tiles.items():
            try:
                kinds[uid] = parse_tile(text)
            except RulesError as error:
                raise TileMapError(f"tile set {name}: tag {tag(uid)}: {error}") from None
        return cls(name, kinds)

    def kind(self, uid: int) -> int | None:
        """The tile kind of a tag, None if the tag is not in the tile set."""
        return self._kinds.get(uid)

    def unknown(self, uids: Iterable[int]) -> set[int]:
        """The tags among `uids` that are not in the tile set."""
        return set(uids).difference(self._kinds)

    def kinds(self, uids: Iterable[int]) -> list[int]:
        """The kinds of the known tags among `uids` (unknown ones are left out)."""
        kind_of = self._kinds.get
        return [kind for uid in uids if (kind := kind_of(uid)) is not None]

    def notation(self, uids: Iterable[int]) -> str:
        """The known tags among `uids` in mpsz notation, sorted."""
        return format_tiles(self.kinds(uids))

    def names(self) -> dict[int, str]:
        """UID -> tile in mpsz notation, for every tag (as tile-set files write it)."""
        return {uid: tile_str(kind) for uid, kind in self._kinds.items()}

    def __len__(self) -> int:
        return len(self._kinds)


def tag(uid: int) -> str:
    """A tag UID as a technician's reader shows it: E0:04:A2:..."""
    text = f"{uid:016X}"
    return ":".join(text[i : i + 2] for i in range(0, 16, 2))


def counted(kind: int, count: int) -> str:
    """Some tiles of a kind in words: 'one 5-dot', 'two Red dragons'."""
    return f"{count_words(count)} {tile_words(kind)}{'' if count == 1 else 's'}"


def tile_words(kind: int) -> str:
    """A tile in words: '5-dot', 'East wind', 'Red dragon', 'plum flower', 'spring season'."""
    if is_flower(kind):
        index = kind - FLOWER_BASE
        return f"{_FLOWERS[index]} flower" if index < 4 else f"{_SEASONS[index - 4]} season"
    if is_honour(kind):
        name = HONOUR_NAMES[kind - 27]
        return f"{name} wind" if kind < 31 else f"{name} dragon"
    return f"{number(kind)}-{_SUITS[suit(kind)]}"


def count_words(count: int) -> str:
    """A small count in words ('one', 'two', ...; digits above four)."""
    return _COUNTS[count] if 0 <= count < len(_COUNTS) else str(count)


def seat_name(place: int) -> str:
    """A physical seat 0-3 as a letter E, S, W, N."""
    return SEAT_LETTERS[place]


def seats_words(places: Iterable[int]) -> str:
    """Physical seats in words: "seat E", "seats E, W"."""
    names = [seat_name(place) for place in places]
    return f"seat{'s' if len(names) > 1 else ''} {', '.join(names)}"
