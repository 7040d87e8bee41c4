"""Transitions from 'walls raised' to 'hand over': the dice decide the deal, the deal is
checked when the HAND zones settle, declarations are judged, and the hand ends.

Until the referee lands, play itself is not followed move by move: a declaration is judged
from the zones (`judge`), and a hand without a (further) winner ends by an EndHand command.
"""

from controller.table import effects as fx
from controller.table import inputs as ev
from controller.table.building import dice_prompt
from controller.table.core import CycleState, Phase
from controller.table.deal import describe_mismatch
from controller.table.judge import judge, settle_draw, winners_to_end
from controller.table.ports import Beep, DeclarePressed, DiceRolled, Motion, Zone, ZoneRead
from controller.table.records import FinishedHand
from controller.table.tiles import seat_name


def press_dice(cycle: CycleState) -> None:
    """The dice button, with the walls up: roll."""
    hand = cycle.hand
    if cycle.phase in (Phase.WALLS_RAISED, Phase.DICE) and hand and not hand.rolling:
        hand.rolling = True
        cycle.move(fx.RollDice(cycle.limit(cycle.settings.dice_timeout_s)), Motion.DICE)
        cycle.enter(Phase.DICE)


def on_dice(cycle: CycleState, event: DiceRolled) -> None:
    """The dice came to rest: a dealer roll, one of the break rolls, or the last of them."""
    hand, session = cycle.hand, cycle.session
    if cycle.phase is not Phase.DICE or not hand or not hand.rolling or not session:
        return
    hand.rolling = False
    shown = f"dice {event.d1}+{event.d2}"
    if session.needs_dealer_roll and not hand.dealer_rolled:
        hand.dealer_rolled = True
        dealer = session.roll_for_dealer((event.d1, event.d2))
        cycle.say("info", f"{shown}: seat {seat_name(dealer)} deals; {dice_prompt(cycle)}")
        return
    hand.dice.extend((event.d1, event.d2))
    if hand.dice_needed(session.ruleset) > 0:
        cycle.say("info", f"{shown}: {dice_prompt(cycle)}")
        return
    _begin_deal(cycle)


def _begin_deal(cycle: CycleState) -> None:
    hand, session = cycle.hand, cycle.session
    assert hand is not None and session is not None and cycle.tiles is not None
    start = hand.decide_deal(session, cycle.tiles, cycle.now)
    cycle.emit(fx.HandBegan(start))
    cycle.enter(Phase.DEALING)
    dice = "+".join(str(d) for d in hand.dice)
    cycle.say(
        "info",
        f"hand {hand.number}: dice {dice}, seat {seat_name(start.dealer)} deals; take your tiles",
    )


def check_deal_when_settled(cycle: CycleState) -> None:
    """Once the HAND zones are quiet and full (or it took too long), check every seat."""
    hand = cycle.hand
    assert hand is not None and cycle.tiles is not None and hand.expected is not None
    quiet = cycle.t - cycle.board.last_change >= cycle.settings.settle_s
    held = cycle.board.count(Zone.HAND) + cycle.board.count(Zone.MELD)
    late = cycle.t - cycle.since >= cycle.settings.deal_timeout_s
    if not quiet or (held < hand.deal_size() and not late):
        return
    mismatches = hand.check_deal(cycle.board)
    texts = tuple(describe_mismatch(m, hand.expected, cycle.tiles) for m in mismatches)
    cycle.deal_checks.append((hand.number, texts))
    for mismatch, text in zip(mismatches, texts, strict=True):
        cycle.incident(mismatch.place, "wrong deal", text)
    cycle.enter(Phase.PLAYING)
    cycle.update_turn()
    if not texts:
        cycle.say("info", f"hand {hand.number}: deal checked, play")


def on_zone(cycle: CycleState, event: ZoneRead) -> None:
    """A zone antenna's read."""
    cycle.board.update(event.seat, event.zone, event.uids, cycle.t)


def on_declare(cycle: CycleState, event: DeclarePressed) -> None:
    """A declare button: judged once the zones have settled."""
    hand = cycle.hand
    if cycle.phase is not Phase.PLAYING or hand is None or event.seat in hand.winners:
        return
    hand.declared.setdefault(event.seat, cycle.t)
    cycle.emit(fx.Sound(Beep.ACK))
    cycle.say("info", f"seat {seat_name(event.seat)} declares a win")


def judge_declarations(cycle: CycleState) -> None:
    """Judge every declaration whose zones have settled; end the hand on its last win."""
    hand, session = cycle.hand, cycle.session
    assert hand is not None and session is not None and cycle.tiles is not None
    settle = cycle.settings.settle_s
    if cycle.t - cycle.board.last_change < settle:
        return
    for place, at in sorted(hand.declared.items(), key=lambda item: item[1]):
        if cycle.t - at < settle:
            continue
        del hand.declared[place]
        verdict = judge(
            session.ruleset, cycle.board, cycle.tiles, place, session.deal, hand.winners
        )
        who = f"seat {seat_name(place)}"
        if verdict.win is None:
            cycle.incident(place, "false declaration", f"{who} declared a win: {verdict.reason}")
            continue
        hand.wins.append(verdict.win)
        hand.payments = [a + b for a, b in zip(hand.payments, verdict.payments, strict=True)]
        cycle.say("info", f"{who} wins: {verdict.win.total} {verdict.win.unit}")
        if len(hand.wins) >= winners_to_end(session.ruleset):
            finish_hand(cycle)
            return


def on_end_hand(cycle: CycleState, event: ev.EndHand) -> None:
    """No (further) winner: settle the draw and end the hand."""
    hand, session = cycle.hand, cycle.session
    if cycle.phase is not Phase.PLAYING or hand is None or session is None:
        return
    assert cycle.tiles is not None
    payments, problem = settle_draw(
        session.ruleset, cycle.board, cycle.tiles, session.deal, hand.winners
    )
    if problem:
        cycle.incident(None, "settlement", problem)
    hand.payments = [a + b for a, b in zip(hand.payments, payments, strict=True)]
    cycle.say("info", f"hand {hand.number} over: {event.reason}")
    finish_hand(cycle)


def finish_hand(cycle: CycleState) -> None:
    """Hand over: the result goes to the outbox (the hand counts as over once it is there)."""
    hand = cycle.hand
    assert hand is not None and hand.start is not None
    cycle.enter(Phase.HAND_OVER)
    cycle.show_turn(None)
    finished = FinishedHand(
        hand.start, tuple(hand.wins), tuple(hand.payments), tuple(hand.incidents), cycle.now
    )
    cycle.emit(fx.RecordHand(finished))
