"""Settled reads -> moves: each step finds the one move the tags out of place show, in the
order play allows (a claim on the open discard, then the turn's draw, flower, kong or
discard), applies it, and looks again. A tag half way (gone from the river, not yet in a
meld) explains nothing yet, so it makes no move; it waits for the next read."""

from controller.rules import Meld, MeldKind, RulesError
from controller.rules.claims import Claim, KongKind
from controller.rules.tiles import is_flower
from controller.table.incidents import IncidentKind
from controller.table.irregularities import Rights
from controller.table.ports import Zone
from controller.table.referee import claims, fouls, procedures, timing
from controller.table.referee.events import Move, MoveKind
from controller.table.referee.melds import MeldView
from controller.table.referee.state import Play
from controller.table.referee.turn import Need, Replaced
from controller.table.referee.windows import Close, Window
from controller.table.rulings import Ruling
from controller.table.tiles import seat_name, tile_words


def explain(play: Play, patient: bool = False) -> bool:
    """Find and apply one move; False when the tags out of place show none (yet). Moves out
    of turn are looked for only when `patient` (the tags stayed out of place a while: a
    missed read would have been read again by then)."""
    if play.over:
        return False
    before = len(play.moves)
    if not play.odd:  # every move shows as tags out of place, but one already taken as a stray
        return _held_draw(play)
    found = (
        _claim(play, patient)
        or _late_claim(play)
        or _next_draw(play)
        or _second_discard(play)
        or _turn(play, patient)
        or (patient and _out_of_turn(play))
    )
    if found and not play.over:
        _held_draw(play)  # before the count: the seat holds the draw its move calls for
        for move in play.moves[before:]:
            if move.kind not in _NO_COUNT:
                fouls.check_count(play, move.place)
    return found


_NO_COUNT = frozenset({MoveKind.TAKE_FOR_WIN, MoveKind.ROB_KONG, MoveKind.WIN})
"""Moves after which the seat's count is not checked (a winner's hand is judged instead)."""


# ---- claims on the open window ---------------------------------------------------------------


def _claim(play: Play, patient: bool) -> bool:
    window = play.windows.open
    if window is None or window.taken_by is not None or window.uid not in play.odd:
        return False
    seen = play.at(window.uid)
    if seen is None or seen[0] == window.source or not play.in_play(seen[0]):
        return False
    place, zone = seen
    if zone is Zone.HAND:
        play.windows.taken(window, place)
        play.check(window.uid)
        kind = MoveKind.ROB_KONG if window.robbing else MoveKind.TAKE_FOR_WIN
        play.record(Move(play.now, place, kind, tuple(play.kinds([window.uid])), window.source))
        return True
    if zone is Zone.MELD and not window.robbing:
        return _meld_claim(play, window, place, patient)
    return False


def _meld_claim(play: Play, window: Window, place: int, patient: bool) -> bool:
    own = _moved_to_meld(play, place)
    found = _claimed_set(play, window, place, own)
    if found is None:
        if not (patient and len(own) >= 2):
            return False  # the rest of the set may still be on its way
        _refuse(play, window, place, own, IncidentKind.WRONG_CLAIM, Ruling.SET_DOES_NOT_FIT)
        return True
    claim, uids = found
    rules = play.ruleset.claims
    if not rules.allowed(claim, play.seat_of(place), play.seat_of(window.source), window.last):
        ruling = (
            Ruling.LAST_DISCARD_SET
            if window.last
            else Ruling.WRONG_SEAT_CHOW
            if claim is Claim.CHOW
            else Ruling.SET_DOES_NOT_FIT
        )
        _refuse(play, window, place, uids, IncidentKind.WRONG_CLAIM, ruling, claim)
        return True
    right = Rights.KONG if claim is Claim.KONG else Rights.CLAIM
    if right not in play.rights[place] or Rights.CLAIM not in play.rights[place]:
        _refuse(play, window, place, uids, IncidentKind.RIGHT_LOST, Ruling.NO_RIGHT_TO_CLAIM, claim)
        return True
    if play.penalty_tiles[place].in_set(uids):
        _refuse(
            play, window, place, uids, IncidentKind.PENALTY_TILE_USED, Ruling.PENALTY_TILE_IN_SET
        )
        return True
    if claims.close(play, Close.CLAIM, claimant=(place, uids)):
        return True
    _make_meld(play, window, place, claim, uids)
    return True


def _refuse(
    play: Play,
    window: Window,
    place: int,
    uids: list[int],
    kind: IncidentKind,
    ruling: Ruling,
    claim: Claim | None = None,
) -> None:
    """A wrong claim (誤鳴): refused; the claimer's own tiles it exposed become live penalty
    tiles (they may stay face up in its MELD zone), the discard goes back to the river and
    may still be claimed while its window is open. No right is lost (R-WRONG)."""
    what = claim.value if claim is not None else "set"
    words = {
        Ruling.SET_DOES_NOT_FIT: "the tiles laid out make no set with the discard",
        Ruling.WRONG_SEAT_CHOW: "a chow only from the seat before",
        Ruling.LAST_DISCARD_SET: "the last discard may only be won on",
        Ruling.NO_RIGHT_TO_CLAIM: f"seat {seat_name(place)} lost the right to claim this hand",
        Ruling.PENALTY_TILE_IN_SET: "a penalty tile may not be part of an exposed set",
        Ruling.LATE_SET: "it was taken after the next draw",
    }[ruling]
    tile = tile_words(play.tiles.kind(window.uid) or 0)
    play.incident(
        place,
        kind,
        f"{what} on the {tile} refused: {words}; the exposed tiles become penalty tiles",
        play.ruleset.penalties.wrong_claim,
        tuple(sorted(play.kinds(uids))),
        ruling,
    )
    play.standing.expose(place, uids)
    for uid in uids:
        play.places.to_hand(uid, place, also=(place, Zone.MELD))
    if play.places.where.get(window.uid) is not None:
        play.places.may_lie(window.uid, (place, Zone.MELD))


def _claimed_set(
    play: Play, window: Window, place: int, own: list[int]
) -> tuple[Claim, list[int]] | None:
    kind = play.tiles.kind(window.uid)
    if kind is None:
        return None
    same = [u for u in own if play.tiles.kind(u) == kind]
    if len(same) >= 3:
        return Claim.KONG, same[:3]
    if len(same) == 2:
        return Claim.PUNG, same
    by_kind = {play.tiles.kind(u): u for u in own}
    for low in (kind - 2, kind - 1, kind):
        run = [k for k in (low, low + 1, low + 2) if k != kind]
        if len(run) == 2 and all(k in by_kind for k in run):
            try:
                Meld(MeldKind.CHOW, (low, low + 1, low + 2))
            except RulesError:
                continue
            return Claim.CHOW, [by_kind[k] for k in run]
    return None


def _make_meld(play: Play, window: Window, place: int, claim: Claim, uids: list[int]) -> None:
    kind = {Claim.CHOW: MeldKind.CHOW, Claim.PUNG: MeldKind.PUNG}.get(claim, MeldKind.KONG)
    kong = KongKind.EXPOSED if kind is MeldKind.KONG else None
    play.places.meld(place, [window.uid, *uids], kind, kong, window.uid)
    play.windows.set_claimed(window)
    play.on_turn.claimed(place)
    timing.turn_starts(play, place, since=window.opened)
    move_kind = {
        Claim.CHOW: MoveKind.CHOW,
        Claim.PUNG: MoveKind.PUNG,
    }.get(claim, MoveKind.EXPOSED_KONG)
    tiles = tuple(sorted(play.kinds([window.uid, *uids])))
    play.record(Move(play.now, place, move_kind, tiles, window.source))
    if kong is None:
        play.on_turn.to_discard()
    else:
        procedures.kong_made(play, place, kong, window.source)


def _late_claim(play: Play) -> bool:
    return any(_claimed_late(play, window) for window in reversed(play.windows.passed))


def _claimed_late(play: Play, closed: Window) -> bool:
    if closed.uid in play.windows.reported or closed.uid not in play.odd:
        return False
    seen = play.at(closed.uid)
    if seen is None or seen[0] == closed.source or seen[1] is Zone.DISCARD:
        return False
    place = seen[0]
    own = _moved_to_meld(play, place)
    found = _claimed_set(play, closed, place, own) if seen[1] is Zone.MELD else None
    if seen[1] is Zone.MELD and found is None:
        return False  # the rest of the set is still on its way
    if found is None:
        play.windows.report_late(closed.uid)
        what = tile_words(play.tiles.kind(closed.uid) or 0)
        play.incident(
            place,
            IncidentKind.LATE_CLAIM,
            f"the {what} was taken after the next draw",
            play.ruleset.penalties.wrong_claim,
            ruling=Ruling.LATE_SET,
        )
        return True
    _, uids = found
    _refuse(play, closed, place, uids, IncidentKind.LATE_CLAIM, Ruling.LATE_SET, found[0])
    return True


# ---- the turn's own moves --------------------------------------------------------------------


def _turn(play: Play, patient: bool) -> bool:
    place = play.on_turn.place
    if not play.in_play(place):
        return False
    if play.on_turn.need is not Need.DISCARD:
        return _draw(play, place, patient) or (
            patient and play.on_turn.need is Need.DRAW and _undrawn_discard(play, place)
        )
    moved = _moved_to_meld(play, place)  # each look below leaves it as it is when it fails
    return (
        _flower(play, place, moved)
        or _concealed_kong(play, place, moved)
        or _added_kong(play, place, moved)
        or _discard(play, place, patient)
    )


def _from_wall(play: Play, place: int) -> list[int]:
    """Wall tags the seat has taken that no move explains yet: in its HAND, or already
    thrown or set aside (the HAND antenna missed the tag while it was there)."""
    where, wall = play.places.where, play.wall
    return [
        u
        for u in sorted(play.odd)
        if u not in where and wall.holds(u) and (play.at(u) or (-1,))[0] == place
    ]


def _next_draw(play: Play) -> bool:
    """The wall's next live tile lies at a seat: that seat drew it. The wall is drawn in a
    fixed order, so this is the draw that came first of any the reads show; taken in that
    order, a draw out of turn or a second tile cannot put the referee's wall behind the
    table's. Out of turn it is taken at once only when nothing else is out of place (else a
    move the antennas have not shown yet may explain it: the patient look decides)."""
    uid = play.wall.next_live()
    seen = play.at(uid) if uid is not None and uid in play.odd else None
    if uid is None or seen is None or not play.in_play(seen[0]):
        return False
    place = seen[0]
    if place == play.on_turn.place and play.on_turn.need is Need.DRAW:
        return _draw(play, place, patient=False)
    if play.odd != {uid}:
        return False
    if place == play.on_turn.place and play.on_turn.need is Need.DISCARD:
        if _just_claimed(play, place) or _flower_kept(play, place):
            return False  # at the wall's last tiles: a replacement, its kong or flower unread
        _second_tile(play, place, uid)
        return True
    if place != play.on_turn.place and play.on_turn.need is Need.DRAW:
        if _taken_to_win(play, place, uid):
            return _draw(play, play.on_turn.place, patient=False)
        in_hand = seen == (place, Zone.HAND) and place == play.next_in(play.on_turn.place)
        if in_hand and play.t - (play.waits.odd_since or play.t) < play.settings.settle_s:
            return False  # a press may follow: then the seat on turn drew, threw, and it took
        _drawn_out_of_turn(play, place, uid)
        return True
    return False


def drawn_and_taken(play: Play) -> bool:
    """The next tile of the wall lies in the HAND of a seat not on turn that pressed declare
    (R-SENSOR-4): its press is on the discard of that tile, still to be read as moves."""
    uid = play.wall.next_live()
    seen = play.at(uid) if uid is not None and uid in play.odd else None
    turn = play.on_turn
    if uid is None or seen is None or seen[0] == turn.place or turn.need is not Need.DRAW:
        return False
    return _taken_to_win(play, seen[0], uid)


def _taken_to_win(play: Play, place: int, uid: int) -> bool:
    """The tile the seat on turn draws next lies in the HAND of a seat that pressed declare:
    drawn, thrown and taken to win between two reads (R-SENSOR-4), not a draw out of turn."""
    if play.at(uid) != (place, Zone.HAND):
        return False
    window = play.windows.open
    return place in play.windows.early or (window is not None and place in window.declares)


def _draw(play: Play, place: int, patient: bool) -> bool:
    replacing = play.on_turn.need is Need.REPLACEMENT
    expected = play.wall.next_replacement() if replacing else play.wall.next_live()
    taken = _from_wall(play, place)
    if not taken and expected is not None and _claimed_unseen(play, place, expected):
        taken = [expected]
    if not taken or expected is None or (expected not in taken and not patient):
        return False  # another tile than the next: an antenna may have missed the next one
    if play.windows.open is not None:
        claims.close(play, Close.DRAW)
        if play.over or play.on_turn.place != place or play.on_turn.need is Need.DISCARD:
            return True
    uid = expected if expected in taken else taken[0]
    if uid != expected:
        where = "the wall's end" if replacing else "the wall"
        play.incident(
            place,
            IncidentKind.WRONG_WALL_DRAW,
            f"took {tile_words(play.tiles.kind(uid) or 0)}, not the next tile of {where}",
            tiles=tuple(play.kinds([uid])),
        )
    _take(play, place, uid, replacing)
    return True


def _held_draw(play: Play) -> bool:
    """The seat on turn must draw (a replacement, after a kong or flower read late) and holds
    the tile it took from the wall before that move was read, taken then as a stray: that
    tile is its draw (R-SENSOR-5)."""
    turn = play.on_turn
    uid = turn.held_draw
    if uid is None or turn.need is Need.DISCARD:
        return False
    if play.places.where.get(uid) != (turn.place, Zone.HAND):
        return False
    _drew(play, turn.place, uid, turn.need is Need.REPLACEMENT, play.wall.remaining + 1)
    return True


def _claimed_unseen(play: Play, place: int, uid: int) -> bool:
    """The tile the seat on turn draws next lies in another seat's set: drawn, thrown and
    claimed between two reads of the seat's zones (its river read lost or late). Taken as
    its draw; its throw and the claim follow from the reads as they are."""
    seen = play.at(uid) if uid in play.odd else None
    if seen is None or is_flower(play.tiles.kind(uid) or 0):
        return False  # a flower is set aside, never claimed
    if seen[1] is Zone.HAND and seen[0] != place:
        return _taken_to_win(play, seen[0], uid)
    return seen[1] is Zone.MELD and seen[0] != place and play.in_play(seen[0])


def _take(play: Play, place: int, uid: int, replacing: bool) -> None:
    """The seat took this tag from the wall into its hand: its draw."""
    before = play.wall.remaining
    play.places.draw(uid, place)
    _drew(play, place, uid, replacing, before)


def _drew(play: Play, place: int, uid: int, replacing: bool, wall_before: int) -> None:
    """The seat on turn drew this tile (already in its hand), the wall holding `wall_before`
    tiles before: its turn goes on, a claimed kong's claim is complete, the move is kept."""
    if replacing:
        play.windows.set_claimed(None)  # a claimed kong's replacement: the claim is complete
    draw = play.on_turn.drew(place, uid, replacing, wall_before)
    if draw.replaced is Replaced.KONG:
        timing.turn_starts(play, place)  # a kong: a new turn from the replacement draw
    kind = MoveKind.REPLACEMENT if replacing else MoveKind.DRAW
    play.record(Move(play.now, place, kind, tuple(play.kinds([uid]))))


def _out_of_turn(play: Play) -> bool:
    """A seat not on turn draws (in place of the seat on turn, or a second tile in its own
    turn) or throws a tile: the move stands as the table shows it, and is an incident."""
    for step in (1, 2, 3, 0):  # the seat after the one on turn first: it drew in its place
        place = (play.on_turn.place + step) % 4
        if not play.in_play(place):
            continue
        taken = _from_wall(play, place)
        if taken and _stray_draw(play, place, taken):
            return True
        if place != play.on_turn.place and _stray_discard(play, place):
            return True
    return False


def _stray_draw(play: Play, place: int, taken: list[int]) -> bool:
    """Only the wall's next live tile: a tile from elsewhere in the wall (a kong's replacement
    whose kong the antennas have not shown yet) waits for the move that explains it."""
    uid = play.wall.next_live()
    if uid is None or uid not in taken:
        return False
    if place == play.on_turn.place:
        if play.on_turn.need is not Need.DISCARD:
            return False
        _second_tile(play, place, uid)
        return True
    if play.on_turn.need is not Need.DRAW:
        return False
    if _taken_to_win(play, place, uid):
        return _draw(play, play.on_turn.place, patient=True)
    _drawn_out_of_turn(play, place, uid)
    return True


def _second_tile(play: Play, place: int, uid: int) -> None:
    """A second tile in one turn: the count check says it (a long hand)."""
    play.places.draw(uid, place)
    play.record(Move(play.now, place, MoveKind.DRAW, tuple(play.kinds([uid]))))


def _drawn_out_of_turn(play: Play, place: int, uid: int) -> None:
    """`place` drew in place of the seat on turn: the turn is its now."""
    skipped = play.on_turn.place
    play.incident(
        place,
        IncidentKind.DRAW_OUT_OF_TURN,
        f"seat {seat_name(place)} drew in place of seat {seat_name(skipped)}: a long hand, "
        "no win, claim or kong this hand",
        play.ruleset.penalties.long_hand,
        tuple(play.kinds([uid])),
        Ruling.DRAW_OUT_OF_TURN,
    )
    play.standing.lose(place, Rights.ALL)
    play.standing.miscount_said(place)  # said as this incident
    if play.windows.open is not None:
        claims.close(play, Close.DRAW)
        if play.over or play.on_turn.need is not Need.DRAW:
            return
    play.on_turn.taken_over(place)
    timing.turn_starts(play, place)
    _take(play, place, uid, replacing=False)


def _thrown(play: Play, place: int) -> list[int]:
    """The seat's concealed tags that lie in its own river: thrown, no move explains them yet."""
    seat = play.seats[place]
    return [
        u for u in sorted(play.odd) if u in seat.concealed and play.at(u) == (place, Zone.DISCARD)
    ]


def _undrawn_discard(play: Play, place: int) -> bool:
    """The seat on turn threw without drawing (R-COUNT-1): its discard, a short hand; the
    turn goes on from it, so the next seat's draw is in turn (R-TURN-1)."""
    if not _thrown(play, place):
        return False
    if play.windows.open is not None:
        claims.close(play, Close.TIME)
        if play.over or play.on_turn.place != place or play.on_turn.need is not Need.DRAW:
            return True
    return _discard(play, place, patient=True)


def _second_discard(play: Play) -> bool:
    """The seat that just threw throws another tile before the next draw (a short hand from
    now on): the newest tile of its river is the one the others may claim now. Taken at once
    only when nothing else is out of place."""
    window = play.windows.open
    if window is None or window.robbing or play.on_turn.need is not Need.DRAW:
        return False
    thrown = _thrown(play, window.source)
    if len(thrown) != 1 or play.odd != set(thrown):
        return False
    claims.close(play, Close.TIME)
    if play.over or play.on_turn.need is not Need.DRAW:
        return True
    _throw(play, window.source, thrown[0])
    play.windows.opens(Window(thrown[0], window.source, play.t, last=play.wall.remaining == 0))
    return True


def _stray_discard(play: Play, place: int) -> bool:
    """A tile thrown by a seat not on turn: it lies in the river."""
    thrown = _thrown(play, place)
    if not thrown:
        return False
    _throw(play, place, thrown[0])
    return True


def _throw(play: Play, place: int, uid: int) -> None:
    """A throw out of turn or a second one: into the river, no claim window of its own."""
    _into_river(play, place, uid)
    play.record(Move(play.now, place, MoveKind.DISCARD, tuple(play.kinds([uid]))))


def _into_river(play: Play, place: int, uid: int) -> None:
    play.places.to_river(uid, place)
    fouls.discarded(play, place, uid)


def _moved_to_meld(play: Play, place: int) -> list[int]:
    where, hand = play.places.where, (place, Zone.HAND)
    return [u for u in play.odd_at(place, Zone.MELD) if where.get(u) == hand]


def _flower(play: Play, place: int, moved: list[int]) -> bool:
    flowers = [u for u in moved if is_flower(play.tiles.kind(u) or 0)]
    if not flowers:
        return False
    uid = flowers[0]
    play.places.to_flowers(uid, place)
    play.record(Move(play.now, place, MoveKind.FLOWER, tuple(play.kinds([uid]))))
    play.on_turn.replace(Replaced.FLOWER)  # none left: the hand ends
    if not play.wall.remaining:
        play.standing.miscount_said(place)  # a flower as the last tile: one short, by rule
    return True


def _concealed_kong(play: Play, place: int, moved: list[int]) -> bool:
    for kind in sorted(set(play.kinds(moved))):
        four = [u for u in moved if play.tiles.kind(u) == kind]
        if len(four) == 4:
            if not fouls.may(play, place, Rights.KONG, "kong"):
                _kong_refused(play, place, four)
                return True
            # A concealed kong may use penalty tiles: they are none any more (R-PEN-4).
            play.standing.in_concealed_kong(place, four)
            play.places.meld(place, four, MeldKind.CONCEALED_KONG, KongKind.CONCEALED)
            play.record(Move(play.now, place, MoveKind.CONCEALED_KONG, (kind,) * 4))
            procedures.kong_made(play, place, KongKind.CONCEALED, None)
            return True
    return False


def _added_kong(play: Play, place: int, moved: list[int]) -> bool:
    seat = play.seats[place]
    for uid in moved:
        kind = play.tiles.kind(uid)
        pung = seat.pung_of(kind, play.tiles) if kind is not None else None
        if pung is None or kind is None:
            continue
        if not fouls.may(play, place, Rights.KONG, "kong"):
            _kong_refused(play, place, [uid])
            return True
        if play.penalty_tiles[place].in_set([uid]):
            play.incident(
                place,
                IncidentKind.PENALTY_TILE_USED,
                f"kong refused: the {tile_words(kind)} is a penalty tile, no exposed set takes it",
                play.ruleset.penalties.wrong_claim,
                (kind,),
                Ruling.PENALTY_TILE_IN_KONG,
            )
            _kong_refused(play, place, [uid])
            return True
        late = _just_claimed(play, place) and pung.claimed is not None
        play.places.add_to_pung(uid, place, pung, KongKind.EXPOSED if late else KongKind.ADDED)
        if late:
            _read_late_as_exposed_kong(play, place, pung)
            return True
        play.record(Move(play.now, place, MoveKind.ADDED_KONG, (kind,) * 4))
        if play.ruleset.claims.can_rob(KongKind.ADDED):
            play.windows.opens(Window(uid, place, play.t, robbing=True))
        procedures.kong_made(play, place, KongKind.ADDED, None, pay=play.windows.open is None)
        return True
    return False


def _kong_refused(play: Play, place: int, uids: list[int]) -> None:
    """A kong the seat may not make: no kong, no replacement; its tiles stay in the hand and
    may lie face up in the MELD zone (a penalty tile stays one)."""
    for uid in uids:
        play.places.to_hand(uid, place, also=(place, Zone.MELD))


def _discard(play: Play, place: int, patient: bool) -> bool:
    seat = play.seats[place]
    gone = [u for u in sorted(play.odd) if u in seat.concealed and play.at(u) is not None]
    gone = [u for u in gone if play.at(u) not in ((place, Zone.HAND), (place, Zone.MELD))]
    if not gone:
        return False
    if not patient and (_from_wall(play, place) or _flower_kept(play, place)):
        return False  # a tile from the wall no move explains yet: a flower or kong unread
    if place in play.windows.self_declared:
        claims.judge_self(play, place)
        return True
    own = [u for u in gone if play.at(u) == (place, Zone.DISCARD)]
    uid = (own or gone)[0]
    if play.windows.open is not None:
        claims.close(play, Close.TIME)
    procedures.check_passed_own_win(play, place)
    play.windows.set_claimed(None)
    _into_river(play, place, uid)
    draw = play.on_turn.last_draw
    draw = draw if draw and draw.place == place else None
    window = Window(
        uid,
        place,
        play.t,
        last=play.wall.remaining == 0,
        after_kong=draw is not None and draw.replaced is Replaced.KONG,
        wall_before=draw.wall_before if draw else None,
    )
    play.windows.opens(window, after_discard=True)
    play.on_turn.discarded(play.next_in(place))
    timing.discarded(play, place, play.on_turn.place)
    play.record(Move(play.now, place, MoveKind.DISCARD, tuple(play.kinds([uid]))))
    return True


def _flower_kept(play: Play, place: int) -> bool:
    """The seat's last draw was a flower it still holds: a player sets a flower aside before
    throwing, so its read from the MELD zone is late (the HAND antenna holds it until then)."""
    draw = play.on_turn.last_draw
    return (
        draw is not None
        and draw.place == place
        and draw.uid in play.seats[place].concealed
        and is_flower(play.tiles.kind(draw.uid) or 0)
    )


def _just_claimed(play: Play, place: int) -> bool:
    """The seat's last move was claiming a pung (it has not discarded since)."""
    last = play.moves[-1] if play.moves else None
    return last is not None and last.place == place and last.kind is MoveKind.PUNG


def _read_late_as_exposed_kong(play: Play, place: int, pung: MeldView) -> None:
    """The fourth tile of a claimed set was read after the other three: it was a kong on the
    discard all along (a pung cannot be added to in the turn it was claimed), so the pung
    move the first read made becomes that kong (`places` made it an exposed kong)."""
    claimed = play.unrecord()
    tiles = tuple(sorted(play.kinds(pung.uids)))
    play.record(Move(claimed.at, place, MoveKind.EXPOSED_KONG, tiles, claimed.source))
    procedures.kong_made(play, place, KongKind.EXPOSED, claimed.source)
