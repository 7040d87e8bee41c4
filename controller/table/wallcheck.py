"""The wall check: the tiles the wall reader saw against the ruleset's tile set and layout.

Pure: the placed tags in, a verdict with every problem in plain words out. A bad wall never
rises; the hand cycle reshuffles once and then stops with these words.
"""

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from controller.rules.tileset import TileSet
from controller.rules.wall import WallLayout
from controller.table.geometry import Slot, side_slots
from controller.table.tiles import TileMap, count_words, counted, seat_name, tag

SHOWN_PROBLEMS = 3


@dataclass(frozen=True)
class WallVerdict:
    """The outcome of one wall check."""

    problems: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        """True when the wall may rise."""
        return not self.problems

    def summary(self) -> str:
        """The problems in one line (the first few, then how many more)."""
        shown = "; ".join(self.problems[:SHOWN_PROBLEMS])
        more = len(self.problems) - SHOWN_PROBLEMS
        return shown + (f" (and {more} more)" if more > 0 else "")


def check_wall(
    placed: Mapping[Slot, int], layout: WallLayout, tileset: TileSet, tiles: TileMap
) -> WallVerdict:
    """Every problem of a built wall: unreadable, unknown or repeated tags, the tile set, sides."""
    problems = _tag_problems(placed, tiles)
    if not problems:
        problems = _set_problems(placed, tileset, tiles)
    problems += _side_problems(placed, layout)
    return WallVerdict(tuple(problems))


def where(slot: Slot) -> str:
    """A wall place in words: 'side 2 (W) stack 5 top'."""
    side, stack, layer = slot
    return f"side {side} ({seat_name(side)}) stack {stack + 1} {'top' if layer else 'bottom'}"


def _tag_problems(placed: Mapping[Slot, int], tiles: TileMap) -> list[str]:
    problems = []
    unreadable = sorted(slot for slot, uid in placed.items() if uid == 0)
    if unreadable:
        problems.append(
            f"the wall reader could not read {count_words(len(unreadable))} tag(s), first at "
            f"{where(unreadable[0])}: check the wall reader, then that tile"
        )
    seen = Counter(uid for uid in placed.values() if uid)
    for uid, count in sorted(seen.items()):
        if count > 1:
            times = "twice" if count == 2 else f"{count_words(count)} times"
            problems.append(
                f"tag {tag(uid)} read {times}: {count_words(count)} tiles carry the same tag"
            )
    for slot, uid in sorted(placed.items()):
        if uid and tiles.kind(uid) is None:
            problems.append(
                f"tag {tag(uid)} at {where(slot)} is not in tile set '{tiles.name}': "
                "a tile from another set?"
            )
    return problems


def _set_problems(placed: Mapping[Slot, int], tileset: TileSet, tiles: TileMap) -> list[str]:
    return set_problems(tiles.kinds(placed.values()), tileset)


def set_problems(kinds: Iterable[int], tileset: TileSet) -> list[str]:
    """What a set of tiles (by kind) lacks or has too many of for the ruleset's `tileset`
    (a wall built from it, and `config check` of a tile-set file, say the same)."""
    counts = Counter(kinds)
    wanted = dict.fromkeys(tileset.kinds, tileset.copies) | dict.fromkeys(tileset.flowers, 1)
    problems = []
    for kind in sorted(set(wanted) | set(counts)):
        have, want = counts.get(kind, 0), wanted.get(kind, 0)
        if not want:
            problems.append(
                f"the wall holds {counted(kind, have)}, which this ruleset plays without: "
                "a tile from another set?"
            )
        elif have < want:
            problems.append(f"tile set is short {counted(kind, want - have)}")
        elif have > want:
            problems.append(f"tile set has {counted(kind, have - want)} too many")
    return problems


def _side_problems(placed: Mapping[Slot, int], layout: WallLayout) -> list[str]:
    problems = []
    wanted = set(side_slots(layout))
    for side in range(4):
        slots = {(stack, layer) for s, stack, layer in placed if s == side}
        if slots == wanted:
            continue
        stacks = len({stack for stack, _ in slots})
        label = f"side {side} ({seat_name(side)})"
        if stacks != layout.stacks_per_side:
            problems.append(
                f"{label} has {stacks} stacks where {layout.stacks_per_side} belong: "
                "check the push motor"
            )
        else:
            problems.append(
                f"{label} has {len(slots)} tiles where {layout.tiles_per_side} belong: "
                "check the stacking head"
            )
    return problems
