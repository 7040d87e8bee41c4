"""The interim judge of a declared win, until the referee lands: read the declarer's zones,
take the newest tile of the HAND zone as the winning tile, and let the ruleset score it.

The newest tile came from another seat's DISCARD zone (a win on that discard) or from the
wall (self-drawn). Exposed sets are read from the MELD zone as kongs, pungs, then chows.
The referee (a later piece) replaces this with move-by-move tracking.
"""

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from controller.rules import DealState, Meld, MeldKind, RulesError, Ruleset, Seat, Win, WinType
from controller.rules.ruleset import SeatAtDraw
from controller.rules.tiles import is_flower, is_suited
from controller.table.ports import Zone
from controller.table.records import WinRecord
from controller.table.tiles import TileMap
from controller.table.zones import ZoneBoard


@dataclass(frozen=True)
class Judgement:
    """A declaration judged: the win (None if false) and why, with payments by place."""

    win: WinRecord | None
    reason: str
    payments: tuple[int, ...] = (0, 0, 0, 0)


def winners_to_end(ruleset: Ruleset) -> int:
    """Wins that end a hand: one, or more in a blood battle (`[battle] winners_to_end`)."""
    battle = ruleset.data.get("battle", {})
    value = battle.get("winners_to_end", 1) if isinstance(battle, dict) else 1
    return value if isinstance(value, int) and value >= 1 else 1


def judge(
    ruleset: Ruleset,
    board: ZoneBoard,
    tiles: TileMap,
    place: int,
    deal: DealState,
    finished: Iterable[int] = (),
) -> Judgement:
    """Judge the declaration of the player at `place` from the zones as they stand."""
    hand = board.tiles(place, Zone.HAND)
    exposed = board.tiles(place, Zone.MELD)
    unknown = [uid for uid in hand | exposed if tiles.kind(uid) is None]
    newest = board.newest(place, Zone.HAND)
    if unknown or newest is None:
        return Judgement(
            None,
            "the hand holds a tag that is not in the tile set" if unknown else "the hand is empty",
        )
    kinds = tiles.kinds(hand)
    meld_kinds = tiles.kinds(exposed)
    melds = group_melds(k for k in meld_kinds if not is_flower(k))
    if melds is None:
        return Judgement(None, "the tiles in the meld zone make no sets")
    source = board.came_from(newest)
    on_discard = source is not None and source[1] is Zone.DISCARD and source[0] != place
    discarder = source[0] if on_discard and source is not None else None
    win = Win(
        tuple(sorted(k for k in kinds if not is_flower(k))),
        melds,
        tiles.kinds([newest])[0],
        WinType.DISCARD if on_discard else WinType.SELF_DRAW,
        deal.seat_of(place),
        None if discarder is None else deal.seat_of(discarder),
        tuple(sorted(k for k in kinds + meld_kinds if is_flower(k))),
        deal.draw_streak,
        frozenset(deal.seat_of(p) for p in finished),
    )
    return _score(ruleset, win, place, discarder, deal)


def _score(
    ruleset: Ruleset, win: Win, place: int, discarder: int | None, deal: DealState
) -> Judgement:
    try:
        score = ruleset.score(win)
    except RulesError as error:
        return Judgement(None, str(error))
    if not score.valid:
        return Judgement(None, score.reason)
    record = WinRecord(
        place,
        discarder,
        win.win_tile,
        win.concealed,
        win.melds,
        win.flowers,
        tuple((p.name, p.value) for p in score.patterns),
        score.total,
        score.unit,
        score.score,
    )
    payments = tuple(score.payments.get(deal.seat_of(p), 0) for p in range(4))
    return Judgement(record, score.reason, payments)


def group_melds(kinds: Iterable[int]) -> tuple[Meld, ...] | None:
    """Exposed tiles as sets (kongs, pungs, then chows from the lowest); None if they make none."""
    counts = Counter(kinds)
    melds = []
    for kind in sorted(counts):
        if counts[kind] >= 3:
            size = 4 if counts[kind] == 4 else 3
            melds.append(Meld(MeldKind.KONG if size == 4 else MeldKind.PUNG, (kind,) * size))
            counts[kind] -= size
    for kind in sorted(counts):
        while counts[kind] > 0:
            run = (kind, kind + 1, kind + 2)
            if not (is_suited(kind) and kind % 9 <= 6 and all(counts[k] > 0 for k in run)):
                return None
            for k in run:
                counts[k] -= 1
            melds.append(Meld(MeldKind.CHOW, run))
    return tuple(melds)


def settle_draw(
    ruleset: Ruleset, board: ZoneBoard, tiles: TileMap, deal: DealState, won: Iterable[int]
) -> tuple[tuple[int, ...], str]:
    """Payments by place when the wall runs out, and a problem ('' if none) if it cannot settle."""
    winners = set(won)
    seats = {}
    for place in range(4):
        kinds = [k for k in tiles.kinds(board.tiles(place, Zone.HAND)) if not is_flower(k)]
        shown = [k for k in tiles.kinds(board.tiles(place, Zone.MELD)) if not is_flower(k)]
        seats[deal.seat_of(place)] = SeatAtDraw(
            tuple(sorted(kinds)), group_melds(shown) or (), won=place in winners
        )
    try:
        payments = ruleset.settle_draw(seats)
    except RulesError as error:
        return (0, 0, 0, 0), f"the drawn hand could not be settled: {error}"
    return tuple(payments.get(Seat(deal.seat_of(p)), 0) for p in range(4)), ""
