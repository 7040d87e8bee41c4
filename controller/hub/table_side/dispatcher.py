"""Hub commands on the table: validate, authenticate, check expiry, run once, answer.

Anything malformed, of a newer version, for another table, unsigned or badly signed, expired
or unknown gets an error answer and changes nothing; the dispatcher never raises on input.
A command id that was answered before gets the same answer again without running twice.
"""

import logging
from dataclasses import dataclass
from typing import Protocol

import msgspec

from controller.clock import Clock
from controller.errors import TableError
from controller.hub.contract.envelopes import (
    CommandMessage,
    MalformedMessage,
    ReplyCode,
    UnsupportedVersion,
    decode,
    parse_json,
    peek_id,
)
from controller.hub.contract.hub_commands import (
    ACTIONS,
    Action,
    EndSession,
    FetchBlackBox,
    PauseSession,
    ReportStatus,
    ResendResults,
    ResumeSession,
    StartSession,
)
from controller.hub.contract.signing import TableKey
from controller.hub.contract.table_events import TableStatus
from controller.hub.table_side.outbox import Outbox, OutboxCannotStore

_log = logging.getLogger(__name__)
MAX_LIFETIME_S = 24 * 3600.0
_ACTION_TAGS = frozenset(str(a.__struct_config__.tag) for a in ACTIONS)


class CommandRefused(TableError):
    """The table cannot do what was asked right now; the text says why in plain words."""


class TableControl(Protocol):
    """What the session layer does when the hub asks; raise CommandRefused to say no."""

    async def start_session(self, order: StartSession) -> None:
        """Start a session with these players, ruleset and length."""
        ...

    async def pause_session(self, reason: str) -> None:
        """Pause the live session."""
        ...

    async def resume_session(self) -> None:
        """Resume the paused session."""
        ...

    async def end_session(self, reason: str) -> None:
        """End the live session."""
        ...

    def status(self) -> TableStatus:
        """The table's status right now."""
        ...

    async def black_box(self, hand: int, session: str | None) -> tuple[str, bytes]:
        """One hand's black box: its name and its file zlib-compressed."""
        ...


class LinkActions(Protocol):
    """What the hub link itself does for a command."""

    async def resend(self, since: int, until: int | None) -> str:
        """Queue results in [since, until] again; returns a sentence for the reply."""
        ...

    def report_status(self, status: TableStatus) -> None:
        """Publish this status now."""
        ...


@dataclass(frozen=True)
class Answer:
    """What the table says back to one command."""

    command: str | None
    code: ReplyCode
    message: str = ""
    data: bytes = b""
    """What the command fetched (FetchBlackBox)."""

    @property
    def ok(self) -> bool:
        """True when the command was carried out."""
        return self.code == "ok"


class _Stored(msgspec.Struct):
    code: ReplyCode
    message: str
    data: bytes = b""


class CommandDispatcher:
    """Turns command payloads into actions on the table and answers."""

    def __init__(
        self,
        table: str,
        key: TableKey,
        control: TableControl,
        link: LinkActions,
        outbox: Outbox,
        clock: Clock,
    ) -> None:
        self.table = table
        self.key = key
        self.control = control
        self.link = link
        self.outbox = outbox
        self.clock = clock

    async def handle(self, payload: bytes) -> Answer:
        """Check and carry out one command; always returns an answer, never raises on input."""
        command_id = peek_id(payload)
        try:
            command = self._accept(payload)
        except _Rejected as rejected:
            return Answer(command_id, rejected.code, rejected.message)
        try:
            earlier = await self.outbox.recall_reply(command.id)
        except OutboxCannotStore as exc:  # not run: it might have run before
            return Answer(command.id, "error", str(exc))
        if earlier is not None:
            stored = msgspec.json.decode(earlier, type=_Stored)
            return Answer(command.id, stored.code, stored.message, stored.data)
        answer = await self._run(command)
        expires = command.expires.timestamp()
        try:
            await self.outbox.remember_reply(
                command.id,
                msgspec.json.encode(_Stored(answer.code, answer.message, answer.data)),
                expires,
            )
        except OutboxCannotStore as exc:  # done all the same; a repeat may run it again
            _log.error("the reply to command %s was not stored: %s", command.id, exc)
        self.outbox.forget_replies(self.clock.wall())
        return answer

    def _accept(self, payload: bytes) -> CommandMessage:
        command = _decode(payload)
        if command.table != self.table:
            raise _Rejected("wrong_table", f"this is table {self.table}, not {command.table}")
        if not self.key.verify(payload):
            raise _Rejected("unauthorised", "the command is not signed with this table's key")
        now = self.clock.wall()
        if command.expires.timestamp() <= now:
            raise _Rejected("expired", f"the command expired at {command.expires.isoformat()}")
        if command.expires.timestamp() > now + MAX_LIFETIME_S:
            raise _Rejected("malformed", "the command's expiry is more than a day away")
        return command

    async def _run(self, command: CommandMessage) -> Answer:
        data = b""
        try:
            if isinstance(command.action, FetchBlackBox):
                fetch = command.action
                name, data = await self.control.black_box(fetch.hand, fetch.session)
                message = f"black box {name} ({len(data)} bytes compressed)"
            else:
                message = await self._carry_out(command.action)
        except CommandRefused as exc:
            return Answer(command.id, "refused", str(exc))
        except Exception as exc:
            _log.exception("command %s (%s) failed", command.id, type(command.action).__name__)
            return Answer(command.id, "error", f"the table failed: {type(exc).__name__}: {exc}")
        return Answer(command.id, "ok", message, data)

    async def _carry_out(self, action: Action) -> str:
        match action:
            case StartSession():
                await self.control.start_session(action)
                return f"session {action.session} started"
            case PauseSession():
                await self.control.pause_session(action.reason)
                return "session paused"
            case ResumeSession():
                await self.control.resume_session()
                return "session resumed"
            case EndSession():
                await self.control.end_session(action.reason)
                return "session ended"
            case ReportStatus():
                self.link.report_status(self.control.status())
                return "status published"
            case ResendResults():
                return await self.link.resend(action.since_seq, action.until_seq)
            case FetchBlackBox():
                raise AssertionError("answered in _run (it carries data)")


class _Rejected(Exception):
    def __init__(self, code: ReplyCode, message: str) -> None:
        super().__init__(message)
        self.code: ReplyCode = code
        self.message = message


def _decode(payload: bytes) -> CommandMessage:
    try:
        return decode(payload, CommandMessage)
    except UnsupportedVersion as exc:
        raise _Rejected("unsupported", str(exc)) from exc
    except MalformedMessage as exc:
        unknown = _unknown_action(payload)
        if unknown is not None:
            raise _Rejected("unknown", f"unknown action {unknown!r}") from exc
        raise _Rejected("malformed", str(exc)) from exc


def _unknown_action(payload: bytes) -> str | None:
    try:
        raw = parse_json(payload)
    except MalformedMessage:
        return None
    action = raw.get("action") if isinstance(raw, dict) else None
    kind = action.get("type") if isinstance(action, dict) else None
    return kind if isinstance(kind, str) and kind not in _ACTION_TAGS else None
