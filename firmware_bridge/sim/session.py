"""The firmware's side of the link protocol: sequence check, reply cache, NAKs, event counter.

This is what a real MCU implements (see hardware/protocol.md); the simulator runs it as is.
"""

from collections.abc import Callable

from firmware_bridge.errors import MessageError
from firmware_bridge.fields import (
    Command,
    Message,
    Sender,
    all_specs,
    decode_payload,
    encode_payload,
)
from firmware_bridge.frame import Flag, Frame, encode_frame
from firmware_bridge.messages import MAX_WINDOW, LinkAck, Rejected, RejectReason

_EVENT, _RESPONSE, _SYNC = int(Flag.EVENT), int(Flag.RESPONSE), int(Flag.SYNC)
_UNSEQUENCED, _NAK, _NEED_SYNC = int(Flag.UNSEQUENCED), int(Flag.NAK), int(Flag.NEED_SYNC)
REPLY_CACHE = 2 * MAX_WINDOW
"""Replies kept for resending when the host repeats a command it already sent."""

_COMMAND_TYPES = frozenset(spec.type_id for spec in all_specs() if spec.sender is Sender.HOST)
"""A frame of another type is no command (UNKNOWN_COMMAND), whatever its payload."""
Emit = Callable[[bytes, bool], None]
"""Puts frame bytes on the line; the flag says whether they answer a command."""
Execute = Callable[[Command[Message]], Message]


class McuSession:
    """One session of the link as the MCU sees it; `restart()` is what a reboot does."""

    def __init__(self, emit: Emit) -> None:
        self._emit = emit
        self.expected: int | None = None
        self.event_counter = 0
        self._replies: dict[int, bytes] = {}
        self._nak_for: int | None = None

    @property
    def synced(self) -> bool:
        """True once the host has identified since the last restart."""
        return self.expected is not None

    @property
    def ack(self) -> int:
        """The sequence number of the next command the MCU will run."""
        return self.expected or 0

    def restart(self) -> None:
        """Forget the session, as a reboot does."""
        self.expected = None
        self.event_counter = 0
        self._replies.clear()
        self._nak_for = None

    def receive(self, frame: Frame, execute: Execute) -> None:
        """Handle one intact frame from the host."""
        if frame.flags & _UNSEQUENCED:
            self._answer(frame, execute, _UNSEQUENCED, cache=False)
        elif frame.flags & _SYNC:
            self.expected = (frame.seq + 1) & 0xFF
            self._replies.clear()
            self._answer(frame, execute, _RESPONSE, cache=True)
        elif self.expected is None:
            self._bare(_NEED_SYNC)
        else:
            self._sequenced(frame, execute)

    def _sequenced(self, frame: Frame, execute: Execute) -> None:
        assert self.expected is not None
        delta = (frame.seq - self.expected) & 0xFF
        if delta == 0:
            self.expected = (self.expected + 1) & 0xFF
            self._answer(frame, execute, _RESPONSE, cache=True)
        elif delta >= 256 - REPLY_CACHE:
            cached = self._replies.get(frame.seq)
            if cached is not None:
                self._emit(cached, True)
        else:
            self.nak()

    def nak(self) -> None:
        """Ask the host to resend from `expected` (once per expected number)."""
        if self.expected is not None and self._nak_for != self.expected:
            self._nak_for = self.expected
            self._bare(_NAK)

    def send_event(self, message: Message) -> None:
        """Send an event, numbering it with the event counter."""
        self.event_counter += 1
        flags = _EVENT | (0 if self.synced else _NEED_SYNC)
        frame = Frame(
            message.TYPE, encode_payload(message), self.event_counter & 0xFF, self.ack, flags
        )
        self._emit(encode_frame(frame), False)

    def _answer(self, frame: Frame, execute: Execute, flags: int, cache: bool) -> None:
        reply = self._run(frame, execute)
        if not self.synced:
            flags |= _NEED_SYNC
        data = encode_frame(Frame(reply.TYPE, encode_payload(reply), frame.seq, self.ack, flags))
        if cache:
            self._replies[frame.seq] = data
            self._replies.pop((frame.seq - REPLY_CACHE) & 0xFF, None)
        self._emit(data, True)

    def _run(self, frame: Frame, execute: Execute) -> Message:
        try:
            command = decode_payload(frame.type, frame.payload)
        except MessageError:
            known = frame.type in _COMMAND_TYPES
            reason = RejectReason.BAD_ARGUMENT if known else RejectReason.UNKNOWN_COMMAND
            return Rejected(reason, frame.type)
        if not isinstance(command, Command) or command.SENDER is not Sender.HOST:
            return Rejected(RejectReason.UNKNOWN_COMMAND, frame.type)
        return execute(command)

    def _bare(self, flags: int) -> None:
        self._emit(encode_frame(Frame(LinkAck.TYPE, b"", 0, self.ack, flags)), False)
