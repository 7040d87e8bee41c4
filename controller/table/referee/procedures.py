"""What the ruleset does with move history, through its hooks: kong payments when a kong
stands (`settle_kong`), 杠上炮 income (`pass_kong_income`), the last-four rule (`must_win`),
when the hand is over (`hand_over`) and the settlement of a drawn hand (`settle_draw`)."""

from controller.rules import RulesError, Seat
from controller.rules.claims import KongKind
from controller.rules.ruleset import SeatAtDraw
from controller.rules.tiles import is_flower
from controller.table.incidents import IncidentKind
from controller.table.referee import timing
from controller.table.referee.events import HandOver, WinEntry
from controller.table.referee.result import build_result
from controller.table.referee.state import KongEntry, Play
from controller.table.referee.turn import Replaced
from controller.table.referee.windows import Window


def kong_made(
    play: Play, place: int, kind: KongKind, discarder: int | None, pay: bool = True
) -> None:
    """A kong is on the table: it is paid for (unless it may still be robbed), then replaced."""
    if play.wall.remaining == 0:
        play.incident(place, IncidentKind.KONG_ON_LAST_TILE, "no kong may be made on the last tile")
        play.on_turn.to_discard()
        play.standing.miscount_said(place)  # short by the replacement: said as this incident
        return
    if pay:
        pay_kong(play, place, kind, discarder)
    play.on_turn.replace(Replaced.KONG)


def pay_kong(play: Play, place: int, kind: KongKind, discarder: int | None) -> None:
    """The ruleset's kong payments, recorded with who paid them."""
    players_in = [play.seat_of(p) for p in range(4) if play.in_play(p)]
    source = None if discarder is None else play.seat_of(discarder)
    try:
        amounts = play.ruleset.settle_kong(kind, play.seat_of(place), source, players_in)
    except RulesError as error:
        play.incident(place, IncidentKind.SETTLEMENT, f"the kong could not be settled: {error}")
        return
    by_place = play.pay(f"{kind.value} kong", amounts)
    paid = {p: -amount for p, amount in enumerate(by_place) if amount < 0}
    play.kong_stands(KongEntry(place, kind, paid))


def pass_income(play: Play, window: Window, winners: list[int]) -> None:
    """杠上炮: the konger's last kong income goes to the winners on its next discard."""
    kongs = [k for k in play.kongs if k.place == window.source and not k.passed]
    if not kongs:
        return
    kong = kongs[-1]
    income = sum(kong.paid_by.values())
    try:
        amounts = play.ruleset.pass_kong_income(
            play.seat_of(window.source), [play.seat_of(w) for w in winners], income
        )
    except RulesError as error:
        play.incident(window.source, IncidentKind.SETTLEMENT, f"kong income not passed: {error}")
        return
    if any(amounts.values()):
        play.pay("kong income passed to the winner", amounts)
        play.kong_income_passed(kong)


def check_passed_own_win(play: Play, place: int) -> None:
    """The seat discards instead of winning on a drawn tile it had to win on (最后四张)."""
    draw = play.on_turn.last_draw
    if draw is None or draw.place != place or draw.wall_before > 4:
        return
    seat = play.seats[place]
    concealed = play.kinds(seat.concealed - {draw.uid})
    if _must_win(play, place, concealed, play.tiles.kind(draw.uid), draw.wall_before):
        play.incident(
            place, IncidentKind.WIN_PASSED, "a ready hand must win on the last tiles of the wall"
        )


def check_passed_discard(play: Play, window: Window) -> None:
    """Seats still in that did not declare on a discard they had to win on."""
    if window.wall_before is None or window.wall_before > 4:
        return
    tile = play.tiles.kind(window.uid)
    for place in range(4):
        if place == window.source or not play.in_play(place) or place in window.declares:
            continue
        concealed = play.kinds(play.seats[place].concealed)
        if _must_win(play, place, concealed, tile, window.wall_before):
            play.incident(place, IncidentKind.WIN_PASSED, "a ready hand must win on the last tiles")


def _must_win(play: Play, place: int, concealed: list[int], tile: int | None, before: int) -> bool:
    if tile is None or before < 1:
        return False
    melds = [record.meld(play.tiles) for record in play.seats[place].melds]
    try:
        return play.ruleset.must_win(concealed, melds, tile, before)
    except RulesError:
        return False


def record_wins(play: Play, wins: list[WinEntry], after: int) -> None:
    """Record wins (one settlement each); the hand ends, or play goes on after `after`."""
    play.windows.set_claimed(None)
    for win in wins:
        play.won(win)
        play.pay(
            f"{win.win_type.value} win", {play.seat_of(p): a for p, a in enumerate(win.payments)}
        )
        play.leaves(win.place)
    if play.ruleset.hand_over(len(play.finished), play.wall.remaining):
        end(play, "won" if play.wall.remaining else "won; the wall is empty")
        return
    play.on_turn.after_win(play.next_in(after))
    play.windows.turn_over()
    timing.turn_starts(play, play.on_turn.place)


def end(play: Play, reason: str) -> None:
    """The hand is over: a drawn hand is settled, and the result goes out."""
    if play.over:
        return
    if play.wall.remaining == 0 and len(play.finished) < 4:
        _settle_draw(play)
    play.ends(reason)
    play.say(HandOver(build_result(play)))


def _settle_draw(play: Play) -> None:
    seats: dict[Seat, SeatAtDraw] = {}
    for place, seat in enumerate(play.seats):
        kongs = [k for k in play.kongs if k.place == place and not k.passed]
        paid: dict[Seat, int] = {}
        for kong in kongs:
            for payer, amount in kong.paid_by.items():
                paid[play.seat_of(payer)] = paid.get(play.seat_of(payer), 0) + amount
        seats[play.seat_of(place)] = SeatAtDraw(
            tuple(sorted(k for k in play.kinds(seat.concealed) if not is_flower(k))),
            tuple(record.meld(play.tiles) for record in seat.melds),
            won=place in play.finished,
            kong_income=sum(paid.values()),
            kong_paid_by=paid,
        )
    try:
        amounts = play.ruleset.settle_draw(seats)
    except RulesError as error:
        play.incident(
            None, IncidentKind.SETTLEMENT, f"the drawn hand could not be settled: {error}"
        )
        return
    play.pay("drawn hand", amounts)
