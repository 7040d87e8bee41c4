"""Field encodings of the message table and the per-message codecs compiled from it.

A message is a frozen dataclass whose fields are fixed-size little-endian integers (`U8` ...
`U64`), `bool` or `IntEnum` (one byte), optionally ending with one repeated field
(`tuple[U64, ...]` or a tuple of a record dataclass) that fills the rest of the payload.
"""

import operator
import re
import struct
import typing
from collections.abc import Callable
from dataclasses import dataclass, fields, is_dataclass
from enum import Enum, IntEnum
from typing import Annotated, Any, ClassVar, Generic, TypeVar

from firmware_bridge.errors import MessageError
from firmware_bridge.frame import MAX_PAYLOAD


class Wire:
    """Marks an integer field with its struct code (B, H, I, Q: 1, 2, 4, 8 bytes)."""

    __slots__ = ("code",)

    def __init__(self, code: str) -> None:
        self.code = code


U8 = Annotated[int, Wire("B")]
U16 = Annotated[int, Wire("H")]
U32 = Annotated[int, Wire("I")]
U64 = Annotated[int, Wire("Q")]


class Sender(Enum):
    """Which end of the link sends a message."""

    HOST = "host"
    MCU = "mcu"


class Message:
    """Base of every message of the table protocol."""

    __slots__ = ()
    TYPE: ClassVar[int]
    SENDER: ClassVar[Sender]


ReplyT = TypeVar("ReplyT", bound=Message)


class Command(Message, Generic[ReplyT]):
    """A message the host sends and the MCU answers with one `ReplyT` (or `Rejected`)."""

    __slots__ = ()
    REPLY: ClassVar[type[Message]]


@dataclass(frozen=True)
class FieldSpec:
    """One scalar field: name, struct code and the type its raw integer becomes."""

    name: str
    code: str
    kind: type


@dataclass(frozen=True)
class RepeatSpec:
    """The trailing repeated field: name and the layout of one item."""

    name: str
    item: struct.Struct
    record: type | None
    fields: tuple[FieldSpec, ...]
    converters: tuple[Callable[[int], Any] | None, ...] = ()


@dataclass(frozen=True)
class MessageSpec:
    """Everything the codec, the C header and the table hash need about one message."""

    cls: type[Message]
    type_id: int
    sender: Sender
    name: str
    doc: str
    fields: tuple[FieldSpec, ...]
    fixed: struct.Struct
    repeat: RepeatSpec | None
    reply: type[Message] | None
    getter: Callable[[Any], tuple[Any, ...]]
    converters: tuple[Callable[[int], Any] | None, ...]
    plain: bool
    """Every field is a plain integer: decoded values need no conversion."""


_BY_TYPE: dict[int, MessageSpec] = {}
_BY_CLASS: dict[type[Message], MessageSpec] = {}
MessageT = TypeVar("MessageT", bound=type[Message])


def snake_name(cls: type) -> str:
    """`WallTile` -> `wall_tile`."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", cls.__name__).lower()


def message(type_id: int, sender: Sender) -> Callable[[MessageT], MessageT]:
    """Register a message dataclass in the table under `type_id`."""

    def register(cls: MessageT) -> MessageT:
        if type_id in _BY_TYPE or not 0 < type_id < 256:
            raise ValueError(f"message type 0x{type_id:02x} is taken or out of range")
        cls.TYPE = type_id
        cls.SENDER = sender
        spec = _compile(cls, type_id, sender)
        _BY_TYPE[type_id] = spec
        _BY_CLASS[cls] = spec
        return cls

    return register


def _reply_of(cls: type) -> type[Message] | None:
    for base in getattr(cls, "__orig_bases__", ()):
        if typing.get_origin(base) is Command:
            reply = typing.get_args(base)[0]
            return reply if isinstance(reply, type) else None
    return None


def _compile(cls: type[Message], type_id: int, sender: Sender) -> MessageSpec:
    scalars, repeat = _layout(cls)
    names = [spec.name for spec in scalars] + ([repeat.name] if repeat else [])
    reply = _reply_of(cls)
    if reply is not None:
        cls.REPLY = reply  # type: ignore[attr-defined]
    return MessageSpec(
        cls=cls,
        type_id=type_id,
        sender=sender,
        name=snake_name(cls),
        doc=_first_paragraph(cls.__doc__ or ""),
        fields=scalars,
        fixed=struct.Struct("<" + "".join(spec.code for spec in scalars)),
        repeat=repeat,
        reply=reply,
        getter=_tuple_getter(names),
        converters=tuple(_converter(spec.kind) for spec in scalars),
        plain=all(spec.kind is int for spec in scalars),
    )


def _first_paragraph(doc: str) -> str:
    """A docstring's first paragraph on one line (protocol.md and the C header print it)."""
    paragraph = doc.strip().split("\n\n")[0]
    return " ".join(paragraph.split())


def _tuple_getter(names: list[str]) -> Callable[[Any], tuple[Any, ...]]:
    if not names:
        return lambda _: ()
    if len(names) == 1:
        one = operator.attrgetter(names[0])
        return lambda obj: (one(obj),)
    return operator.attrgetter(*names)


def _layout(cls: type) -> tuple[tuple[FieldSpec, ...], RepeatSpec | None]:
    if not is_dataclass(cls):
        raise TypeError(f"{cls.__name__} must be a dataclass")
    hints = typing.get_type_hints(cls, include_extras=True)
    scalars: list[FieldSpec] = []
    repeat: RepeatSpec | None = None
    for field in fields(cls):
        if repeat is not None:
            raise TypeError(f"{cls.__name__}: the repeated field must be the last one")
        hint = hints[field.name]
        if typing.get_origin(hint) is tuple:
            repeat = _repeat(field.name, typing.get_args(hint)[0])
        else:
            scalars.append(_scalar(field.name, hint))
    return tuple(scalars), repeat


def _scalar(name: str, hint: Any) -> FieldSpec:
    if typing.get_origin(hint) is Annotated:
        base, *meta = typing.get_args(hint)
        wire = next(item for item in meta if isinstance(item, Wire))
        return FieldSpec(name, wire.code, base)
    if hint is bool or (isinstance(hint, type) and issubclass(hint, IntEnum)):
        return FieldSpec(name, "B", hint)
    raise TypeError(f"field {name}: no wire encoding for {hint!r}")


def _repeat(name: str, item: Any) -> RepeatSpec:
    if isinstance(item, type) and is_dataclass(item):
        scalars, nested = _layout(item)
        if nested is not None:
            raise TypeError(f"record {item.__name__} cannot hold a repeated field")
        codes = "".join(spec.code for spec in scalars)
        converters = tuple(_converter(spec.kind) for spec in scalars)
        return RepeatSpec(name, struct.Struct("<" + codes), item, scalars, converters)
    scalar = _scalar(name, item)
    return RepeatSpec(name, struct.Struct("<" + scalar.code), None, (scalar,))


def _converter(kind: type) -> Callable[[int], Any] | None:
    if kind is int:
        return None
    if kind is bool:
        return _strict_bool
    if issubclass(kind, IntEnum):
        return _member_of(kind)
    return kind


def _member_of(kind: type[IntEnum]) -> Callable[[int], Any]:
    """The enum member of a raw value (ValueError for none), by one dict lookup: the enum's
    own call is slow, and every zone inventory carries one."""
    members = {int(member): member for member in kind}

    def member(value: int) -> IntEnum:
        found = members.get(value)
        if found is None:
            raise ValueError(f"{value} is not a valid {kind.__name__}")
        return found

    return member


def _strict_bool(value: int) -> bool:
    if value > 1:
        raise ValueError(f"{value} is not a boolean (0 or 1)")
    return bool(value)


def spec_for(cls: type[Message]) -> MessageSpec:
    """The compiled spec of a message class."""
    return _BY_CLASS[cls]


def spec_for_type(type_id: int) -> MessageSpec:
    """The compiled spec of a message type id; MessageError if the table has no such type."""
    spec = _BY_TYPE.get(type_id)
    if spec is None:
        raise MessageError(f"unknown message type 0x{type_id:02x}")
    return spec


def all_specs() -> list[MessageSpec]:
    """Every registered message, by type id."""
    return [_BY_TYPE[key] for key in sorted(_BY_TYPE)]


def encode_payload(msg: Message) -> bytes:
    """The payload bytes of `msg`; MessageError if a value does not fit its field."""
    spec = _BY_CLASS[type(msg)]
    values = spec.getter(msg)
    try:
        if spec.repeat is None:
            payload = spec.fixed.pack(*values)
        else:
            payload = spec.fixed.pack(*values[:-1]) + _pack_items(spec.repeat, values[-1])
    except struct.error as error:
        raise MessageError(f"{spec.name}: {error}") from None
    if len(payload) > MAX_PAYLOAD:
        raise MessageError(f"{spec.name}: {len(payload)} bytes exceed the {MAX_PAYLOAD} limit")
    return payload


def _pack_items(repeat: RepeatSpec, items: tuple[Any, ...]) -> bytes:
    if repeat.record is None:
        return struct.pack(f"<{len(items)}{repeat.item.format[1:]}", *items)
    getter = _tuple_getter([spec.name for spec in repeat.fields])
    return b"".join(repeat.item.pack(*getter(item)) for item in items)


def decode_payload(type_id: int, payload: bytes) -> Message:
    """The message a frame of type `type_id` carries; MessageError if it does not fit the table."""
    spec = _BY_TYPE.get(type_id) or spec_for_type(type_id)
    size = spec.fixed.size
    if len(payload) < size or (spec.repeat is None and len(payload) != size):
        raise MessageError(f"{spec.name}: payload of {len(payload)} bytes, expected {size}")
    if spec.plain and spec.repeat is None:
        return spec.cls(*spec.fixed.unpack(payload))
    try:
        values = _convert(spec.converters, spec.fixed.unpack_from(payload))
    except ValueError as error:
        raise MessageError(f"{spec.name}: {error}") from None
    if spec.repeat is not None:
        values.append(_unpack_items(spec.name, spec.repeat, payload[size:]))
    return spec.cls(*values)


Converters = tuple[Callable[[int], Any] | None, ...]


def _convert(converters: Converters, raw: tuple[Any, ...]) -> list[Any]:
    pairs = zip(converters, raw, strict=True)
    return [value if conv is None else conv(value) for conv, value in pairs]


def _unpack_items(name: str, repeat: RepeatSpec, data: bytes) -> tuple[Any, ...]:
    count, extra = divmod(len(data), repeat.item.size)
    if extra:
        raise MessageError(f"{name}: {len(data)} bytes is not a whole number of items")
    if repeat.record is None:
        return struct.unpack(f"<{count}{repeat.item.format[1:]}", data)
    converters = repeat.converters
    record = repeat.record
    try:
        return tuple(record(*_convert(converters, raw)) for raw in repeat.item.iter_unpack(data))
    except ValueError as error:
        raise MessageError(f"{name}: {error}") from None
