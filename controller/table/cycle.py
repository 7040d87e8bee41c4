"""The hand cycle: a pure state machine from power-on to the end of a session.

idle -> building -> walls checked -> walls raised -> dice -> dealing -> playing -> hand over ->
next hand (or session over); fault(reason) from every state. Data in (an input and the instant
it happened), effects out (movements, lights, sounds, records, words); no clock, no I/O.
"""

import enum
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from controller.table import effects as fx
from controller.table import inputs as ev
from controller.table.deal import describe_mismatch
from controller.table.effects import Effect
from controller.table.geometry import layout_problem
from controller.table.hand import HandState
from controller.table.judge import judge, settle_draw, winners_to_end
from controller.table.ports import (
    Beep,
    DeclarePressed,
    DicePressed,
    DiceRolled,
    EmergencyStop,
    McuFault,
    McuFaultCleared,
    McuFaultKind,
    McuOffline,
    McuOnline,
    McuStatusRead,
    Motion,
    MotionEnded,
    Outcome,
    StatusPattern,
    WallSideRead,
    WallTilePlaced,
    Zone,
    ZoneRead,
)
from controller.table.records import FinishedHand, IncidentRecord, Instant
from controller.table.session import Session
from controller.table.tiles import TileMap, seat_name
from controller.table.zones import ZoneBoard


class Phase(enum.Enum):
    """Where the table is in the hand cycle."""

    IDLE = "idle"
    BUILDING = "building"
    WALLS_CHECKED = "walls_checked"
    WALLS_RAISED = "walls_raised"
    DICE = "dice"
    DEALING = "dealing"
    PLAYING = "playing"
    HAND_OVER = "hand_over"
    SESSION_OVER = "session_over"
    FAULT = "fault"


PATTERNS = {
    Phase.IDLE: StatusPattern.IDLE,
    Phase.SESSION_OVER: StatusPattern.IDLE,
    Phase.BUILDING: StatusPattern.BUILDING,
    Phase.WALLS_CHECKED: StatusPattern.BUILDING,
    Phase.HAND_OVER: StatusPattern.BUILDING,
    Phase.WALLS_RAISED: StatusPattern.READY,
    Phase.DICE: StatusPattern.READY,
    Phase.DEALING: StatusPattern.PLAYING,
    Phase.PLAYING: StatusPattern.PLAYING,
    Phase.FAULT: StatusPattern.FAULT,
}
RESUME = {
    Phase.BUILDING: Phase.BUILDING,
    Phase.WALLS_CHECKED: Phase.BUILDING,
    Phase.WALLS_RAISED: Phase.WALLS_RAISED,
    Phase.DICE: Phase.WALLS_RAISED,
    Phase.DEALING: Phase.DEALING,
    Phase.PLAYING: Phase.PLAYING,
    Phase.HAND_OVER: Phase.HAND_OVER,
    Phase.IDLE: Phase.IDLE,
    Phase.SESSION_OVER: Phase.SESSION_OVER,
}
"""Where a fault acknowledged in a phase picks up again (a lost movement is redone)."""
MOVING = {
    Phase.BUILDING: "build the walls",
    Phase.WALLS_CHECKED: "raise the walls",
    Phase.HAND_OVER: "store the result",
}
ESTOP_TEXT = "the emergency stop is pressed: every motor stopped"
ESTOP_HOLD = "release the emergency stop"
LID_HOLD = "close the lid"
ACK_HINT = "press the dice button to go on"


@dataclass(frozen=True)
class CycleSettings:
    """Timeouts and settling times of the hand cycle (seconds)."""

    build_timeout_s: float = 80.0
    raise_timeout_s: float = 15.0
    dice_timeout_s: float = 10.0
    settle_s: float = 1.5
    """Zone reads unchanged this long count as settled (deal check, declarations)."""
    absence_s: float = 1.0
    """A tag missing from its zone's reads this long counts as gone."""
    deal_timeout_s: float = 300.0
    """Check the deal anyway after this long, even if seats still lack tiles."""
    link_grace_s: float = 10.0
    """How long a session waits for the table MCU before that is a fault."""
    motion_margin_s: float = 5.0
    """The MCU's own limit on a movement is this much longer than the daemon's."""


@dataclass
class FaultState:
    """Why the table stopped, where it picks up again, and what must clear first."""

    reason: str
    resume: Phase | None
    holds: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class TableView:
    """What a technician, the hub and the simulated players can see of the table."""

    phase: Phase
    pattern: StatusPattern
    fault: str | None
    notice: str
    session: str | None
    ruleset: str | None
    players: tuple[str, ...]
    hand: int | None
    round_wind: str | None
    dealer: int | None
    dice: tuple[int, ...]
    rolling: bool
    turn: int | None
    declared: tuple[int, ...]
    winners: tuple[int, ...]
    scores: tuple[int, ...]
    hands_played: int
    paused: bool
    over_reason: str


class HandCycle:
    """The table's hand cycle; feed `handle(input, now)` and carry out the effects returned."""

    def __init__(self, tiles: TileMap | None, settings: CycleSettings | None = None) -> None:
        self.tiles = tiles
        self.settings = settings or CycleSettings()
        self.phase = Phase.IDLE
        self.session: Session | None = None
        self.hand: HandState | None = None
        self.fault: FaultState | None = None
        self.board = ZoneBoard(self.settings.absence_s)
        self.mcu_online = False
        self.motions: set[Motion] = set()
        self.paused = False
        self.notice = ""
        self.wall_checks: list[tuple[int, tuple[str, ...]]] = []
        """(hand, problems) for every wall checked, in order."""
        self.deal_checks: list[tuple[int, tuple[str, ...]]] = []
        """(hand, mismatches in words) for every deal checked, in order."""
        self._estop = {"panel": False, "mcu": False}
        self._since = 0.0
        self._waiting_since: float | None = None
        self._turn: int | None = None
        self._out: list[Effect] = []
        self._now = Instant(0.0, 0.0)

    # ---- the one entry point -------------------------------------------------------------

    def handle(self, event: ev.Input, now: Instant) -> list[Effect]:
        """Take one input at instant `now`; returns the effects to carry out, in order."""
        self._out = []
        self._now = now
        handler = _HANDLERS.get(type(event))
        if handler is not None:
            handler(self, event)
        return self._out

    def view(self) -> TableView:
        """The table as people see it now."""
        session, hand = self.session, self.hand
        return TableView(
            phase=self.phase,
            pattern=PATTERNS[self.phase],
            fault=self.fault.reason if self.fault else None,
            notice=self.notice,
            session=session.plan.id if session else None,
            ruleset=session.ruleset.name if session else None,
            players=session.plan.players if session else (),
            hand=hand.number if hand else None,
            round_wind=session.round_wind if session else None,
            dealer=session.deal.dealer if session else None,
            dice=tuple(hand.dice) if hand else (),
            rolling=hand.rolling if hand else False,
            turn=self._turn,
            declared=tuple(sorted(hand.declared)) if hand else (),
            winners=hand.winners if hand else (),
            scores=tuple(session.scores) if session else (0, 0, 0, 0),
            hands_played=len(session.history) if session else 0,
            paused=self.paused,
            over_reason=session.over_reason(self._now.monotonic) if session else "",
        )

    # ---- small helpers -------------------------------------------------------------------

    @property
    def _t(self) -> float:
        return self._now.monotonic

    def _emit(self, *effects: Effect) -> None:
        self._out.extend(effects)

    def _say(self, level: str, text: str) -> None:
        self.notice = text
        self._emit(fx.Announce(level, text))

    def _enter(self, phase: Phase) -> None:
        if PATTERNS[phase] is not PATTERNS[self.phase] or phase is Phase.FAULT:
            self._emit(fx.ShowStatus(PATTERNS[phase]))
        self.phase = phase
        self._since = self._t

    def _move(self, effect: fx.McuEffect, motion: Motion) -> None:
        self.motions.add(motion)
        self._emit(effect)

    def _limit(self, seconds: float) -> float:
        return seconds + self.settings.motion_margin_s

    def _show_turn(self, place: int | None) -> None:
        if place != self._turn:
            self._turn = place
            self._emit(fx.ShowTurn(place))

    def _incident(self, place: int | None, kind: str, detail: str) -> None:
        incident = IncidentRecord(self._now, place, kind, detail)
        start = self.hand.start if self.hand else None
        if self.hand is not None:
            self.hand.incidents.append(incident)
        self._emit(fx.NoteIncident(start, incident), fx.Sound(Beep.WARNING))
        self._say("warning", f"incident: {detail}")

    # ---- faults --------------------------------------------------------------------------

    def _fault(self, reason: str, resume: Phase | None = None, *holds: str) -> None:
        if self.fault is not None:
            if holds:
                self.fault.holds.update(holds)
                self.fault.reason = f"{reason} (before that: {self.fault.reason})"
                self._say("error", self.fault.reason)
            return
        origin = RESUME.get(self.phase, Phase.IDLE)
        self.fault = FaultState(reason, resume or origin, set(holds))
        if self.motions:
            self._emit(fx.StopAll())
        self._enter(Phase.FAULT)
        self._show_turn(None)
        self._emit(fx.Sound(Beep.ALARM))
        self._say("error", f"fault: {reason}")

    def _fatal(self, reason: str) -> None:
        self._fault(reason)
        assert self.fault is not None
        self.fault.resume = None

    def _acknowledge(self, by: str) -> None:
        fault = self.fault
        if fault is None:
            return
        if fault.holds:
            self._say("warning", f"cannot go on yet: {' and '.join(sorted(fault.holds))} first")
            return
        if fault.resume is None:
            self._say("error", f"{fault.reason}: fix it and restart the daemon")
            return
        self.fault = None
        self._say("info", f"fault acknowledged ({by}): going on")
        self._emit(fx.Sound(Beep.ACK))
        self._resume(fault.resume)

    def _resume(self, phase: Phase) -> None:
        hand = self.hand
        if hand is None or phase in (Phase.IDLE, Phase.SESSION_OVER):
            self._enter(phase)
            self._next_hand()
            return
        if phase is Phase.BUILDING:
            self._start_build(1)
        elif phase is Phase.HAND_OVER:
            self._finish_hand()
        else:
            hand.rolling = False
            if phase is Phase.WALLS_RAISED:
                hand.dice.clear()
            self._enter(phase)
            self._show_turn(None)

    def _on_estop(self, source: str, engaged: bool) -> None:
        self._estop[source] = engaged
        if engaged:
            self._emit(fx.StopAll())
            self._fault(ESTOP_TEXT, None, ESTOP_HOLD)
        elif not any(self._estop.values()) and self.fault is not None:
            self.fault.holds.discard(ESTOP_HOLD)
            self._say("warning", f"emergency stop released: {ACK_HINT}")

    # ---- sessions ------------------------------------------------------------------------

    def _start_session(self, event: ev.StartSession) -> None:
        if self.session is not None and self.phase not in (Phase.IDLE, Phase.SESSION_OVER):
            self._say("warning", f"session {self.session.plan.id} is still in play")
            return
        self.session = Session(event.plan, event.ruleset, self._t)
        self.hand = None
        self._say("info", f"session {event.plan.id} ({event.ruleset.name}) starts")
        problem = layout_problem(event.ruleset.wall)
        if self.tiles is None or problem:
            self._fatal(problem or "no tile-set file is loaded")
            return
        self._next_hand()

    def _next_hand(self) -> None:
        session = self.session
        if session is None or self.fault is not None:
            return
        reason = session.over_reason(self._t)
        if reason:
            self._end_session(reason)
        elif self.paused:
            self._enter(Phase.IDLE)
            self._say("info", "session paused: no new hand starts")
        elif not self.mcu_online:
            self._enter(Phase.IDLE)
            self._waiting_since = self._waiting_since or self._t
            self._say("warning", "waiting for the table MCU")
        else:
            self._waiting_since = None
            self.hand = HandState(session.hand_number)
            self._start_build(1)

    def _end_session(self, reason: str) -> None:
        session = self.session
        assert session is not None
        session.ending = session.ending or reason
        self._move(fx.LowerPlatform(self._limit(self.settings.raise_timeout_s)), Motion.LOWER)
        self._enter(Phase.SESSION_OVER)
        self._show_turn(None)
        scores = ", ".join(
            f"{p} {s:+d}" for p, s in zip(session.plan.players, session.scores, strict=True)
        )
        self._say("info", f"session {session.plan.id} over ({reason}): {scores}")

    def _on_end_session(self, event: ev.EndSession) -> None:
        if self.session is None or self.phase is Phase.SESSION_OVER:
            return
        if self.phase in (Phase.DEALING, Phase.PLAYING, Phase.HAND_OVER):
            self.session.ending = event.reason
            self._say("info", f"the session ends after this hand ({event.reason})")
        else:
            self.fault = None
            self._end_session(event.reason)

    def _on_pause(self, event: ev.PauseSession) -> None:
        self.paused = True
        self._say(
            "info", "paused: no new hand starts" + (f" ({event.reason})" if event.reason else "")
        )

    def _on_resume(self, _: ev.ResumeSession) -> None:
        self.paused = False
        if self.phase is Phase.IDLE:
            self._next_hand()

    # ---- building and checking the wall ---------------------------------------------------

    def _start_build(self, attempt: int) -> None:
        hand, session = self.hand, self.session
        assert hand is not None and session is not None
        hand.new_attempt(attempt)
        if attempt == 1:
            hand.lowered = False
            self.board.clear()
            self._move(fx.LowerPlatform(self._limit(self.settings.raise_timeout_s)), Motion.LOWER)
        ruleset, limit = session.ruleset, self._limit(self.settings.build_timeout_s)
        wall = ruleset.wall
        build = fx.BuildWalls(ruleset.tiles.total, wall.tiles_per_side, wall.layers, limit)
        self._move(build, Motion.BUILD)
        self._enter(Phase.BUILDING)
        self._show_turn(None)
        what = "building the walls" if attempt == 1 else "reshuffling and building again"
        self._say("info", f"hand {hand.number}: {what}")

    def _on_wall_tile(self, event: WallTilePlaced) -> None:
        if self.phase is Phase.BUILDING and self.hand is not None:
            self.hand.placed[(event.side, event.stack, event.layer)] = event.uid

    def _on_side_read(self, event: WallSideRead) -> None:
        if self.phase is Phase.BUILDING and self.hand is not None:
            self.hand.read_side(event.side, event.tiles)

    def _walls_ready(self) -> None:
        hand, session = self.hand, self.session
        assert hand is not None and session is not None and self.tiles is not None
        if not hand.built:
            return
        first_look = hand.verdict is None
        verdict = hand.check(session.ruleset, self.tiles)
        if first_look:
            self.wall_checks.append((hand.number, verdict.problems))
        if not verdict.ok:
            if hand.attempt == 1:
                self._say("warning", f"bad wall ({verdict.summary()}): reshuffling once")
                self._start_build(2)
            else:
                self._fault(f"bad wall after a reshuffle: {verdict.summary()}")
            return
        if hand.lowered:
            self._move(fx.RaiseWalls(self._limit(self.settings.raise_timeout_s)), Motion.RAISE)
            self._enter(Phase.WALLS_CHECKED)
            self._say("info", f"hand {hand.number}: wall checked, raising the walls")

    # ---- movements ending ----------------------------------------------------------------

    def _on_motion_ended(self, event: MotionEnded) -> None:
        self.motions.discard(event.motion)
        if self.phase is Phase.FAULT:
            return
        if event.outcome is not Outcome.DONE:
            if self._expects(event.motion):
                self._fault(f"the table could not {event.motion.value}: it {event.outcome.value}")
            return
        hand = self.hand
        if hand is None:
            return
        if self.phase is Phase.BUILDING and event.motion in (Motion.BUILD, Motion.LOWER):
            hand.built = hand.built or event.motion is Motion.BUILD
            hand.lowered = hand.lowered or event.motion is Motion.LOWER
            self._walls_ready()
        elif self.phase is Phase.WALLS_CHECKED and event.motion is Motion.RAISE:
            self._enter(Phase.WALLS_RAISED)
            self._emit(fx.Sound(Beep.ACK))
            self._say("info", f"hand {hand.number}: walls up, {self._dice_prompt()}")

    def _expects(self, motion: Motion) -> bool:
        wanted = {
            Phase.BUILDING: (Motion.BUILD, Motion.LOWER),
            Phase.WALLS_CHECKED: (Motion.RAISE,),
            Phase.DICE: (Motion.DICE,),
        }
        return motion in wanted.get(self.phase, ())

    def _on_status(self, event: McuStatusRead) -> None:
        hand = self.hand
        if self.phase is Phase.BUILDING and hand and event.walls_built and not hand.built:
            self.motions.discard(Motion.BUILD)
            hand.built = True
            self._walls_ready()

    # ---- dice and the deal ---------------------------------------------------------------

    def _dice_prompt(self) -> str:
        assert self.session is not None and self.hand is not None
        if self.session.needs_dealer_roll and not self.hand.dealer_rolled:
            return "press the dice button to choose the dealer"
        roll = 1 + len(self.hand.dice) // 2
        total = self.session.ruleset.wall.dice_rolls
        return "press the dice button" + (f" (roll {roll} of {total})" if total > 1 else "")

    def _on_dice_pressed(self, _: DicePressed) -> None:
        if self.phase is Phase.FAULT:
            self._acknowledge("dice button")
        elif self.phase in (Phase.WALLS_RAISED, Phase.DICE) and self.hand and not self.hand.rolling:
            self.hand.rolling = True
            self._move(fx.RollDice(self._limit(self.settings.dice_timeout_s)), Motion.DICE)
            self._enter(Phase.DICE)

    def _on_dice(self, event: DiceRolled) -> None:
        hand, session = self.hand, self.session
        if self.phase is not Phase.DICE or not hand or not hand.rolling or not session:
            return
        dice = (event.d1, event.d2)
        hand.rolling = False
        if session.needs_dealer_roll and not hand.dealer_rolled:
            hand.dealer_rolled = True
            dealer = session.roll_for_dealer(dice)
            self._say(
                "info",
                f"dice {dice[0]}+{dice[1]}: seat {seat_name(dealer)} deals; " + self._dice_prompt(),
            )
            return
        hand.dice.extend(dice)
        if hand.dice_needed(session.ruleset) > 0:
            self._say("info", f"dice {dice[0]}+{dice[1]}: {self._dice_prompt()}")
            return
        self._begin_deal()

    def _begin_deal(self) -> None:
        hand, session = self.hand, self.session
        assert hand is not None and session is not None and self.tiles is not None
        start = hand.decide_deal(session, self.tiles, self._now)
        self._emit(fx.HandBegan(start))
        self._enter(Phase.DEALING)
        dice = "+".join(str(d) for d in hand.dice)
        self._say(
            "info",
            f"hand {hand.number}: dice {dice}, seat {seat_name(start.dealer)} "
            "deals; take your tiles",
        )

    def _deal_settled(self) -> None:
        hand = self.hand
        assert hand is not None and self.tiles is not None and hand.expected is not None
        quiet = self._t - self.board.last_change >= self.settings.settle_s
        held = self.board.count(Zone.HAND) + self.board.count(Zone.MELD)
        late = self._t - self._since >= self.settings.deal_timeout_s
        if not quiet or (held < hand.deal_size() and not late):
            return
        mismatches = hand.check_deal(self.board)
        texts = tuple(describe_mismatch(m, hand.expected, self.tiles) for m in mismatches)
        self.deal_checks.append((hand.number, texts))
        for mismatch, text in zip(mismatches, texts, strict=True):
            self._incident(mismatch.place, "wrong deal", text)
        self._enter(Phase.PLAYING)
        self._update_turn()
        if not texts:
            self._say("info", f"hand {hand.number}: deal checked, play")

    # ---- play (until the referee lands: declarations judged from the zones) ---------------

    def _on_zone(self, event: ZoneRead) -> None:
        self.board.update(event.seat, event.zone, event.uids, self._t)
        self._on_time()

    def _update_turn(self) -> None:
        hand = self.hand
        finished = set(hand.winners) if hand else set()
        acting = [
            p
            for p in range(4)
            if p not in finished and len(self.board.tiles(p, Zone.HAND)) % 3 == 2
        ]
        self._show_turn(acting[0] if len(acting) == 1 else None)

    def _on_declare(self, event: DeclarePressed) -> None:
        hand = self.hand
        if self.phase is not Phase.PLAYING or hand is None or event.seat in hand.winners:
            return
        hand.declared.setdefault(event.seat, self._t)
        self._emit(fx.Sound(Beep.ACK))
        self._say("info", f"seat {seat_name(event.seat)} declares a win")
        self._on_time()

    def _judge_declarations(self) -> None:
        hand, session = self.hand, self.session
        assert hand is not None and session is not None and self.tiles is not None
        settled = self._t - self.board.last_change >= self.settings.settle_s
        for place, at in sorted(hand.declared.items(), key=lambda item: item[1]):
            if not settled or self._t - at < self.settings.settle_s:
                continue
            del hand.declared[place]
            verdict = judge(
                session.ruleset, self.board, self.tiles, place, session.deal, hand.winners
            )
            if verdict.win is None:
                self._incident(
                    place,
                    "false declaration",
                    f"seat {seat_name(place)} declared a win: {verdict.reason}",
                )
                continue
            hand.wins.append(verdict.win)
            hand.payments = [a + b for a, b in zip(hand.payments, verdict.payments, strict=True)]
            win = verdict.win
            self._say("info", f"seat {seat_name(place)} wins: {win.total} {win.unit}")
            if len(hand.wins) >= winners_to_end(session.ruleset):
                self._end_hand()
                return

    def _on_end_hand(self, event: ev.EndHand) -> None:
        hand, session = self.hand, self.session
        if self.phase is not Phase.PLAYING or hand is None or session is None:
            return
        assert self.tiles is not None
        payments, problem = settle_draw(
            session.ruleset, self.board, self.tiles, session.deal, hand.winners
        )
        if problem:
            self._incident(None, "settlement", problem)
        hand.payments = [a + b for a, b in zip(hand.payments, payments, strict=True)]
        self._say("info", f"hand {hand.number} over: {event.reason}")
        self._end_hand()

    def _end_hand(self) -> None:
        self._enter(Phase.HAND_OVER)
        self._show_turn(None)
        self._finish_hand()

    def _finish_hand(self) -> None:
        hand = self.hand
        assert hand is not None and hand.start is not None
        self._enter(Phase.HAND_OVER)
        finished = FinishedHand(
            hand.start, tuple(hand.wins), tuple(hand.payments), tuple(hand.incidents), self._now
        )
        self._emit(fx.RecordHand(finished))

    def _on_recorded(self, event: ev.HandRecorded) -> None:
        hand, session = self.hand, self.session
        if self.phase is not Phase.HAND_OVER or hand is None or session is None:
            return
        hand.recorded = True
        session.finish_hand(hand.winners, hand.payments)
        self._say("info", f"hand {hand.number} stored as result {event.result_id}")
        self._next_hand()

    def _on_record_failed(self, event: ev.RecordFailed) -> None:
        number = self.hand.number if self.hand else 0
        self._fault(f"the result of hand {number} could not be stored: {event.reason}")

    # ---- time ----------------------------------------------------------------------------

    def _on_time(self, _: object = None) -> None:
        if self.board.expire(self._t) and self.phase is Phase.PLAYING:
            self._update_turn()
        elapsed = self._t - self._since
        settings = self.settings
        if self.phase is Phase.BUILDING and elapsed > settings.build_timeout_s:
            self._fault(
                f"building the walls took over {settings.build_timeout_s:g} s: "
                "check the shuffler and the stacking head"
            )
        elif self.phase is Phase.WALLS_CHECKED and elapsed > settings.raise_timeout_s:
            self._fault(
                f"the walls did not rise within {settings.raise_timeout_s:g} s: "
                "check the wall lifts"
            )
        elif (
            self.phase is Phase.DICE
            and self.hand
            and self.hand.rolling
            and (elapsed > settings.dice_timeout_s)
        ):
            self._fault(
                f"the dice did not come to rest within {settings.dice_timeout_s:g} s: "
                "check the dice spinner"
            )
        elif self.phase is Phase.DEALING:
            self._deal_settled()
        elif self.phase is Phase.PLAYING:
            self._update_turn()
            self._judge_declarations()
        elif self.phase is Phase.IDLE:
            self._check_waiting()

    def _check_waiting(self) -> None:
        since = self._waiting_since
        if (
            since is not None
            and not self.mcu_online
            and (self._t - since > self.settings.link_grace_s)
        ):
            self._waiting_since = None
            self._fault("no answer from the table MCU: check its USB cable and its power")

    # ---- the MCU and its link ------------------------------------------------------------

    def _on_online(self, event: McuOnline) -> None:
        self.mcu_online = True
        if event.restarted:
            self._on_mcu_restart(event.reset_cause)
        elif event.reconnected:
            self._say("info", "the table MCU link is back")
        if self.phase is Phase.IDLE and self._waiting_since is not None:
            self._next_hand()

    def _on_mcu_restart(self, cause: str) -> None:
        lost = [m for m in self.motions if m is not Motion.LOWER or self.phase is Phase.BUILDING]
        self.motions.clear()
        doing = MOVING.get(self.phase) or (lost[0].value if lost else "")
        if doing and self.phase is not Phase.FAULT:
            self._fault(f"the table MCU restarted ({cause}) while it had to {doing}: {ACK_HINT}")
        elif self.hand is not None and self.phase in (
            Phase.DICE,
            Phase.DEALING,
            Phase.PLAYING,
            Phase.WALLS_RAISED,
        ):
            if self.hand.rolling:
                self.hand.rolling = False
            number = self.hand.number
            self._incident(
                None,
                "table restarted",
                f"the table MCU restarted ({cause}) during hand {number}; the hand goes on",
            )
        else:
            self._say("warning", f"the table MCU restarted ({cause})")

    def _on_offline(self, event: McuOffline) -> None:
        self.mcu_online = False
        if event.final:
            self._fatal(event.reason)
        elif self.phase in MOVING or (self.phase is Phase.DICE and self.hand and self.hand.rolling):
            self._fault(f"lost the link to the table MCU: {event.reason}")
        else:
            self._say("warning", f"the table MCU link is down ({event.reason}); reconnecting")

    def _on_mcu_fault(self, event: McuFault) -> None:
        part = event.part or "a motor"
        kind = event.kind
        if kind is McuFaultKind.ESTOP:
            self._on_estop("mcu", True)
        elif kind is McuFaultKind.LID_OPEN:
            self._emit(fx.StopAll())
            self._fault("the lid is open: every motor stopped", None, LID_HOLD)
        elif kind is McuFaultKind.JAM:
            self._fault(f"the {part} jammed: clear the jam, then {ACK_HINT}")
        elif kind is McuFaultKind.OVERCURRENT:
            self._fault(f"the {part} drew too much current and stopped: check it, then {ACK_HINT}")
        elif kind is McuFaultKind.MOTOR_TIMEOUT:
            self._fault(
                f"the {part} ran past its time limit and stopped: check it, then {ACK_HINT}"
            )
        elif (
            kind is McuFaultKind.READER_ERROR
            and event.antenna == 0
            and (self.phase is Phase.BUILDING)
        ):
            self._fault("the wall reader does not answer: check its cable")
        elif kind is McuFaultKind.HEARTBEAT_LOST and self.motions:
            self._fault("the table MCU stopped its motors: it stopped hearing the daemon")
        else:
            self._say("warning", f"the {event.part or 'table'} reports {kind.value}: check it")

    def _on_mcu_fault_cleared(self, event: McuFaultCleared) -> None:
        if event.kind is McuFaultKind.ESTOP:
            self._on_estop("mcu", False)
        elif event.kind is McuFaultKind.LID_OPEN and self.fault is not None:
            self.fault.holds.discard(LID_HOLD)
            self._say("warning", f"the lid is closed: {ACK_HINT}")

    def _on_command_failed(self, event: ev.CommandFailed) -> None:
        if event.command == "stop every motor":
            self._say("error", f"could not stop every motor: {event.reason}")
        else:
            self._fault(f"could not {event.command}: {event.reason}")


Handler = Callable[[HandCycle, Any], None]
_HANDLERS: dict[type, Handler] = {
    ev.Tick: HandCycle._on_time,
    ev.StartSession: HandCycle._start_session,
    ev.EndSession: HandCycle._on_end_session,
    ev.PauseSession: HandCycle._on_pause,
    ev.ResumeSession: HandCycle._on_resume,
    ev.Acknowledge: lambda cycle, event: cycle._acknowledge(event.by),
    ev.EndHand: HandCycle._on_end_hand,
    ev.CommandFailed: HandCycle._on_command_failed,
    ev.HandRecorded: HandCycle._on_recorded,
    ev.RecordFailed: HandCycle._on_record_failed,
    ev.ServiceFailed: lambda cycle, event: cycle._say(
        "warning", f"{event.service} failed ({event.reason}); restarting it"
    ),
    ev.SetupFailed: lambda cycle, event: cycle._fatal(event.reason),
    DicePressed: HandCycle._on_dice_pressed,
    DeclarePressed: HandCycle._on_declare,
    EmergencyStop: lambda cycle, event: cycle._on_estop("panel", event.engaged),
    WallTilePlaced: HandCycle._on_wall_tile,
    WallSideRead: HandCycle._on_side_read,
    MotionEnded: HandCycle._on_motion_ended,
    DiceRolled: HandCycle._on_dice,
    McuFault: HandCycle._on_mcu_fault,
    McuFaultCleared: HandCycle._on_mcu_fault_cleared,
    ZoneRead: HandCycle._on_zone,
    McuOnline: HandCycle._on_online,
    McuOffline: HandCycle._on_offline,
    McuStatusRead: HandCycle._on_status,
}
"""Which method takes which input (WallSideBuilt needs nothing: MotionEnded ends a build)."""
