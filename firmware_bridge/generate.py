"""Generates, from the message table, the firmware's C header and the message reference of
`hardware/protocol.md`; `python -m firmware_bridge.generate [--check]` run from the repo root."""

import argparse
import sys
from pathlib import Path

from firmware_bridge import frame, messages
from firmware_bridge.fields import FieldSpec, MessageSpec, all_specs, snake_name

HEADER_PATH = Path("hardware/mahjong_protocol.h")
DOC_PATH = Path("hardware/protocol.md")
DOC_BEGIN = "<!-- BEGIN GENERATED MESSAGE REFERENCE -->"
DOC_END = "<!-- END GENERATED MESSAGE REFERENCE -->"
_C_TYPES = {"B": "uint8_t", "H": "uint16_t", "I": "uint32_t", "Q": "uint64_t"}
_WIRE_NAMES = {"B": "u8", "H": "u16", "I": "u32", "Q": "u64"}


def c_header() -> str:
    """The full text of `hardware/mahjong_protocol.h`."""
    parts = [_c_preamble(), _c_constants(), _c_enums(), _c_types(), _c_structs(), _C_END]
    return "\n".join(parts)


_C_END = "#endif /* MAHJONG_PROTOCOL_H */\n"


def _c_preamble() -> str:
    return (
        "/* mahjong_protocol.h: the table MCU wire protocol (see hardware/protocol.md).\n"
        " * Generated from firmware_bridge/messages.py by `python -m firmware_bridge.generate`;\n"
        " * do not edit. All multi-byte fields are little-endian (the frame CRC excepted: it goes\n"
        " * most significant byte first); structs are packed. */\n"
        "#ifndef MAHJONG_PROTOCOL_H\n#define MAHJONG_PROTOCOL_H\n\n#include <stdint.h>\n"
    )


def _c_constants() -> str:
    values = {
        "PROTOCOL_VERSION": frame.PROTOCOL_VERSION,
        "TABLE_HASH": f"0x{messages.TABLE_HASH:08x}u",
        "HEADER_SIZE": frame.HEADER_SIZE,
        "CRC_SIZE": frame.CRC_SIZE,
        "CRC_SEED": f"0x{frame.CRC_SEED:04x}u",
        "HANDSHAKE_SEED": f"0x{frame.HANDSHAKE_SEED:04x}u",
        "MAX_PAYLOAD": frame.MAX_PAYLOAD,
        "MAX_FRAME": frame.MAX_FRAME,
        "MAX_ENCODED": frame.MAX_ENCODED,
        "MAX_WINDOW": messages.MAX_WINDOW,
        "HEARTBEAT_INTERVAL_MS": messages.HEARTBEAT_INTERVAL_MS,
        "HEARTBEAT_TIMEOUT_MS": messages.HEARTBEAT_TIMEOUT_MS,
        "MAX_ZONE_UIDS": messages.MAX_ZONE_UIDS,
        "WALL_PAGE_STACKS": messages.WALL_PAGE_STACKS,
        "ZONE_PAGE_UIDS": messages.ZONE_PAGE_UIDS,
        "SEATS": messages.SEATS,
        "SIDES": messages.SIDES,
    }
    lines = [f"#define MJ_{name} {value}" for name, value in values.items()]
    lines += [f"#define MJ_FLAG_{flag.name} 0x{flag.value:02x}" for flag in frame.Flag]
    return "\n".join(lines) + "\n"


def _c_enums() -> str:
    blocks = []
    for enum in messages.ENUMS:
        prefix = "MJ_" + snake_name(enum).upper()
        members = "".join(f"    {prefix}_{m.name} = {m.value},\n" for m in enum)
        blocks.append(f"typedef enum {{\n{members}}} mj_{snake_name(enum)}_t;\n")
    types = "".join(f"    MJ_MSG_{s.name.upper()} = 0x{s.type_id:02x},\n" for s in all_specs())
    blocks.append(f"typedef enum {{\n{types}}} mj_msg_type_t;\n")
    return "\n".join(blocks)


def _c_types() -> str:
    header = (
        "/* The frame header; the payload follows, then the CRC (no length: the frame's end). */\n"
        "typedef struct __attribute__((packed)) {\n    uint8_t flags;\n"
        "    uint8_t seq;\n    uint8_t ack;\n    uint8_t type;\n"
        "} mj_header_t;\n"
    )
    records = {s.repeat.record for s in all_specs() if s.repeat and s.repeat.record}
    blocks = [header]
    for record in sorted(records, key=lambda r: r.__name__):
        assert record is not None
        spec = next(s for s in all_specs() if s.repeat and s.repeat.record is record)
        assert spec.repeat is not None
        blocks.append(_c_struct(f"mj_{snake_name(record)}_t", spec.repeat.fields, ""))
    return "\n".join(blocks)


def _c_structs() -> str:
    return "\n".join(_c_message(spec) for spec in all_specs())


def _c_message(spec: MessageSpec) -> str:
    tail = ""
    if spec.repeat is not None:
        record = spec.repeat.record
        kind = f"mj_{snake_name(record)}_t" if record else _C_TYPES[spec.repeat.fields[0].code]
        tail = f"    {kind} {spec.repeat.name}[]; /* fills the rest of the payload */\n"
    size = f"#define MJ_{spec.name.upper()}_SIZE {spec.fixed.size}\n"
    if not spec.fields and not tail:
        return f"/* {spec.doc} (no payload) */\n" + size
    return f"/* {spec.doc} */\n" + _c_struct(f"mj_{spec.name}_t", spec.fields, tail) + size


def _c_struct(name: str, fields: tuple[FieldSpec, ...], tail: str) -> str:
    body = "".join(f"    {_C_TYPES[f.code]} {f.name};{_c_note(f)}\n" for f in fields)
    return f"typedef struct __attribute__((packed)) {{\n{body}{tail}}} {name};\n"


def _c_note(field: FieldSpec) -> str:
    if field.kind is bool:
        return " /* 0 or 1 */"
    if field.kind is not int:
        return f" /* mj_{snake_name(field.kind)}_t */"
    return ""


def message_reference() -> str:
    """The generated Markdown message reference embedded in `hardware/protocol.md`."""
    lines = [f"Message table hash: `0x{messages.TABLE_HASH:08x}`.", ""]
    for spec in all_specs():
        lines.append(_doc_message(spec))
    lines.append("Enumerations (one byte on the wire):\n")
    for enum in messages.ENUMS:
        members = ", ".join(f"{m.value} `{m.name}`" for m in enum)
        lines.append(f"- `{enum.__name__}`: {members}")
    return "\n".join(lines) + "\n"


def _doc_message(spec: MessageSpec) -> str:
    reply = f" Reply: `{snake_name(spec.reply)}`." if spec.reply else ""
    fields = [f"`{f.name}` {_doc_kind(f)}" for f in spec.fields]
    if spec.repeat is not None:
        items = ", ".join(f"`{f.name}` {_doc_kind(f)}" for f in spec.repeat.fields)
        fields.append(f"`{spec.repeat.name}`: repeated ({items}) to the end of the payload")
    layout = "; ".join(fields) if fields else "empty payload"
    return (
        f"- `0x{spec.type_id:02x}` **{spec.name}** ({spec.sender.value} -> "
        f"{'mcu' if spec.sender.value == 'host' else 'host'}): {spec.doc}{reply}  \n"
        f"  {layout} ({spec.fixed.size} fixed bytes)\n"
    )


def _doc_kind(field: FieldSpec) -> str:
    if field.kind is bool:
        return "u8 (0/1)"
    if field.kind is not int:
        return f"u8 `{field.kind.__name__}`"
    return _WIRE_NAMES[field.code]


def render_doc(current: str) -> str:
    """`current` protocol.md text with its generated section replaced by the current reference."""
    head, _, rest = current.partition(DOC_BEGIN)
    _, _, tail = rest.partition(DOC_END)
    return f"{head}{DOC_BEGIN}\n{message_reference()}{DOC_END}{tail}"


def main(argv: list[str] | None = None) -> int:
    """Write (or with --check, verify) the generated header and doc section."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true", help="fail if a file is out of date")
    args = parser.parse_args(argv)
    stale = []
    for path, text in ((HEADER_PATH, c_header()), (DOC_PATH, render_doc(DOC_PATH.read_text()))):
        old = path.read_text() if path.exists() else ""
        if old != text:
            stale.append(str(path))
            if not args.check:
                path.write_text(text)
    if args.check and stale:
        names = ", ".join(stale)
        sys.stderr.write(f"out of date: {names}; run python -m firmware_bridge.generate\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
