"""The control socket's wire in the standard library alone: its version and bounds, what a
request asks for, what a reply line is, and the line codec a `diag` client speaks with (json).

The daemon reads and writes the same lines through `protocol`, whose typed messages are built
on these names; a test holds the two codecs to the same lines. A client loads no decoder
library for a plain request (`diag status` starts quickly); the typed reports are its callers'.
"""

import enum
import json
from typing import Any, NamedTuple

VERSION = 1
MAX_LINE_BYTES = 4096
"""The longest request line the daemon reads; a longer one is refused unread."""
MAX_REPLY_BYTES = 1 << 20
"""The longest reply line a client reads (a status or an audit fits many times)."""


class Op(enum.Enum):
    """What a request asks for."""

    STATUS = "status"
    SELFTEST = "selftest"
    TILES = "tiles"
    ENROLL = "enroll"
    GPIO = "gpio"
    MQTT = "mqtt"
    EVENTS = "events"
    CONFIG = "config"


class Kind(enum.Enum):
    """What a reply line is."""

    PROMPT = "prompt"
    EVENT = "event"
    RESULT = "result"
    ERROR = "error"


class ErrorCode(enum.Enum):
    """Why a request failed, for scripts (the message says it in words)."""

    BAD_REQUEST = "bad_request"
    TOO_LARGE = "too_large"
    TOO_FAST = "too_fast"
    VERSION = "version"
    BUSY = "busy"
    """A hand is in play, or another motor request is running."""
    IDLE = "idle"
    """No whole request line came in time: the connection is closed."""
    UNAVAILABLE = "unavailable"
    """The part asked about is not there (no hub link configured, unknown component)."""
    FAILED = "failed"


class ReplyLine(NamedTuple):
    """One line from the daemon, as a client reads it."""

    kind: Kind
    data: Any
    """prompt: a Prompt's fields; event: an EventLine's; result: the op's report (JSON)."""
    code: ErrorCode | None
    message: str


def plain_request(op: Op) -> bytes:
    """The line asking for `op` with every other field at its default."""
    return _line({"v": VERSION, "op": op.value})


def answer_line(yes: bool) -> bytes:
    """A technician's answer to a prompt."""
    return _line({"v": VERSION, "yes": yes})


def read_reply(line: bytes) -> ReplyLine:
    """A reply line from the daemon; ValueError if it is none (a client trusts its own
    daemon, but a line it cannot read is still said, not a crash)."""
    if len(line) > MAX_REPLY_BYTES:
        raise ValueError(f"a reply line is at most {MAX_REPLY_BYTES} bytes")
    try:
        value = json.loads(line)
    except RecursionError:  # nested deeper than the parser goes
        raise ValueError("a reply nested too deep") from None
    if not isinstance(value, dict) or value.get("v") != VERSION:
        raise ValueError(f"not a reply of protocol version {VERSION}")
    code = value.get("code")
    message = value.get("message", "")
    if not isinstance(message, str):
        raise ValueError("a reply's message is not text")
    return ReplyLine(
        Kind(value.get("kind")),
        value.get("data"),
        None if code is None else ErrorCode(code),
        message,
    )


def _line(value: dict[str, Any]) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode() + b"\n"
