"""The control socket's wire: one JSON object per line, typed on both ends, versioned. The
version, the bounds and the names of ops, kinds and error codes are `wire`'s (the standard
library's codec a light client speaks); these are the typed messages built on them.

A client sends a `Request` line; the daemon answers with `Reply` lines: any number of `prompt`
(a technician must act; the client answers with an `Answer` line) and `event` lines (a live
tail), then one `result` or `error`. Everything the daemon reads goes through `decode_request`
or `decode_answer`, which bound the size and turn any failure into a `Refusal`.
"""

from typing import Annotated, Any

import msgspec

from controller.diag.wire import MAX_LINE_BYTES, MAX_REPLY_BYTES, VERSION, ErrorCode, Kind, Op

__all__ = [
    "MAX_LINE_BYTES",
    "MAX_REPLY_BYTES",
    "MOVES_MOTORS",
    "VERSION",
    "Answer",
    "ErrorCode",
    "Kind",
    "Name",
    "Op",
    "Refusal",
    "Reply",
    "Request",
    "decode_answer",
    "decode_request",
    "encode",
    "error_reply",
    "name_problem",
    "reply",
]

NAME_PATTERN = r"^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,63}$"
"""A name a client gives (a tile set, a component, an LED): it becomes part of a file name,
so no '/', and no leading '.' (never '..' nor a hidden file)."""
NAME_WORDS = "1 to 64 letters, digits, '_', '.' or '-', not starting with '.'"
Name = Annotated[str, msgspec.Meta(max_length=64, pattern=NAME_PATTERN)]


def name_problem(name: str) -> str:
    """Why `name` is not a name a client may give ('' when it is): the socket's rule."""
    try:
        msgspec.convert(name, Name)
    except msgspec.ValidationError:
        return f"{name!r} is not a name: use {NAME_WORDS}"
    return ""


MOVES_MOTORS = frozenset({Op.SELFTEST, Op.TILES, Op.ENROLL})
"""Requests that run motors: refused while a hand is in play."""


class Request(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One request from a `diag` client."""

    v: int
    op: Op
    component: Name | None = None
    """selftest: only this part; enroll: unused."""
    rolls: Annotated[int, msgspec.Meta(ge=1, le=600)] = 60
    """selftest dice: how many rolls the distribution check uses."""
    name: Name | None = None
    """enroll: the new tile set's name."""
    follow: bool = False
    """events: keep tailing until the client hangs up."""
    blink: Name | None = None
    """gpio: an LED to blink (led_e, status_red, ...)."""


class Answer(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A technician's answer to a prompt: done (or yes), or no."""

    v: int
    yes: bool
    text: Annotated[str, msgspec.Meta(max_length=200)] = ""


class Reply(msgspec.Struct, frozen=True, omit_defaults=True):
    """One line from the daemon."""

    v: int
    kind: Kind
    data: msgspec.Raw = msgspec.Raw(b"null")
    """prompt: a Prompt; event: an EventLine; result: the op's report."""
    code: ErrorCode | None = None
    message: str = ""


class Refusal(msgspec.Struct, frozen=True):
    """Why a line was not taken."""

    code: ErrorCode
    message: str


_requests = msgspec.json.Decoder(Request)
_answers = msgspec.json.Decoder(Answer)
_encoder = msgspec.json.Encoder()


def _decode(line: bytes, decoder: msgspec.json.Decoder[Any]) -> Any:
    if len(line) > MAX_LINE_BYTES:
        return Refusal(ErrorCode.TOO_LARGE, f"a request is at most {MAX_LINE_BYTES} bytes")
    try:
        value = decoder.decode(line)
    except msgspec.ValidationError as error:
        return Refusal(ErrorCode.BAD_REQUEST, f"malformed request: {error}")
    except msgspec.DecodeError as error:
        return Refusal(ErrorCode.BAD_REQUEST, f"not a JSON object: {error}")
    if value.v != VERSION:
        return Refusal(
            ErrorCode.VERSION, f"protocol version {value.v}; this daemon speaks {VERSION}"
        )
    return value


def decode_request(line: bytes) -> Request | Refusal:
    """A request line (without its newline), or why it is refused."""
    value: Request | Refusal = _decode(line, _requests)
    return value


def decode_answer(line: bytes) -> Answer | Refusal:
    """An answer line to a prompt, or why it is refused."""
    value: Answer | Refusal = _decode(line, _answers)
    return value


def encode(value: msgspec.Struct) -> bytes:
    """One line: the JSON object and a newline."""
    return _encoder.encode(value) + b"\n"


def reply(kind: Kind, data: object = None) -> bytes:
    """A reply line carrying `data` (a report struct, a prompt or an event)."""
    return encode(Reply(VERSION, kind, msgspec.Raw(_encoder.encode(data))))


def error_reply(code: ErrorCode, message: str) -> bytes:
    """An error reply line."""
    return encode(Reply(VERSION, Kind.ERROR, code=code, message=message))
