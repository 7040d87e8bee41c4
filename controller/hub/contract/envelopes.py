"""The messages on the wire: one envelope (schema, version, table, boot, seq, id, time) per
payload type, and the single place that turns bytes into typed messages and back.

Every byte from the network is parsed here (`decode`, `parse_json`), once, and bounded as it
is parsed: no payload larger than `MAX_PAYLOAD_BYTES` is read, and the parser refuses an array
or object deeper than `MAX_DEPTH` as it meets it. The JSON value is then checked into the
typed message. Any failure is a `MalformedMessage`."""

import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Annotated, Any, Literal, TypeVar

import msgspec
from msgspec import Meta

from controller.clock import Clock
from controller.errors import UsageError
from controller.hub.contract.field_types import (
    Hex64,
    MessageId,
    OutboxId,
    Positive,
    TableId,
    Text,
    Timestamp,
)
from controller.hub.contract.hub_commands import Action
from controller.hub.contract.result import HandResult
from controller.hub.contract.table_events import Event, LinkCounters, TableStatus
from controller.ids import TABLE_ID_PATTERN

VERSION = 1
MAX_PAYLOAD_BYTES = 256 * 1024
"""Largest payload parsed (a result with every incident field full is under 64 KiB)."""
MAX_DEPTH = 16
"""Deepest nesting of arrays and objects parsed (a result needs 5)."""
MAX_REPLY_DATA = 512 * 1024
"""Most bytes a reply carries (a hand's black box compresses to a few tens of kilobytes)."""
HUB_TABLE = "*"
NO_SIGNATURE = "0" * 64
ReplyCode = Literal[
    "ok",
    "malformed",
    "unsupported",
    "unknown",
    "expired",
    "wrong_table",
    "unauthorised",
    "refused",
    "error",
]
Source = Annotated[
    str,
    Meta(
        pattern=f"^({TABLE_ID_PATTERN}|\\*)$",
        description="The table this message is from or for; '*' for the hub's own state.",
    ),
]


class MalformedMessage(UsageError):
    """Bytes that are not a valid message of the expected type (the text says where)."""


class UnsupportedVersion(MalformedMessage):
    """A message of a newer schema version than this software knows."""


class Envelope(msgspec.Struct, frozen=True, kw_only=True, tag_field="schema"):
    """Header fields every message carries."""

    v: Positive = VERSION
    table: Source
    boot: Positive
    seq: Positive
    id: MessageId
    ts: Timestamp
    outbox: OutboxId | None = None


class StatusMessage(Envelope, frozen=True, kw_only=True, tag="status"):
    """Retained table status; `online` false says the table is gone, `will` true that the broker
    published it as the table's last will (the table may have died at any moment since
    `connected_at`, and the broker says so at most 1.5 x `keepalive_s` after the last packet)."""

    online: bool
    status: TableStatus
    link: LinkCounters
    will: bool = False
    connected_at: Annotated[
        Timestamp | None,
        Meta(description="When the table's connection to the broker began (alive then)."),
    ] = None
    keepalive_s: Annotated[int, Meta(ge=0, description="The table's MQTT keepalive.")] = 0


class EventMessage(Envelope, frozen=True, kw_only=True, tag="event"):
    """One public play-by-play event."""

    event: Event


class ResultMessage(Envelope, frozen=True, kw_only=True, tag="result"):
    """A hand result, HMAC-SHA256-signed under the table's key."""

    result: HandResult
    sig: Hex64 = NO_SIGNATURE


class CommandMessage(Envelope, frozen=True, kw_only=True, tag="command"):
    """A hub command to `table`, signed under that table's key; void after `expires`."""

    expires: Timestamp
    action: Action
    sig: Hex64 = NO_SIGNATURE


class ReplyMessage(Envelope, frozen=True, kw_only=True, tag="reply"):
    """The table's answer to one command (`command` is None when no id could be read)."""

    command: MessageId | None
    ok: bool
    code: ReplyCode
    message: Text = ""
    data: Annotated[bytes, Meta(max_length=MAX_REPLY_DATA)] = b""
    """What the command fetched (a black box: zlib-compressed JSON lines), base64 in JSON."""


class Refusal(msgspec.Struct, frozen=True, kw_only=True):
    """A result the hub will not record, and why."""

    id: MessageId
    reason: Text


class AckMessage(Envelope, frozen=True, kw_only=True, tag="ack"):
    """Result ids the hub has recorded (or refuses), signed under the table's key.

    A table takes neither acks nor refusals that are not signed with its key (logged); a hub
    without the table's key keeps its refusals on record (`mahjong-table hub notices`).
    """

    results: list[MessageId] = []
    refused: list[Refusal] = []
    sig: Hex64 = NO_SIGNATURE


class HubStateMessage(Envelope, frozen=True, kw_only=True, tag="hub_state"):
    """The hub's retained state; its will says offline.

    Signed once per table the hub has a key for (`sigs`: table id -> HMAC-SHA256 under that
    table's key, over the message without `sigs`); a table takes only a state signed for it,
    not older than the last it took (`ts`), or the will announced by the online state it took.
    """

    online: bool
    hub: Text
    will: Annotated[
        MessageId | None,
        Meta(description="Online state: the id of this connection's last will."),
    ] = None
    sigs: dict[TableId, Hex64] = {}


Message = (
    StatusMessage
    | EventMessage
    | ResultMessage
    | CommandMessage
    | ReplyMessage
    | AckMessage
    | HubStateMessage
)
MESSAGE_TYPES: tuple[type[Envelope], ...] = (
    StatusMessage,
    EventMessage,
    ResultMessage,
    CommandMessage,
    ReplyMessage,
    AckMessage,
    HubStateMessage,
)
M = TypeVar("M", bound=Envelope)
_encoder = msgspec.json.Encoder()
_TAGS = frozenset(str(kind.__struct_config__.tag) for kind in MESSAGE_TYPES)


def encode(message: Envelope) -> bytes:
    """The JSON bytes of a message."""
    return _encoder.encode(message)


def _json_within(levels: int) -> Any:
    """The type of JSON values nested at most `levels` deep: msgspec parses into it at C speed
    and refuses an array or object one level deeper the moment it meets it, never recursing
    further, so the parse itself is the depth bound."""
    value: Any = str | int | float | bool | None
    for _ in range(levels):
        value = str | int | float | bool | None | list[value] | dict[str, value]
    return value


QUICK_DEPTH = 8
"""Messages nest less deep than this: their parse is bounded by its type at once. The type has
2**depth nodes, which msgspec builds at import: 8 levels take a millisecond, 16 over a second."""
_json_quick = msgspec.json.Decoder(_json_within(QUICK_DEPTH))
_json_any = msgspec.json.Decoder()


def parse_json(payload: bytes) -> Any:
    """Any JSON value from untrusted bytes, no larger than MAX_PAYLOAD_BYTES and nested no
    deeper than MAX_DEPTH; MalformedMessage if not."""
    if len(payload) > MAX_PAYLOAD_BYTES:
        raise MalformedMessage(f"{len(payload)} bytes is over the {MAX_PAYLOAD_BYTES} allowed")
    try:
        return _json_quick.decode(payload)
    except msgspec.ValidationError:
        pass  # nested deeper than QUICK_DEPTH (or a number out of range): counted below
    except (msgspec.DecodeError, RecursionError) as exc:
        raise MalformedMessage(f"not JSON: {exc}") from exc
    if not _shallow_json(payload):
        raise MalformedMessage(f"nested deeper than {MAX_DEPTH} levels")
    try:
        return _json_any.decode(payload)
    except (msgspec.ValidationError, msgspec.DecodeError, RecursionError) as exc:
        raise MalformedMessage(f"not JSON: {exc}") from exc


_OPEN_CLOSE = bytes.maketrans(b"[{]}", b"(())")
_NOT_BRACKETS = bytes(set(range(256)) - set(b"[]{}"))


def _shallow_json(payload: bytes) -> bool:
    """True when `payload`, read as JSON, nests at most MAX_DEPTH levels (exact for JSON).

    Drop escaped backslashes and quotes, keep what lies between strings (every other piece
    between quotes), keep only its brackets, then strip innermost pairs one level a round."""
    unquoted = payload.replace(b"\\\\", b"").replace(b'\\"', b"").split(b'"')[::2]
    shape = b"".join(unquoted).translate(_OPEN_CLOSE, _NOT_BRACKETS)
    for _ in range(MAX_DEPTH):
        shape = shape.replace(b"()", b"")
        if not shape:
            return True
    return False


def decode(payload: bytes, kind: type[M]) -> M:
    """Parse and validate bytes as a message of `kind`; MalformedMessage says what is wrong."""
    return _converted(parse_json(payload), kind)


def decode_checked(payload: bytes, kind: type[M], check: Callable[[Any], bool]) -> M | None:
    """`decode`, only if `check` (e.g. a signature check) passes on the payload's JSON value
    (None if not). The bytes are parsed once, bounded as they are; raises MalformedMessage as
    `parse_json` before the check and as `decode` after it."""
    raw = parse_json(payload)
    if not check(raw):
        return None
    return _converted(raw, kind)


def _converted(raw: Any, kind: type[M]) -> M:
    """The message of `kind` in a parsed JSON value (its `schema` tag is required)."""
    name = schema_name(kind)
    if not isinstance(raw, dict):
        raise MalformedMessage(f"not a valid {name} message: not a JSON object")
    tag = raw.get("schema")
    if tag != name:
        known = isinstance(tag, str) and tag in _TAGS
        raise MalformedMessage(f"expected a {name} message, got {tag if known else 'none'}")
    try:
        message = msgspec.convert(raw, kind)
    except msgspec.ValidationError as exc:
        raise MalformedMessage(f"not a valid {name} message: {exc}") from exc
    if message.v > VERSION:
        raise UnsupportedVersion(
            f"{name} version {message.v} is newer than this software ({VERSION})"
        )
    return message


def schema_name(kind: type[Envelope]) -> str:
    """The `schema` tag of a message type, e.g. 'result'."""
    return str(kind.__struct_config__.tag)


def peek_id(payload: bytes) -> str | None:
    """The `id` of a payload that may be otherwise invalid, when one can be read."""
    try:
        raw = parse_json(payload)
    except MalformedMessage:
        return None
    found = raw.get("id") if isinstance(raw, dict) else None
    if isinstance(found, str) and len(found) == 32 and all(c in "0123456789abcdef" for c in found):
        return found
    return None


def peek_place(payload: bytes) -> tuple[str, int] | None:
    """(outbox id or '', seq) of a payload that may be otherwise invalid, when they can be read."""
    try:
        raw = parse_json(payload)
    except MalformedMessage:
        return None
    if not isinstance(raw, dict):
        return None
    outbox, seq = raw.get("outbox") or "", raw.get("seq")
    if isinstance(outbox, str) and type(seq) is int and 0 < seq < 2**62:
        return outbox[:32], seq
    return None


def new_header(
    table: str, boot: int, seq: int, clock: Clock, outbox: str | None = None
) -> dict[str, Any]:
    """Envelope fields of a new message: table, boot, seq, a fresh id, the time now and the
    sender's outbox id."""
    ts = datetime.fromtimestamp(clock.wall(), UTC)
    head = {"table": table, "boot": boot, "seq": seq, "id": uuid.uuid4().hex, "ts": ts}
    return head if outbox is None else {**head, "outbox": outbox}
