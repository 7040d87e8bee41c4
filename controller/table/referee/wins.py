"""A declared win: the winning tile and the win type from the move history, the hand from
what the seat holds, scored by the rules engine."""

from controller.rules import RulesError, Win, WinType
from controller.rules.tiles import is_flower
from controller.table.referee.events import MoveKind, WinEntry
from controller.table.referee.state import Play
from controller.table.referee.windows import Window


def self_drawn_type(play: Play, place: int) -> tuple[WinType, int | None]:
    """How a seat that declares in its own turn won, and on which tag (None: no tile to name)."""
    draw = play.on_turn.last_draw
    draw = draw if draw and draw.place == place else None
    untouched = (
        not play.on_turn.claims_made
        and not play.wins
        and not any(m.kind in (MoveKind.CONCEALED_KONG, MoveKind.ADDED_KONG) for m in play.moves)
    )
    if draw is None:
        if place == play.deal.dealer and play.on_turn.discards == 0 and untouched:
            return WinType.HEAVENLY, play.heavenly_tile
        return WinType.SELF_DRAW, None
    if draw.replaced is not None:
        return WinType.KONG_REPLACEMENT, draw.uid
    rules = play.ruleset
    first = not play.seats[place].river and untouched
    if first and place != play.deal.dealer and rules.is_self_drawn(WinType.EARTHLY):
        return WinType.EARTHLY, draw.uid
    if play.wall.remaining == 0:
        return WinType.LAST_TILE, draw.uid
    return WinType.SELF_DRAW, draw.uid


def discard_type(play: Play, window: Window) -> WinType:
    """How a win on this discard (or this robbed kong tile) counts."""
    rules = play.ruleset
    if window.robbing:
        return WinType.ROBBING_KONG
    if window.after_kong:
        return WinType.AFTER_KONG_DISCARD
    if window.last:
        return WinType.LAST_DISCARD
    dealer_first = window.source == play.deal.dealer and play.on_turn.discards == 1
    if dealer_first and not play.on_turn.claims_made and not rules.is_self_drawn(WinType.EARTHLY):
        return WinType.EARTHLY
    return WinType.DISCARD


def judge(
    play: Play, place: int, uid: int | None, win_type: WinType, discarder: int | None
) -> tuple[WinEntry | None, str]:
    """Score the declaration; a valid one comes back as an entry (not yet recorded)."""
    seat = play.seats[place]
    held = set(seat.concealed)
    if uid is not None and discarder is not None:
        held.add(uid)
    kinds = play.kinds(held)
    if len(kinds) != len(held):
        return None, "the hand holds a tag that is not in the tile set"
    tile = play.tiles.kind(uid) if uid is not None else None
    if uid is None or tile is None:
        return None, "no tile to win on"
    if any(is_flower(k) for k in kinds):
        return None, "a flower is still in the hand: set it aside first"
    melds = tuple(record.meld(play.tiles) for record in seat.melds)
    flowers = tuple(sorted(play.kinds(seat.flowers)))
    try:
        win = Win(
            tuple(sorted(kinds)),
            melds,
            tile,
            win_type,
            play.seat_of(place),
            None if discarder is None else play.seat_of(discarder),
            flowers,
            play.deal.draw_streak,
            frozenset(play.seat_of(p) for p in play.finished),
        )
        score = play.ruleset.score(win)
    except RulesError as error:
        return None, str(error)
    if not score.valid:
        return None, score.reason
    payments = tuple(score.payments.get(play.seat_of(p), 0) for p in range(4))
    entry = WinEntry(
        play.now,
        place,
        discarder,
        win_type,
        tile,
        win.concealed,
        melds,
        flowers,
        tuple((p.name, p.value) for p in score.patterns),
        score.total,
        score.unit,
        score.score,
        payments,
    )
    return entry, ""
