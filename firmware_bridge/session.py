"""The host's side of the link session, pure: sequence numbers, the window, the retransmission
timeout, go-back-N resends, NAKs, and counting the MCU's events to find gaps.

Data in, data out: `send(...)` and `receive(frame, now)` return what happened as outcomes
(frames to write, answers, lost events, a command given up on); `next_deadline()` says when
`on_time(now)` must be called. No I/O, no clock reads, no asyncio; the Link owns the port,
the tasks and the futures (as Klipper's serialhdl owns the port and serialqueue the
sequencing).
"""

import functools
from dataclasses import dataclass
from typing import NamedTuple

from firmware_bridge.frame import Flag, Frame, encode
from firmware_bridge.link_stats import Counters

_EVENT, _RESPONSE = int(Flag.EVENT), int(Flag.RESPONSE)
_NAK, _NEED_SYNC = int(Flag.NAK), int(Flag.NEED_SYNC)
EARLY = 0.0005
"""A timer that fires this little before the deadline counts as on time."""
LATE = 0x80
"""An event number more than this far ahead is taken as one from the past (a late or repeated
frame); a real gap that large is found by the next heartbeat reply's counter."""


@dataclass(frozen=True)
class SessionSettings:
    """The window and the retransmission policy (seconds); the defaults are LinkSettings'."""

    window: int
    min_rto: float
    max_rto: float
    max_tries: int


class Transmit(NamedTuple):
    """Write these bytes again (a resend); a heartbeat's, once."""

    data: bytes


class Answered(NamedTuple):
    """The MCU answered command `seq` with `frame` (exactly once per command).

    `late`: the command was sent again and events came after its first send. The MCU resends
    the reply it kept from the first time it ran the command, so the reply may tell a state
    older than those events (a zone read then would undo the moves they told)."""

    seq: int
    frame: Frame
    late: bool = False


_answered = functools.partial(tuple.__new__, Answered)
"""`Answered(seq, frame, late)` without the named tuple's `__new__` in Python: one comes with
every reply."""


@dataclass(frozen=True, slots=True)
class GaveUp:
    """Command `seq` went unanswered after `tries` sends; the sequence is broken (resync)."""

    seq: int
    tries: int


@dataclass(frozen=True, slots=True)
class EventArrived:
    """An event, in order, each number once."""

    frame: Frame


@dataclass(frozen=True, slots=True)
class EventsLost:
    """`missed` events never arrived (seen by a skipped number or the MCU's counter)."""

    missed: int


@dataclass(frozen=True, slots=True)
class EventRepeated:
    """An event number came again, or after a newer one (it is dropped)."""

    number: int


@dataclass(frozen=True, slots=True)
class McuRestarted:
    """The MCU has no session any more (it rebooted): identify again."""


@dataclass(frozen=True, slots=True)
class Unsequenced:
    """A frame outside the command sequence (a heartbeat reply)."""

    frame: Frame


Outcome = (
    Transmit
    | Answered
    | GaveUp
    | EventArrived
    | EventsLost
    | EventRepeated
    | McuRestarted
    | Unsequenced
)


@dataclass(eq=False, slots=True)
class _Pending:
    data: bytes
    """The command's frame as written (and written again on a resend)."""
    sent_at: float
    events_then: int
    """The MCU events seen when the command was first sent."""
    tries: int = 1
    """Transmissions counted while this command was the oldest unanswered one."""
    resent: bool = False


class HostSession:
    """One host session; `begin(counter)` at each handshake, `drop_all()` when it is lost."""

    def __init__(self, settings: SessionSettings, counters: Counters | None = None) -> None:
        self.settings = settings
        self.counters = counters or Counters()
        self.next_seq = 0
        self.events_seen = 0
        self.up = False
        self._pending: dict[int, _Pending] = {}
        self._srtt: float | None = None
        self._rttvar = 0.0

    # ---- life ----------------------------------------------------------------------------

    def begin(self, event_counter: int) -> None:
        """The handshake succeeded; the MCU's event counter is `event_counter`."""
        self.events_seen = event_counter
        self.up = True

    def drop_all(self) -> list[int]:
        """The session is lost: forget every command in flight; returns their numbers."""
        self.up = False
        seqs = list(self._pending)
        self._pending.clear()
        return seqs

    # ---- sending ---------------------------------------------------------------------------

    @property
    def in_flight(self) -> int:
        """Commands sent and not yet answered."""
        return len(self._pending)

    def window_full(self) -> bool:
        """True while the next number would be `window` or more past the oldest unanswered one
        (so a command whose reply keeps getting lost never falls behind the MCU's reply cache)."""
        if not self._pending:
            return False
        oldest = next(iter(self._pending))
        return (self.next_seq - oldest) & 0xFF >= self.settings.window

    def send(self, kind: int, payload: bytes, now: float, flags: int = 0) -> tuple[int, bytes]:
        """Number a command and return its number and the bytes to write."""
        seq, events = self.next_seq, self.events_seen
        data = encode(kind, payload, seq, events & 0xFF, flags)  # (a FrameError uses no number)
        self.next_seq = (seq + 1) & 0xFF
        self._pending[seq] = _Pending(data, now, events)
        return seq, data

    def unsequenced(self, kind: int, flags: int) -> Transmit:
        """A frame outside the sequence (a heartbeat), acknowledging the events seen."""
        return Transmit(encode(kind, b"", 0, self.events_seen & 0xFF, flags))

    # ---- time ------------------------------------------------------------------------------

    def rto(self, tries: int) -> float:
        """The retransmission timeout after `tries` sends of the oldest command."""
        base = self.settings.min_rto
        if self._srtt is not None:
            base = max(base, self._srtt + 4 * self._rttvar)
        return float(min(self.settings.max_rto, base * 2 ** (tries - 1)))

    def next_deadline(self) -> float | None:
        """When `on_time` must run next (None: nothing in flight)."""
        if not self._pending:
            return None
        oldest = next(iter(self._pending.values()))
        return oldest.sent_at + self.rto(oldest.tries)

    def on_time(self, now: float) -> list[Outcome]:
        """The oldest command's timeout may have passed: resend everything, or give up."""
        deadline = self.next_deadline()
        if deadline is None or now < deadline - EARLY:
            return []
        seq, oldest = next(iter(self._pending.items()))
        if oldest.tries >= self.settings.max_tries:
            self.counters.timeouts += 1
            del self._pending[seq]
            return [GaveUp(seq, oldest.tries)]
        oldest.tries += 1
        return self._resend_all(now)

    def _resend_all(self, now: float) -> list[Outcome]:
        out: list[Outcome] = []
        for pending in self._pending.values():
            pending.resent = True
            pending.sent_at = now
            self.counters.retransmits += 1
            out.append(Transmit(pending.data))
        return out

    # ---- receiving -------------------------------------------------------------------------

    def receive(self, frame: Frame, now: float) -> list[Outcome]:
        """One intact frame from the MCU."""
        if frame.flags & _NEED_SYNC:
            return [McuRestarted()] if self.up else []
        if frame.flags & _RESPONSE:
            return self._response(frame, now)
        if frame.flags & _EVENT:
            return self._event(frame)
        if frame.flags & _NAK:
            return self._nak(frame.ack, now)
        return [Unsequenced(frame)]

    def counter_seen(self, event_counter: int) -> list[Outcome]:
        """The MCU said (heartbeat reply) how many events it has sent: trailing ones lost?"""
        if not self.up or event_counter <= self.events_seen:
            return []
        missed = event_counter - self.events_seen
        self.events_seen = event_counter
        self.counters.event_gaps += 1
        return [EventsLost(missed)]

    def _response(self, frame: Frame, now: float) -> list[Outcome]:
        pending = self._pending.pop(frame.seq, None)
        if pending is None:
            self.counters.duplicate_replies += 1
            return []
        if not pending.resent:  # a sample of the round-trip time (Karn: never a resent one)
            sample = now - pending.sent_at
            self.counters.rtt.append(sample)
            if self._srtt is None:
                self._srtt, self._rttvar = sample, sample / 2
            else:
                self._rttvar = 0.75 * self._rttvar + 0.25 * abs(self._srtt - sample)
                self._srtt = 0.875 * self._srtt + 0.125 * sample
            return [_answered((frame.seq, frame, False))]
        return [Answered(frame.seq, frame, self.events_seen != pending.events_then)]

    def _event(self, frame: Frame) -> list[Outcome]:
        if not self.up:
            return []
        delta = (frame.seq - self.events_seen) & 0xFF
        if delta == 0 or delta > LATE:
            return [EventRepeated(frame.seq)]
        self.events_seen += delta
        out: list[Outcome] = []
        if delta > 1:
            self.counters.event_gaps += 1
            out.append(EventsLost(delta - 1))
        out.append(EventArrived(frame))
        return out

    def _nak(self, ack: int, now: float) -> list[Outcome]:
        if not self._pending:
            return []
        seq, oldest = next(iter(self._pending.items()))
        if seq == ack and now - oldest.sent_at > self.settings.min_rto / 2:
            return self._resend_all(now)
        return []
