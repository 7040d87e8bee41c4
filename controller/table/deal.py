"""The deal as the dice decide it: which tiles each seat must hold, and checking that they do.

Pure. The ruleset's wall plan gives the deal in rules positions; the built wall gives the tag
at every physical place. Flowers dealt are set aside in the MELD zone and replaced from the
wall's tail end, dealer first and round the table until no one holds a flower.
"""

from collections.abc import Collection, Mapping
from dataclasses import dataclass

from controller.rules import Seat, Wall, WallPlan
from controller.rules.tiles import is_flower
from controller.table.geometry import Slot, physical_slot
from controller.table.tiles import TileMap, seat_name


@dataclass(frozen=True)
class Take:
    """One tile a seat takes during the deal; `replacement`: from the tail, for a flower."""

    place: int
    slot: Slot
    replacement: bool = False


@dataclass(frozen=True)
class ExpectedDeal:
    """What each seat holds once the deal is done."""

    hands: Mapping[int, frozenset[int]]
    """Physical seat -> the tags in its HAND zone."""
    flowers: Mapping[int, frozenset[int]]
    """Physical seat -> the flowers it set aside in its MELD zone."""
    takes: tuple[Take, ...]
    """Every take in order, replacements included (what careful players do)."""

    def owner(self, uid: int) -> int | None:
        """The seat that must hold this tag after the deal (None: it stays in the wall)."""
        for place in range(4):
            if uid in self.hands[place] or uid in self.flowers[place]:
                return place
        return None


@dataclass(frozen=True)
class DealMismatch:
    """A seat whose tiles differ from the deal: tags it holds wrongly, tags it lacks."""

    place: int
    extra: frozenset[int]
    missing: frozenset[int]


def expected_deal(
    plan: WallPlan,
    placed: Mapping[Slot, int],
    tiles: TileMap,
    dealer_place: int,
    wall: Wall | None = None,
) -> ExpectedDeal:
    """The deal of `plan` on this wall; `wall` (a tracker of the plan) follows the replacements."""
    wall = wall or plan.wall()
    hands: dict[int, list[int]] = {place: [] for place in range(4)}
    takes: list[Take] = []
    for step in plan.deal:
        place = (dealer_place + step.seat) % 4
        for position in step.positions:
            slot = physical_slot(position, dealer_place)
            takes.append(Take(place, slot))
            hands[place].append(placed[slot])
    flowers = _replace_flowers(hands, takes, placed, tiles, dealer_place, wall)
    return ExpectedDeal(
        {place: frozenset(uids) for place, uids in hands.items()},
        {place: frozenset(uids) for place, uids in flowers.items()},
        tuple(takes),
    )


def _replace_flowers(
    hands: dict[int, list[int]],
    takes: list[Take],
    placed: Mapping[Slot, int],
    tiles: TileMap,
    dealer_place: int,
    wall: Wall,
) -> dict[int, list[int]]:
    aside: dict[int, list[int]] = {place: [] for place in range(4)}
    pending = True
    while pending:
        pending = False
        for seat in Seat:
            place = (dealer_place + seat) % 4
            for uid in [u for u in hands[place] if _is_flower(tiles, u)]:
                hands[place].remove(uid)
                aside[place].append(uid)
                slot = physical_slot(wall.draw_replacement(), dealer_place)
                takes.append(Take(place, slot, replacement=True))
                hands[place].append(placed[slot])
                pending = True
    return aside


def _is_flower(tiles: TileMap, uid: int) -> bool:
    kind = tiles.kind(uid)
    return kind is not None and is_flower(kind)


def check_deal(
    expected: ExpectedDeal,
    hands: Mapping[int, frozenset[int]],
    melds: Mapping[int, frozenset[int]],
) -> list[DealMismatch]:
    """Every seat whose HAND and MELD zones differ from the deal."""
    mismatches = []
    for place in range(4):
        got = hands.get(place, frozenset()) | melds.get(place, frozenset())
        want = expected.hands[place] | expected.flowers[place]
        if got != want:
            mismatches.append(DealMismatch(place, got - want, want - got))
    return mismatches


def describe_mismatch(mismatch: DealMismatch, expected: ExpectedDeal, tiles: TileMap) -> str:
    """A mismatch in words: 'seat S holds 4p dealt to seat W; lacks 7m'."""
    parts = []
    by_owner: dict[int | None, list[int]] = {}
    for uid in sorted(mismatch.extra):
        by_owner.setdefault(expected.owner(uid), []).append(uid)
    for owner, uids in by_owner.items():
        whose = "still in the wall" if owner is None else f"dealt to seat {seat_name(owner)}"
        parts.append(f"holds {_tiles(tiles, uids)} {whose}")
    if mismatch.missing:
        parts.append(f"lacks {_tiles(tiles, mismatch.missing)}")
    return f"seat {seat_name(mismatch.place)} " + "; ".join(parts)


def _tiles(tiles: TileMap, uids: Collection[int]) -> str:
    text = tiles.notation(uids)
    unknown = sum(1 for uid in uids if tiles.kind(uid) is None)
    return text + (f" and {unknown} unknown tag(s)" if unknown else "")
