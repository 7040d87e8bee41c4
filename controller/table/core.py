"""The hand cycle's state and the primitives every transition uses: entering a phase, asking
for a movement, saying something, recording an incident, stopping in a fault.

The transitions live beside it (`building`, `play`, `mcu_events`, `cycle`); all of it is
pure: an input and its instant in, effects out.
"""

import enum
from dataclasses import dataclass, field
from typing import Any

from controller.table import effects as fx
from controller.table.effects import Effect
from controller.table.hand import HandState
from controller.table.incidents import IncidentKind, IncidentRecord, Instant
from controller.table.ports import Beep, McuStatusRead, Motion, MotionEnded, StatusPattern
from controller.table.seating import SeatingDraw
from controller.table.session import Session
from controller.table.settings import CycleSettings
from controller.table.tiles import TileMap
from controller.table.zones import ZoneBoard


class Phase(enum.Enum):
    """Where the table is in the hand cycle."""

    IDLE = "idle"
    SEATING = "seating"
    """Before a session's first hand: the players draw wind tiles for their chairs."""
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
    Phase.SEATING: StatusPattern.READY,
    Phase.BUILDING: StatusPattern.BUILDING,
    Phase.WALLS_CHECKED: StatusPattern.BUILDING,
    Phase.HAND_OVER: StatusPattern.BUILDING,
    Phase.WALLS_RAISED: StatusPattern.READY,
    Phase.DICE: StatusPattern.READY,
    Phase.DEALING: StatusPattern.PLAYING,
    Phase.PLAYING: StatusPattern.PLAYING,
    Phase.FAULT: StatusPattern.FAULT,
}
"""The status LED of each phase."""
RESUME = {
    Phase.SEATING: Phase.SEATING,
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
ACK_HINT = "press the dice button to go on"


@dataclass
class FaultState:
    """Why the table stopped, where it picks up again (None: never), what must clear first."""

    reason: str
    resume: Phase | None
    holds: set[str] = field(default_factory=set)
    lost: str = ""
    """The movement a lost MCU link interrupted (a restart of the MCU explains it better)."""


@dataclass(frozen=True)
class InSession:
    """A session is on: its plan and rules, and the tile set the table plays it with."""

    session: Session
    tiles: TileMap
    seating: SeatingDraw = field(default_factory=SeatingDraw)
    """The seating draw, where the session starts with one."""


@dataclass(frozen=True)
class InHand:
    """A hand of the session is on its way (from the build to its stored result)."""

    session: Session
    tiles: TileMap
    hand: HandState


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
    moves: int
    """Moves the referee has followed in this hand (grows with each one)."""
    scores: tuple[int, ...]
    hands_played: int
    paused: bool
    over_reason: str
    penalties: tuple[int, ...] = (0, 0, 0, 0)
    """Penalty points each seat has lost in the hand in play (time and irregularities)."""


class CycleState:
    """The hand cycle's memory and its primitives."""

    def __init__(self, tiles: TileMap | None, settings: CycleSettings | None = None) -> None:
        self.tiles = tiles
        self.settings = settings or CycleSettings()
        self.phase = Phase.IDLE
        self.since = 0.0
        """When the current phase began (monotonic)."""
        self.stage: InSession | InHand | None = None
        """The session and the hand the phase works on (None: no session)."""
        self.fault: FaultState | None = None
        self.board = ZoneBoard(self.settings.absence_s)
        self.mcu_online = False
        self.waiting_since: float | None = None
        self.motions: set[Motion] = set()
        self.resync_pending = False
        """Events from the MCU may be missing: nothing is decided from its state until the
        link has re-read it in full (McuResynced)."""
        self.gaps: list[tuple[int, float, int]] = []
        """Gaps no re-read has made good yet: (number, when seen, events missed), oldest
        first."""
        self.stale_since = 0.0
        self.losses_unsaid = 0
        """Events lost since the log last said so (`mcu_events.LOSSES_SAID_EVERY_S`)."""
        self.losses_said_at = float("-inf")
        self.mcu_status: McuStatusRead | None = None
        """The MCU's status as last re-read."""
        self.failed_motion: tuple[float, MotionEnded] | None = None
        """A movement that failed while the MCU's state was incomplete, with the start of the
        phase it failed in: its cause (a fault whose event was lost) shows in the re-read."""
        self.dice_rolls: int | None = None
        """Rolls the MCU has finished (None until its status was read)."""
        self.roll_base: int | None = None
        """`dice_rolls` when the roll in progress was asked for."""
        self.estop = {"panel": False, "mcu": False}
        self.paused = False
        self.notice = ""
        self.turn: int | None = None
        self.wall_checks: list[tuple[int, tuple[str, ...]]] = []
        """(hand, problems) for every wall checked, in order."""
        self.deal_checks: list[tuple[int, tuple[str, ...]]] = []
        """(hand, mismatches in words) for every deal checked, in order."""
        self.reread_at: float | None = None
        """The zone board's last change when the zones were last asked to be read again."""
        self.wake_at: float | None = None
        """The last wake-up asked for (a clock deadline)."""
        self.now = Instant(0.0, 0.0)
        self.out: list[Effect] = []

    @property
    def session(self) -> Session | None:
        """The session, if one is on."""
        return self.stage.session if self.stage is not None else None

    @property
    def hand(self) -> HandState | None:
        """The hand on its way, if any."""
        return self.stage.hand if isinstance(self.stage, InHand) else None

    def live(self) -> InHand | None:
        """The session and hand a hand's transition works on (None: no hand is on)."""
        return self.stage if isinstance(self.stage, InHand) else None

    @property
    def seating(self) -> SeatingDraw | None:
        """The seating draw, while the session waits for it before its first hand."""
        stage = self.stage
        return stage.seating if isinstance(stage, InSession) else None

    @property
    def rolling(self) -> bool:
        """The dice are rolling (for a hand, or for the seating draw)."""
        hand, seating = self.hand, self.seating
        if hand is not None:
            return hand.rolling
        return seating is not None and seating.rolling

    @property
    def reads_missing_since(self) -> float | None:
        """Since when MCU events may be missing: the oldest loss no re-read has made good
        yet (None: the MCU's state is complete)."""
        if not self.resync_pending:
            return None
        return self.gaps[0][1] if self.gaps else self.stale_since

    @property
    def events_lost(self) -> int:
        """Events lost in the gaps no re-read has made good yet."""
        return sum(missed for _, _, missed in self.gaps)

    @property
    def t(self) -> float:
        """The monotonic time of the input being handled."""
        return self.now.monotonic

    def view(self) -> TableView:
        """The table as people see it now."""
        return TableView(*self.view_fields())

    def view_fields(self) -> tuple[Any, ...]:
        """The fields of `view()`, in TableView's order: comparing these after every input
        is cheaper than building a view each time (the runner builds one when they change)."""
        session, hand, seating = self.session, self.hand, self.seating
        dice = tuple(hand.dice) if hand else tuple(seating.dice) if seating else ()
        phase, fault = self.phase, self.fault
        plan = session.plan if session else None
        return (
            phase,
            PATTERNS[phase],
            fault.reason if fault else None,
            self.notice,
            plan.id if plan else None,
            session.ruleset.name if session else None,
            plan.players if plan else (),
            hand.number if hand else None,
            session.round_wind if session else None,
            session.deal.dealer if session else None,
            dice,
            self.rolling,
            self.turn,
            hand.declared if hand else (),
            hand.winners if hand else (),
            hand.moves if hand else 0,
            tuple(session.scores) if session else (0, 0, 0, 0),
            len(session.history) if session else 0,
            self.paused,
            session.over_reason(self.t) if session else "",
            hand.penalties() if hand else (0, 0, 0, 0),
        )

    def emit(self, *effects: Effect) -> None:
        """Ask for effects, in order."""
        self.out.extend(effects)

    def say(self, level: fx.Level, text: str) -> None:
        """Tell the technician (log and status line)."""
        self.notice = text
        self.emit(fx.Announce(level, text))

    def enter(self, phase: Phase) -> None:
        """Move to `phase` (the status LED follows)."""
        if PATTERNS[phase] is not PATTERNS[self.phase] or phase is Phase.FAULT:
            self.emit(fx.ShowStatus(PATTERNS[phase]))
        self.phase = phase
        self.since = self.t

    def move(self, effect: fx.McuEffect, motion: Motion) -> None:
        """Ask the MCU for a movement and remember it runs."""
        self.motions.add(motion)
        if motion is Motion.DICE:
            self.roll_base = self.dice_rolls
        self.emit(effect)

    def limit(self, seconds: float) -> float:
        """The MCU's own time limit for a movement the daemon allows `seconds`."""
        return seconds + self.settings.motion_margin_s

    def show_turn(self, place: int | None, overtime: bool = False) -> None:
        """Light one seat's LED (None: all off; blinking if `overtime`), if it changed."""
        if place != self.turn:
            self.turn = place
            self.emit(fx.ShowTurn(place, overtime))

    def update_turn(self) -> None:
        """Light the seat the referee says is to act (none outside play), blinking if its
        hand total is already over the limit; ask for a tick when its clock falls due."""
        referee = self.hand.play.referee if self.hand and self.hand.play else None
        if referee is None or self.phase is not Phase.PLAYING:
            self.show_turn(None)
            return
        place = referee.turn
        if place != self.turn:  # the seat's clock only matters for a seat lit anew
            clock = referee.seat_time(place, self.t) if place is not None else None
            self.show_turn(place, clock is not None and clock.overtime)
        # A wake-up still to come that is not later than the deadline stands: at that tick
        # the next one is asked for.
        deadline, wake = referee.next_deadline, self.wake_at
        if deadline is not None and (wake is None or wake <= self.t or deadline < wake):
            self.wake_at = deadline
            self.emit(fx.WakeAt(deadline))

    def incident(self, place: int | None, kind: IncidentKind, detail: str) -> None:
        """Record an irregularity in the hand (it never stops play)."""
        self.note_incident(IncidentRecord(self.now, place, kind, detail))

    def note_incident(self, incident: IncidentRecord, sound: bool = True) -> None:
        """Record an incident the referee made (with its points and tiles); `sound`: the
        warning beep (the clocks' incidents have their own signals)."""
        start = self.hand.start if self.hand else None
        if self.hand is not None:
            self.hand.incidents.append(incident)
        self.emit(fx.NoteIncident(start, incident))
        if sound:
            self.emit(fx.Sound(Beep.WARNING))
        self.say("warning", f"incident: {incident.detail}")

    def stop(self, reason: str, *holds: str, resumable: bool = True) -> None:
        """Stop in a fault: motors stop, the LED shows fault, the buzzer sounds.

        `holds` must clear (e.g. the emergency stop released) before an acknowledgement
        counts; a fault that is not `resumable` needs the daemon restarted.
        """
        if self.fault is not None:
            if holds:
                self.fault.holds.update(holds)
                self.fault.reason = f"{reason} (before that: {self.fault.reason})"
                self.say("error", f"fault: {self.fault.reason}")
            return
        resume = RESUME.get(self.phase, Phase.IDLE) if resumable else None
        self.fault = FaultState(reason, resume, set(holds))
        if self.motions:
            self.emit(fx.StopAll())
        self.enter(Phase.FAULT)
        self.show_turn(None)
        self.emit(fx.Sound(Beep.ALARM))
        self.say("error", f"fault: {reason}")

    def clear_hold(self, hold: str, text: str) -> None:
        """A condition holding the fault has cleared."""
        if self.fault is not None and hold in self.fault.holds:
            self.fault.holds.discard(hold)
            self.say("warning", f"{text}: {ACK_HINT}")
