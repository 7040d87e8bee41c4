"""The pure session core against the firmware's session, with no event loop: a line that loses,
duplicates and reorders frames (drawn by hypothesis), and time that moves only when told.

Every command is answered exactly once (the MCU ran it exactly once and in order) or fails as a
typed outcome; events arrive in order without duplicates, and every event is either delivered
or counted as lost."""

import random
from dataclasses import dataclass, field

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge.errors import FrameError
from firmware_bridge.fields import Command, Message, decode_payload, encode_payload
from firmware_bridge.frame import MAX_PAYLOAD, Flag, Frame, decode_frame
from firmware_bridge.messages import Dice, Identify, IdentifyReply, Ping, Pong, ResetCause
from firmware_bridge.session import (
    Answered,
    EventArrived,
    EventRepeated,
    EventsLost,
    GaveUp,
    HostSession,
    Outcome,
    SessionSettings,
    Transmit,
)
from firmware_bridge.sim.session import McuSession

SETTINGS = SessionSettings(window=4, min_rto=0.025, max_rto=0.2, max_tries=12)


@dataclass
class Line:
    """Frames on their way in both directions, and the MCU at the far end."""

    to_mcu: list[bytes] = field(default_factory=list)
    to_host: list[bytes] = field(default_factory=list)
    ran: list[int] = field(default_factory=list)
    """The ping tokens the MCU ran, in order."""

    def __post_init__(self) -> None:
        self.mcu = McuSession(lambda data, _reply: self.to_host.append(data))

    def execute(self, command: Command[Message]) -> Message:
        if isinstance(command, Ping):
            self.ran.append(command.token)
            return Pong(command.token)
        assert isinstance(command, Identify)
        return IdentifyReply(
            1, 0, 0, 1, 0, 1, 4, 3, 512, 16, ResetCause.POWER_ON, 1, self.mcu.event_counter
        )


def _frame(data: bytes) -> Frame:
    return decode_frame(data.rstrip(b"\0"))


@dataclass
class Tally:
    """What the host saw."""

    answers: dict[int, list[int]] = field(default_factory=dict)
    """seq -> tokens answered (one each, if the core is right)."""
    failed: set[int] = field(default_factory=set)
    events: list[int] = field(default_factory=list)
    lost: int = 0


def _take(host: HostSession, tally: Tally, line: Line, outcomes: list[Outcome]) -> None:
    for outcome in outcomes:
        match outcome:
            case Transmit(data):
                line.to_mcu.append(data)
            case Answered(seq, frame):
                pong = decode_payload(frame.type, frame.payload)
                assert isinstance(pong, Pong)
                tally.answers.setdefault(seq, []).append(pong.token)
            case GaveUp(seq, _):
                tally.failed.add(seq)
                tally.failed.update(host.drop_all())
            case EventArrived():
                tally.events.append(host.events_seen)
            case EventsLost(missed):
                tally.lost += missed
            case EventRepeated():
                pass


def _connect(host: HostSession, line: Line) -> None:
    _, data = host.send(Identify.TYPE, b"", 0.0, int(Flag.SYNC))
    line.mcu.receive(_frame(data), line.execute)
    [reply] = line.to_host
    line.to_host.clear()
    assert isinstance(host.receive(_frame(reply), 0.0)[0], Answered)
    host.begin(line.mcu.event_counter)


@dataclass
class Mischief:
    """The line's faults, drawn by hypothesis: at most `budget` frames lost or overtaken (fewer
    than a command's tries, so every command must get through); repeats are free."""

    rng: random.Random
    budget: int = 8

    def pick(self, wire: list[bytes]) -> list[bytes]:
        """Take one frame off a wire (maybe not the first); lose, repeat or pass it."""
        index = self.rng.randint(0, min(2, len(wire) - 1)) if self.budget else 0
        fate = self.rng.choice(["pass", "pass", "lose", "repeat"])
        self.budget -= index > 0
        frame = wire.pop(index)
        if fate == "lose" and self.budget > 0:
            self.budget -= 1
            return []
        return [frame, frame] if fate == "repeat" else [frame]


@settings(max_examples=300, deadline=None)
@given(st.randoms(use_true_random=True), st.integers(1, 60), st.integers(0, 8))
def test_a_bad_line_runs_each_command_once_in_order_or_fails_it(
    rng: random.Random, commands: int, faults: int
) -> None:
    host, line, tally = HostSession(SETTINGS), Line(), Tally()
    line_faults = Mischief(rng, faults)
    _connect(host, line)
    tokens: dict[int, int] = {}
    now, sent, sent_events = 0.0, 0, 0
    for _ in range(3000):
        while host.up and sent < commands and not host.window_full():
            seq, data = host.send(Ping.TYPE, encode_payload(Ping(sent)), now)
            tokens[seq] = sent
            sent += 1
            line.to_mcu.append(data)
        done = sent == commands or not host.up
        if done and not line.to_mcu and not line.to_host and host.next_deadline() is None:
            break
        action = rng.choice(["mcu", "host", "event"])
        if not line.to_mcu and not line.to_host and action != "event":
            action = "time"  # time passes once nothing is on its way (a round trip is short)
        if action == "mcu" and line.to_mcu:
            for frame in line_faults.pick(line.to_mcu):
                line.mcu.receive(_frame(frame), line.execute)
        elif action == "host" and line.to_host:
            for frame in line_faults.pick(line.to_host):
                _take(host, tally, line, host.receive(_frame(frame), now))
        elif action == "event" and sent_events < 20:
            line.mcu.send_event(Dice(3, 4))
            sent_events += 1
        elif action == "time":
            deadline = host.next_deadline()
            now = max(now, deadline) if deadline is not None else now + 0.5
            _take(host, tally, line, host.on_time(now))
    else:
        raise AssertionError("the conversation never ended")

    failed_tokens = {tokens[seq] for seq in tally.failed}
    answered = tally.answers
    assert all(len(values) == 1 for values in answered.values()), "answered exactly once"
    assert all(values == [tokens[seq]] for seq, values in answered.items())
    assert set(answered).isdisjoint(tally.failed)
    assert len(answered) + len(tally.failed) == sent, "each command answered or failed"
    assert line.ran == sorted(set(line.ran)), "the MCU ran each command once, in order"
    assert {tokens[seq] for seq in answered} <= set(line.ran)
    assert set(line.ran) - failed_tokens == {tokens[seq] for seq in answered}
    assert not tally.failed, "fewer faults than tries: every command gets through"

    if host.up:
        _take(host, tally, line, host.counter_seen(line.mcu.event_counter))
        assert tally.events == sorted(set(tally.events)), "events in order, none twice"
        assert len(tally.events) + tally.lost == sent_events, "every event delivered or lost"


def test_a_skipped_event_number_is_a_gap_and_the_heartbeat_finds_trailing_ones() -> None:
    host, line, tally = HostSession(SETTINGS), Line(), Tally()
    _connect(host, line)
    for _ in range(3):
        line.mcu.send_event(Dice(1, 2))
    first, _, third = line.to_host
    line.to_host.clear()
    for frame in (first, third):
        _take(host, tally, line, host.receive(_frame(frame), 0.0))
    assert (tally.events, tally.lost) == ([1, 3], 1)
    line.mcu.send_event(Dice(5, 6))
    _take(host, tally, line, host.counter_seen(line.mcu.event_counter))
    assert tally.lost == 2


def test_the_window_counts_from_the_oldest_unanswered_command() -> None:
    host, line, tally = HostSession(SETTINGS), Line(), Tally()
    _connect(host, line)
    for token in range(4):
        _, data = host.send(Ping.TYPE, encode_payload(Ping(token)), 0.0)
        line.mcu.receive(_frame(data), line.execute)
    _lost, *answers = line.to_host
    for reply in answers:
        _take(host, tally, line, host.receive(_frame(reply), 0.0))
    assert host.in_flight == 1 and host.window_full(), "the oldest reply is still missing"
    deadline = host.next_deadline()
    assert deadline is not None
    resent = host.on_time(deadline)
    assert [type(outcome) for outcome in resent] == [Transmit]


def test_a_reply_resent_from_the_cache_after_newer_events_is_late() -> None:
    host, line, tally = HostSession(SETTINGS), Line(), Tally()
    _connect(host, line)

    def answer_lost_then_resent(events_meanwhile: int) -> Answered:
        seq, data = host.send(Ping.TYPE, encode_payload(Ping(seq_token := len(line.ran))), 0.0)
        line.mcu.receive(_frame(data), line.execute)
        line.to_host.clear()  # the reply is lost on the line
        for _ in range(events_meanwhile):
            line.mcu.send_event(Dice(1, 2))
        for event in line.to_host:
            _take(host, tally, line, host.receive(_frame(event), 0.0))
        line.to_host.clear()
        deadline = host.next_deadline()
        assert deadline is not None
        for outcome in host.on_time(deadline):
            assert isinstance(outcome, Transmit)
            line.mcu.receive(_frame(outcome.data), line.execute)
        [reply] = line.to_host
        line.to_host.clear()
        [answered] = host.receive(_frame(reply), deadline)
        assert isinstance(answered, Answered) and answered.seq == seq
        assert line.ran[-1] == seq_token and line.ran.count(seq_token) == 1, "run once"
        return answered

    assert answer_lost_then_resent(events_meanwhile=1).late, "the kept reply predates an event"
    assert not answer_lost_then_resent(events_meanwhile=0).late, "no event came meanwhile"


def test_a_frame_that_cannot_be_made_takes_no_sequence_number() -> None:
    # The MCU runs the command numbered next after the last it ran: a number used by a frame
    # never sent would leave every later command waiting for it, resent until given up.
    host, line = HostSession(SETTINGS), Line()
    _connect(host, line)
    with pytest.raises(FrameError):
        host.send(Ping.TYPE, bytes(MAX_PAYLOAD + 1), 0.0)
    _, data = host.send(Ping.TYPE, encode_payload(Ping(5)), 0.0)
    line.mcu.receive(_frame(data), line.execute)
    assert line.to_host, "the MCU took the command as the next one and answered it"
    [answered] = host.receive(_frame(line.to_host[0]), 0.0)
    assert isinstance(answered, Answered) and host.in_flight == 0
