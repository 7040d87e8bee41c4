"""The hand cycle: a pure state machine from power-on to the end of a session.

idle -> (seating draw, before a WMC session's first hand) -> building -> walls checked ->
walls raised -> dice -> dealing -> playing -> hand over -> next hand (or session over);
fault(reason) from every state, with timeouts on the injected clock. Data in (an input and
the instant it happened), effects out (movements, lights, sounds, records, words). The
transitions of each stretch live in `seating_phase`, `building`, `play` and `mcu_events`;
this module owns sessions, faults being acknowledged, and time.
"""

from typing import assert_never

from controller.table import building, mcu_events, play, seating_phase
from controller.table import effects as fx
from controller.table import inputs as ev
from controller.table.core import CycleState, InHand, InSession, Phase, TableView
from controller.table.effects import Effect
from controller.table.geometry import layout_problem
from controller.table.hand import HandState
from controller.table.incidents import Instant
from controller.table.ports import (
    Beep,
    DeclarePressed,
    DicePressed,
    DiceRolled,
    EmergencyStop,
    McuEvent,
    McuEventsLost,
    McuFault,
    McuFaultCleared,
    McuOffline,
    McuOnline,
    McuResynced,
    McuStatusRead,
    Motion,
    MotionEnded,
    PanelEvent,
    WallSideBuilt,
    WallSideRead,
    WallTilePlaced,
    ZoneRead,
    ZonesReadAgain,
)
from controller.table.session import Session
from controller.table.settings import CycleSettings

__all__ = ["CycleSettings", "HandCycle", "Phase", "TableView"]

_TIMED = frozenset({Phase.BUILDING, Phase.WALLS_CHECKED, Phase.DICE, Phase.SEATING})
"""The phases with a time limit of their own (`_timed_out`)."""


class HandCycle(CycleState):
    """The table's hand cycle; feed `handle(input, now)` and carry out the effects returned."""

    def handle(self, event: ev.Input, now: Instant) -> list[Effect]:
        """Take one input at instant `now`; returns the effects to carry out, in order."""
        self.out = []
        self.now = now
        self._dispatch(event)
        play.hold_clocks(self)
        return self.out

    def _dispatch(self, event: ev.Input) -> None:
        match event:
            case ev.Tick():
                self.on_time()
            case ZoneRead() | WallTilePlaced():  # the commonest, sent on at once
                self._hardware(event)
            case ev.ZoneReads(reads):
                for read in reads:
                    play.on_zone(self, read)
                self.on_time()
            case ev.WallTilesPlaced(tiles):
                for tile in tiles:
                    building.on_wall_tile(self, tile)
            case ev.StartSession():
                self.start_session(event)
            case ev.EndSession():
                self.on_end_session(event)
            case ev.PauseSession():
                self.on_pause(event)
            case ev.ResumeSession():
                self.on_resume(event)
            case ev.Acknowledge(by):
                self.acknowledge(by)
            case ev.EndHand():
                play.on_end_hand(self, event)
            case ev.CommandFailed():
                mcu_events.on_command_failed(self, event)
            case ev.HandRecorded():
                self.on_recorded(event)
            case ev.RecordFailed():
                self.on_record_failed(event)
            case ev.ServiceFailed(service, reason):
                self.say("warning", f"{service} failed ({reason}); restarting it")
            case ev.SetupFailed(reason):
                self.stop(reason, resumable=False)
            case _:
                self._hardware(event)

    def _hardware(self, event: McuEvent | PanelEvent) -> None:
        match event:  # the commonest first: a hand brings hundreds of zone reads
            case ZoneRead():
                self.on_zone(event)
            case WallTilePlaced():
                building.on_wall_tile(self, event)
            case DicePressed():
                self.on_dice_pressed(event)
            case DeclarePressed():
                self.on_declare(event)
            case EmergencyStop(engaged):
                mcu_events.on_estop(self, "panel", engaged)
            case WallSideRead():
                building.on_side_read(self, event)
            case WallSideBuilt():
                pass  # MotionEnded ends a build
            case MotionEnded():
                building.on_motion_ended(self, event)
            case McuStatusRead():
                building.on_status(self, event)
            case DiceRolled():
                mcu_events.on_dice_rolled(self, event)
            case ZonesReadAgain():
                play.on_zones_read_again(self, event)
            case McuFault():
                mcu_events.on_fault(self, event)
            case McuFaultCleared():
                mcu_events.on_fault_cleared(self, event)
            case McuOnline():
                self.on_online(event)
            case McuOffline():
                mcu_events.on_offline(self, event)
            case McuEventsLost():
                mcu_events.on_events_lost(self, event)
            case McuResynced():
                mcu_events.on_resynced(self, event)
            case _:
                assert_never(event)

    # ---- sessions ------------------------------------------------------------------------

    def start_session(self, event: ev.StartSession) -> None:
        """Start a session and its first hand (unless one is in play)."""
        if self.session is not None and self.phase not in (Phase.IDLE, Phase.SESSION_OVER):
            self.say("warning", f"session {self.session.plan.id} is still in play")
            return
        self.say("info", f"session {event.plan.id} ({event.ruleset.name}) starts")
        problem = layout_problem(event.ruleset.wall)
        if self.tiles is None or problem:
            self.stage = None
            self.stop(problem or "no tile-set file is loaded", resumable=False)
            return
        self.stage = InSession(Session(event.plan, event.ruleset, self.t), self.tiles)
        self.next_hand()

    def next_hand(self) -> None:
        """Start the next hand, or end the session, or wait (paused, no MCU yet)."""
        stage = self.stage
        if stage is None or self.fault is not None:
            return
        session = stage.session
        reason = session.over_reason(self.t)
        if reason:
            self.end_session(reason)
        elif self.paused:
            self.enter(Phase.IDLE)
            self.say("info", "session paused: no new hand starts")
        elif not self.mcu_online:
            self.enter(Phase.IDLE)
            self.waiting_since = self.waiting_since or self.t
            self.say("warning", "waiting for the table MCU")
        elif session.needs_seating and isinstance(stage, InSession):
            self.waiting_since = None
            seating_phase.begin(self, stage)
        else:
            self.waiting_since = None
            live = InHand(session, stage.tiles, HandState(session.hand_number))
            self.stage = live
            building.start_build(self, live, 1)

    def end_session(self, reason: str) -> None:
        """The session is over: clear the table and say the final scores."""
        if self.stage is None:
            return
        session = self.stage.session
        session.ending = session.ending or reason
        self.move(fx.LowerPlatform(self.limit(self.settings.raise_timeout_s)), Motion.LOWER)
        self.enter(Phase.SESSION_OVER)
        self.show_turn(None)
        players = session.plan.players
        scores = ", ".join(f"{p} {s:+d}" for p, s in zip(players, session.scores, strict=True))
        self.say("info", f"session {session.plan.id} over ({reason}): {scores}")

    def on_end_session(self, event: ev.EndSession) -> None:
        """End now, or after the hand that is dealt."""
        if self.session is None or self.phase is Phase.SESSION_OVER:
            return
        if self.phase in (Phase.DEALING, Phase.PLAYING, Phase.HAND_OVER):
            self.session.ending = event.reason
            self.say("info", f"the session ends after this hand ({event.reason})")
        else:
            self.fault = None
            self.end_session(event.reason)

    def on_pause(self, event: ev.PauseSession) -> None:
        """No new hand starts until resumed."""
        self.paused = True
        why = f" ({event.reason})" if event.reason else ""
        self.say("info", f"paused: no new hand starts{why}")

    def on_resume(self, _: ev.ResumeSession) -> None:
        """Hands start again."""
        self.paused = False
        if self.phase is Phase.IDLE:
            self.next_hand()

    def on_recorded(self, event: ev.HandRecorded) -> None:
        """The result is durable: the hand counts as over; rotate and go on."""
        live = self.live()
        if self.phase is not Phase.HAND_OVER or live is None:
            return
        hand, session = live.hand, live.session
        hand.recorded = True
        payments = hand.finished.payments if hand.finished else (0, 0, 0, 0)
        session.finish_hand(hand.winners, payments)
        self.say("info", f"hand {hand.number} stored as result {event.result_id}")
        self.next_hand()

    def on_record_failed(self, event: ev.RecordFailed) -> None:
        """The result could not be stored: stop (acknowledging tries again)."""
        number = self.hand.number if self.hand else 0
        self.stop(f"the result of hand {number} could not be stored: {event.reason}")

    # ---- faults being acknowledged ---------------------------------------------------------

    def on_dice_pressed(self, _: DicePressed) -> None:
        """The dice button rolls, or acknowledges a fault."""
        if self.phase is Phase.FAULT:
            self.acknowledge("dice button")
        elif self.phase is Phase.SEATING:
            seating_phase.press_dice(self)
        else:
            play.press_dice(self)

    def acknowledge(self, by: str) -> None:
        """A technician says the cause is fixed: pick up where the fault struck."""
        fault = self.fault
        if fault is None:
            return
        if fault.holds:
            self.say("warning", f"cannot go on yet: {' and '.join(sorted(fault.holds))} first")
            return
        if fault.resume is None:
            self.say("error", f"{fault.reason}: fix it and restart the daemon")
            return
        self.fault = None
        self.stale_since = self.t  # a state re-read still due gets its full grace again
        self.emit(fx.Sound(Beep.ACK))
        self.say("info", f"fault acknowledged ({by}): going on")
        self._resume(fault.resume)

    def _resume(self, phase: Phase) -> None:
        live = self.live()
        if phase is Phase.SEATING and isinstance(self.stage, InSession):
            seating_phase.begin(self, self.stage)
        elif live is None or phase in (Phase.IDLE, Phase.SESSION_OVER):
            self.enter(phase)
            self.next_hand()
        elif phase is Phase.BUILDING:
            building.start_build(self, live, 1)
        elif phase is Phase.HAND_OVER:
            play.finish_hand(self, live)
        else:
            hand = live.hand
            hand.rolling = False
            if phase is Phase.WALLS_RAISED:
                hand.dice.clear()
            self.enter(phase)
            self.update_turn()

    # ---- time ----------------------------------------------------------------------------

    def on_time(self, _: object = None) -> None:
        """Time passed (a tick or any input): timeouts, settling zones, waiting for the MCU."""
        if self.board.expire(self.t) and self.phase is Phase.PLAYING:
            self.update_turn()
        timeout = mcu_events.stale_too_long(self) if self.resync_pending else self._timed_out()
        if timeout:
            self.stop(timeout)
        elif self.resync_pending and self.phase in mcu_events.WAITING_ON_STATE:
            return
        elif self.phase is Phase.SEATING:
            if seating_phase.check_when_settled(self):
                self.next_hand()
        elif self.phase is Phase.DEALING:
            play.check_deal_when_settled(self)
        elif self.phase is Phase.PLAYING:
            play.follow(self)
        elif self.phase is Phase.IDLE and self._mcu_overdue():
            self.waiting_since = None
            self.stop("no answer from the table MCU: check its USB cable and its power")

    def _mcu_overdue(self) -> bool:
        since = self.waiting_since
        return (
            since is not None
            and not self.mcu_online
            and self.t - since > self.settings.link_grace_s
        )

    def _timed_out(self) -> str:
        if self.phase not in _TIMED:
            return ""
        elapsed, settings = self.t - self.since, self.settings
        if self.phase is Phase.BUILDING and elapsed > settings.build_timeout_s:
            return (
                f"building the walls took over {settings.build_timeout_s:g} s: "
                "check the shuffler and the stacking head"
            )
        if self.phase is Phase.WALLS_CHECKED and elapsed > settings.raise_timeout_s:
            return f"the walls did not rise within {settings.raise_timeout_s:g} s: check the lifts"
        dice_phase = self.phase in (Phase.DICE, Phase.SEATING)
        if dice_phase and self.rolling and elapsed > settings.dice_timeout_s:
            return (
                f"the dice did not come to rest within {settings.dice_timeout_s:g} s: "
                "check the dice spinner"
            )
        return ""

    # ---- inputs that touch several stretches -----------------------------------------------

    def on_zone(self, event: ZoneRead) -> None:
        """A zone read may settle the deal or a declaration."""
        play.on_zone(self, event)
        self.on_time()

    def on_declare(self, event: DeclarePressed) -> None:
        """A declare button."""
        play.on_declare(self, event)
        self.on_time()

    def on_online(self, event: McuOnline) -> None:
        """The MCU link is up (again, or after the MCU restarted)."""
        self.mcu_online = True
        if event.restarted or event.reconnected:
            mcu_events.state_incomplete(self)
        if event.restarted:
            mcu_events.on_restart(self, event.reset_cause)
        elif event.reconnected:
            self.say("info", "the table MCU link is back")
        if self.phase is Phase.IDLE and self.waiting_since is not None:
            self.next_hand()
