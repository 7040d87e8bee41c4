"""Claim windows: after a discard (and after an added kong's fourth tile, for robbing) the
other seats may declare; when the window closes (its time is up, the next seat draws, a set
is claimed) the declarations are judged in priority: wins first, head bump or several
winners as the ruleset says."""

from controller.rules.claims import KongKind
from controller.table.incidents import IncidentKind, Instant
from controller.table.irregularities import Rights
from controller.table.ports import Zone
from controller.table.referee import fouls, procedures, wins
from controller.table.referee.events import Move, MoveKind, WinEntry
from controller.table.referee.state import Play
from controller.table.referee.turn import Need
from controller.table.referee.windows import Close, Window
from controller.table.rulings import Ruling
from controller.table.tiles import seat_name, tile_words


def close(play: Play, why: Close, claimant: tuple[int, list[int]] | None = None) -> bool:
    """Close the open window and judge what was declared on it; True if someone won (then the
    set a `claimant` (seat, own tags) laid out with the discard is void: R-CLAIM-2)."""
    # Closed by a draw, a press on it by another seat may have come before the reads of the
    # moves it follows: unless the seat took this tile, it waits for the next window.
    window = play.windows.close(why is Close.DRAW, play.on_turn.place)
    if window is None:
        return False
    if window.taken_by is not None:
        play.check(window.uid)  # out of place again unless it is won on
    winners = _judge_window(play, window)
    if window.robbing:
        _kong_robbed_or_stands(play, window, winners)
    elif not winners:
        procedures.check_passed_discard(play, window)
    if winners:
        if claimant is not None:
            void_set(play, window, *claimant, Ruling.WIN_BEFORE_SET)
        procedures.record_wins(play, winners, _last_in_turn(window, winners))
        return True
    if window.last and why is Close.TIME and play.wall.remaining == 0:
        procedures.end(play, "the wall is empty")
    return False


def _judge_window(play: Play, window: Window) -> list[WinEntry]:
    order = [(window.source + step) % 4 for step in (1, 2, 3)]
    valid: list[WinEntry] = []
    win_type = wins.discard_type(play, window)
    for place in order:
        if place not in window.declares or not play.in_play(place):
            continue
        with play.judged_at(window.declares[place]):
            if not fouls.may(play, place, Rights.WIN, "win"):
                continue
            entry, reason = wins.judge(play, place, window.uid, win_type, window.source)
            if entry is None:
                fouls.false_win(play, place, reason)
            else:
                valid.append(entry)
    rules = play.ruleset.claims
    if valid and not rules.multiple_winners:
        for bumped in valid[1:]:
            play.incident(
                bumped.place,
                IncidentKind.HEAD_BUMP,
                f"seat {seat_name(valid[0].place)} is first in turn and wins alone",
                ruling=Ruling.HEAD_BUMP,
            )
        valid = valid[:1]
    if valid and not window.robbing and window.after_kong:
        procedures.pass_income(play, window, [w.place for w in valid])
    for entry in valid:
        play.record(Move(entry.at, entry.place, MoveKind.WIN, (entry.win_tile,), window.source))
    if valid:
        _tile_to_winner(play, window, valid[0].place)
    return valid


def _tile_to_winner(play: Play, window: Window, place: int) -> None:
    seen = play.at(window.uid)
    lies = (place, Zone.HAND) if seen is not None and seen[0] == place else None
    play.places.won(window.uid, place, lies or seen or (window.source, Zone.DISCARD))


def _kong_robbed_or_stands(play: Play, window: Window, winners: list[WinEntry]) -> None:
    if not winners:
        procedures.pay_kong(play, window.source, KongKind.ADDED, None)
        return
    play.places.unkong(window.source)


def _last_in_turn(window: Window, winners: list[WinEntry]) -> int:
    order = [(window.source + step) % 4 for step in (1, 2, 3)]
    return max((w.place for w in winners), key=order.index)


def declare(play: Play, place: int) -> None:
    """A declare press; it is placed once the tiles show what it claims (it may come first)."""
    if play.in_play(place):
        play.windows.pressed(place, play.now)
        place_declarations(play)


def place_declarations(play: Play) -> None:
    """Each press not yet placed: a claim on the open window, a win in the seat's own turn,
    or, once the tiles have had time to settle, too late or out of turn."""
    for place, at in sorted(play.windows.early.items(), key=lambda item: item[1].monotonic):
        window = play.windows.open
        if not play.in_play(place):
            play.windows.placed(place)
        elif window is not None and place != window.source:
            play.windows.in_window(place, at)
        elif place == play.on_turn.place and play.on_turn.need is Need.DISCARD:
            play.windows.in_own_turn(place, at)
        elif _over_claim(play, place):
            play.windows.placed(place)
            _win_over_claim(play, place, at)
        # Too late or out of turn once the zones were read again, and no read is missing.
        elif play.t >= (due := at.monotonic + 2 * play.settings.settle_s) and play.reads_in(due):
            play.windows.placed(place)
            who = f"seat {seat_name(place)}"
            closed = play.windows.closed
            if closed is not None and place != closed.source:
                play.incident(
                    place,
                    IncidentKind.LATE_CLAIM,
                    f"{who} declared after the next draw",
                    ruling=Ruling.LATE_WIN,
                )
            elif fouls.may(play, place, Rights.WIN, "win"):
                fouls.false_win(play, place, "declared out of turn", Ruling.DECLARED_OUT_OF_TURN)


def _over_claim(play: Play, place: int) -> bool:
    """A press on the discard a set was just claimed from, before the claimer discarded."""
    claimed = play.windows.claimed
    return (
        claimed is not None
        and play.windows.open is None
        and place not in (claimed.source, play.on_turn.place)
        and play.in_play(place)
        and any(r.claimed == claimed.uid for r in play.seats[play.on_turn.place].melds)
    )


def _win_over_claim(play: Play, place: int, at: Instant) -> None:
    """A win declared on a discard after another seat laid out a set with it, before that
    seat discarded: the win keeps its priority (R-CLAIM-3). A valid win voids the set and
    takes the discard; a declaration that is no win is a false win, and the set stands."""
    window = play.windows.claimed
    assert window is not None
    claimer = play.on_turn.place
    with play.judged_at(at):
        if not fouls.may(play, place, Rights.WIN, "win"):
            return
        win_type = wins.discard_type(play, window)
        entry, reason = wins.judge(play, place, window.uid, win_type, window.source)
        if entry is None:
            fouls.false_win(play, place, reason)
            return
    record = next(r for r in play.seats[claimer].melds if r.claimed == window.uid)
    own = [uid for uid in record.uids if uid != window.uid]
    if record.kong is not None:
        _unpay_kong(play, claimer)
    play.places.to_river(window.uid, window.source, also=(claimer, Zone.MELD))
    play.windows.set_claimed(None)
    play.on_turn.set_void()
    void_set(play, window, claimer, own, Ruling.WIN_OVER_LAID_SET)
    play.places.drop_meld(claimer, record)
    play.windows.reopen_for(window, place, at)
    if play.at(window.uid) == (place, Zone.HAND):  # taken from the set into the winner's hand
        play.windows.taken(window, place)
        kinds = tuple(play.kinds([window.uid]))
        play.record(Move(play.now, place, MoveKind.TAKE_FOR_WIN, kinds, window.source))
    close(play, Close.TIME)


def _unpay_kong(play: Play, place: int) -> None:
    """A kong claimed on a discard that a win took: its payment is returned."""
    entry = next((k for k in reversed(play.kongs) if k.place == place), None)
    if entry is None:
        return
    play.kong_void(entry, "kong void: the discard was won on")


def void_set(play: Play, window: Window, place: int, uids: list[int], ruling: Ruling) -> None:
    """A set laid out on a discard that a win took: void, no fault; its own tiles are the
    claimer's hand again (they may lie in its MELD zone until they are put back)."""
    for uid in uids:
        play.places.to_hand(uid, place, also=(place, Zone.MELD))
    tile = tile_words(play.tiles.kind(window.uid) or 0)
    play.incident(
        place,
        IncidentKind.CLAIM_VOID,
        f"the set on the {tile} is void: a win on that discard comes first",
        tiles=tuple(sorted(play.kinds(uids))),
        ruling=ruling,
    )


def judge_self(play: Play, place: int) -> None:
    """Judge a seat's declaration in its own turn (self-drawn, replacement, heavenly...)."""
    play.windows.judged_self(place)
    if not fouls.may(play, place, Rights.WIN, "win"):
        return
    win_type, uid = wins.self_drawn_type(play, place)
    entry, reason = wins.judge(play, place, uid, win_type, None)
    if entry is None:
        fouls.false_win(play, place, reason)
        return
    play.record(Move(entry.at, place, MoveKind.WIN, (entry.win_tile,)))
    procedures.record_wins(play, [entry], place)


def judge_settled(play: Play) -> None:
    """Judge self-drawn declarations whose tiles have settled."""
    for place, at in sorted(play.windows.self_declared.items(), key=lambda item: item[1].monotonic):
        if play.over:
            return
        # Nothing may still be on its way (a flower set aside, a kong's fourth tile read late)
        turn = play.on_turn
        ready = turn.place == place and turn.need is Need.DISCARD and not play.odd | play.unseen
        waited = play.t - at.monotonic
        if not play.reads_in(at.monotonic + play.settings.settle_s):
            continue
        if (ready and waited >= play.settings.settle_s) or waited >= play.settings.stray_s:
            judge_self(play, place)
