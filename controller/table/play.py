"""Transitions from 'walls raised' to 'hand over': the dice decide the deal, the deal is
checked when the HAND zones settle, then the referee follows play (every settled zone
change, declare press and tick goes to it, and into the hand's black box) until it ends
the hand; its result goes to the outbox."""

from controller.table import effects as fx
from controller.table import inputs as ev
from controller.table.building import dice_prompt
from controller.table.clocks import TIME_INCIDENTS
from controller.table.core import CycleState, InHand, Phase
from controller.table.deal import describe_mismatch
from controller.table.hand import Dealt, InPlay
from controller.table.ports import (
    Beep,
    DeclarePressed,
    DiceRolled,
    Motion,
    Zone,
    ZoneRead,
    ZonesReadAgain,
)
from controller.table.records import FinishedHand, IncidentKind, WinRecord
from controller.table.referee import (
    Declare,
    Elapsed,
    EndNow,
    HandOver,
    IncidentSeen,
    Inventories,
    MoveMade,
    Pause,
    ReadAgain,
    ReadDone,
    ReadsComplete,
    ReadsMissing,
    Referee,
    RefereeInput,
    RefereeResult,
    RefereeSetup,
    Resume,
    Settings,
    TimeCalled,
    WinMade,
    ZoneContent,
)
from controller.table.referee.blackbox import BlackBox, box_name
from controller.table.referee.events import WinEntry
from controller.table.signals import clock_signals
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
    live = cycle.live()
    if cycle.phase is not Phase.DICE or live is None or not live.hand.rolling:
        return
    hand, session = live.hand, live.session
    hand.rolling = False
    shown = f"dice {event.d1}+{event.d2}"
    if session.needs_dealer_roll and not hand.dealer_rolled:
        hand.dealer_rolled = True
        dealer = session.roll_for_dealer((event.d1, event.d2))
        cycle.say("info", f"{shown}: seat {seat_name(dealer)} deals; {dice_prompt(live)}")
        return
    hand.dice.extend((event.d1, event.d2))
    if hand.dice_needed(session.ruleset) > 0:
        cycle.say("info", f"{shown}: {dice_prompt(live)}")
        return
    _begin_deal(cycle, live)


def _begin_deal(cycle: CycleState, live: InHand) -> None:
    hand = live.hand
    start = hand.decide_deal(live.session, live.tiles, cycle.now).start
    cycle.emit(fx.HandBegan(start))
    cycle.enter(Phase.DEALING)
    dice = "+".join(str(d) for d in hand.dice)
    cycle.say(
        "info",
        f"hand {hand.number}: dice {dice}, seat {seat_name(start.dealer)} deals; take your tiles",
    )


def check_deal_when_settled(cycle: CycleState) -> None:
    """Once the HAND zones are quiet and full (or it took too long), check every seat."""
    live = cycle.live()
    dealt = live.hand.dealt if live else None
    if live is None or dealt is None:
        return
    quiet = cycle.t - cycle.board.last_change >= cycle.settings.settle_s
    held = cycle.board.count(Zone.HAND) + cycle.board.count(Zone.MELD)
    late = cycle.t - cycle.since >= cycle.settings.deal_timeout_s
    if not quiet or (held < dealt.deal_size() and not late):
        if quiet and cycle.reread_at != cycle.board.last_change:
            # Quiet but short of the deal: an antenna may have missed a tag. Read again once
            # (a seat really short of tiles reads the same and is told at the deal check).
            cycle.reread_at = cycle.board.last_change
            cycle.emit(fx.ReadZones(cycle.t))
        return
    mismatches = dealt.check(cycle.board)
    texts = tuple(describe_mismatch(m, dealt.expected, live.tiles) for m in mismatches)
    cycle.deal_checks.append((live.hand.number, texts))
    for mismatch, text in zip(mismatches, texts, strict=True):
        cycle.incident(mismatch.place, IncidentKind.WRONG_DEAL, text)
    _start_referee(cycle, live, dealt)
    cycle.enter(Phase.PLAYING)
    cycle.update_turn()
    if not texts:
        cycle.say("info", f"hand {live.hand.number}: deal checked, play")


def _start_referee(cycle: CycleState, live: InHand, dealt: Dealt) -> None:
    hand, session = live.hand, live.session
    shown = cycle.board.snapshot()
    setup = RefereeSetup(
        session.ruleset,
        live.tiles,
        dict(hand.placed),
        tuple(hand.dice),
        session.deal,
        {p: shown[(p, Zone.HAND)] for p in range(4)},
        {p: shown[(p, Zone.MELD)] for p in range(4)},
        Settings(session.ruleset.claim_window_s, cycle.settings.settle_s),
    )
    box = BlackBox.start(setup)
    name = box_name(dealt.start.session, hand.number)
    hand.play = InPlay(Referee(setup), box, name, shown)
    cycle.emit(fx.KeepInput(name, box.lines[0]))
    _tell(cycle, hand.play, Elapsed())  # the clocks start at the deal
    follow(cycle)


def on_zone(cycle: CycleState, event: ZoneRead) -> None:
    """A zone antenna's read."""
    cycle.board.update(event.seat, event.zone, event.uids, cycle.t)


def _in_play(cycle: CycleState) -> InPlay | None:
    """The hand's play, while the table is playing."""
    hand = cycle.hand
    return hand.play if cycle.phase is Phase.PLAYING and hand is not None else None


def follow(cycle: CycleState) -> None:
    """In play: the zones that changed since the referee last saw them, then the time.
    Whether reads may be missing (MCU events lost, the state not yet read again) is told
    before the zones; that they are complete again, after them (the re-read's zones)."""
    in_play = _in_play(cycle)
    if in_play is None:
        return
    since = cycle.reads_missing_since
    if since is not None and since != in_play.referee.reads_missing_since:
        _tell(cycle, in_play, ReadsMissing(since))
    _show_zones(cycle, in_play)
    if since is None and in_play.referee.reads_missing_since is not None:
        _tell(cycle, in_play, ReadsComplete())


def _show_zones(cycle: CycleState, in_play: InPlay) -> None:
    if cycle.board.changes == in_play.shown_at:  # nothing moved: only the time goes on
        _tell(cycle, in_play, Elapsed())
        return
    now = cycle.board.snapshot()
    in_play.shown_at = cycle.board.changes
    shown = in_play.shown  # the board hands out the same set for a zone that did not change
    changed = [
        key for key, uids in now.items() if (was := shown.get(key)) is not uids and was != uids
    ]
    if changed:
        in_play.shown = now
        zones = tuple(ZoneContent(p, z, now[(p, z)]) for p, z in changed)
        _tell(cycle, in_play, Inventories(zones))  # the referee sees the time with it
    else:
        _tell(cycle, in_play, Elapsed())


def on_zones_read_again(cycle: CycleState, event: ZonesReadAgain) -> None:
    """Every zone was read again as the referee asked: it may now take what the reads still
    show out of place as moves out of turn."""
    in_play = _in_play(cycle)
    if in_play is not None:
        follow(cycle)
        _tell(cycle, in_play, ReadDone(event.asked_at))


def on_declare(cycle: CycleState, event: DeclarePressed) -> None:
    """A declare button: the referee judges it when its claim window closes or tiles settle."""
    in_play = _in_play(cycle)
    if in_play is None or event.seat in in_play.referee.winners:
        return
    cycle.emit(fx.Sound(Beep.ACK))
    cycle.say("info", f"seat {seat_name(event.seat)} declares a win")
    _tell(cycle, in_play, Declare(event.seat))


def on_end_hand(cycle: CycleState, event: ev.EndHand) -> None:
    """The venue or a technician ends the hand in play as it stands."""
    in_play = _in_play(cycle)
    if in_play is not None:
        _tell(cycle, in_play, EndNow(event.reason))


def _tell(cycle: CycleState, in_play: InPlay, event: RefereeInput) -> None:
    cycle.emit(fx.KeepInput(in_play.box_name, in_play.blackbox.note(event, cycle.now)))
    for output in in_play.referee.handle(event, cycle.now):
        match output:
            case MoveMade():
                pass
            case IncidentSeen(incident):
                cycle.note_incident(incident, sound=incident.kind not in TIME_INCIDENTS)
            case TimeCalled(events):
                cycle.emit(*clock_signals(events))
            case ReadAgain():
                cycle.emit(fx.ReadZones(cycle.t))
            case WinMade(win):
                who = f"seat {seat_name(win.place)}"
                cycle.say("info", f"{who} wins ({win.win_type.value}): {win.total} {win.unit}")
            case HandOver(result):
                cycle.say("info", f"hand over: {result.reason}")
                live = cycle.live()
                if live is not None:
                    finish_hand(cycle, live, result)
                return
    cycle.update_turn()


def hold_clocks(cycle: CycleState) -> None:
    """A fault stops every clock of the hand in play; play going on again starts them."""
    hand = cycle.hand
    in_play = hand.play if hand is not None else None
    if in_play is None or in_play.referee.over or cycle.phase is Phase.HAND_OVER:
        return
    stopped = cycle.phase is Phase.FAULT
    if stopped != in_play.referee.paused:
        _tell(cycle, in_play, Pause() if stopped else Resume())


def finish_hand(cycle: CycleState, live: InHand, result: RefereeResult | None = None) -> None:
    """Hand over: the result goes to the outbox (the hand counts as over once it is there).

    Without a new result (a fault acknowledged after storing failed) the one kept is stored
    again; a hand ended before the referee took over ends drawn."""
    hand = live.hand
    cycle.enter(Phase.HAND_OVER)
    cycle.show_turn(None)
    if hand.dealt is None:
        return
    if result is not None or hand.finished is None:
        wins = tuple(win_record(w) for w in result.wins) if result else ()
        payments = result.totals if result else (0, 0, 0, 0)
        end = result.ended_at if result else cycle.now
        incidents = tuple(hand.incidents)
        hand.finished = FinishedHand(hand.dealt.start, wins, payments, incidents, end, result)
    cycle.emit(fx.RecordHand(hand.finished))


def win_record(win: WinEntry) -> WinRecord:
    """A referee's win as the hand's record keeps it."""
    return WinRecord(
        win.place,
        win.discarder,
        win.win_tile,
        win.concealed,
        win.melds,
        win.flowers,
        win.patterns,
        win.total,
        win.unit,
        win.score,
        win.win_type,
    )
