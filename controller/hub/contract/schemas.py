"""JSON Schemas of every message type and an AsyncAPI 3 document of the topic tree, generated
from the typed structs into `controller/hub/contract/schemas/` (CI checks they are current)."""

import json
from pathlib import Path
from typing import Any

import msgspec

from controller.hub.contract.envelopes import (
    MESSAGE_TYPES,
    VERSION,
    AckMessage,
    CommandMessage,
    Envelope,
    EventMessage,
    HubStateMessage,
    ReplyMessage,
    ResultMessage,
    StatusMessage,
    schema_name,
)

SCHEMA_DIR = Path(__file__).parent / "schemas"
DIALECT = "https://json-schema.org/draft/2020-12/schema"
# (channel id, address under the root, message type, table's action, retained, what it is)
CHANNELS: tuple[tuple[str, str, type[Envelope], str, bool, str], ...] = (
    ("tableStatus", "tables/{table}/status", StatusMessage, "send", True,
     "Retained table status. The last will has online=false and will=true and was made when "
     "the connection began (connected_at); the recorder notes when it saw it arrive."),
    ("tableEvents", "tables/{table}/events", EventMessage, "send", False,
     "Public play-by-play; never a concealed tile or the wall while a hand is live."),
    ("tableResults", "tables/{table}/results", ResultMessage, "send", False,
     "Signed hand results, re-sent until the hub acks their id."),
    ("tableReplies", "tables/{table}/replies", ReplyMessage, "send", False,
     "The table's answer to each hub command."),
    ("tableCommands", "cmd/{table}", CommandMessage, "receive", False,
     "Signed, expiring, idempotent commands from the hub."),
    ("hubAcks", "hub/ack/{table}", AckMessage, "receive", False,
     "End-to-end acks: result ids the hub has recorded, and those it refuses with the reason "
     "(refusals may come unsigned when the hub has no key for the table; acks never do)."),
    ("hubState", "hub/state", HubStateMessage, "receive", True,
     "The hub's retained state; its last will says offline."),
)  # fmt: skip
SIGNING = (
    "Results, commands and acks carry `sig`: HMAC-SHA256 under the table's key over the "
    "message's JSON without `sig`, keys sorted at every level, no whitespace. A table's "
    "messages carry `outbox`, the random id of its outbox file: `seq` counts within it."
)


def message_schema(kind: type[Envelope]) -> dict[str, Any]:
    """The JSON Schema of one message type."""
    schema = msgspec.json.schema(kind)
    return {"$schema": DIALECT, "title": f"{schema_name(kind)} v{VERSION}", **schema}


def asyncapi() -> dict[str, Any]:
    """The AsyncAPI 3 document of the whole contract, from the table's point of view."""
    _, components = msgspec.json.schema_components(
        MESSAGE_TYPES, ref_template="#/components/schemas/{name}"
    )
    channels: dict[str, Any] = {}
    operations: dict[str, Any] = {}
    messages: dict[str, Any] = {}
    for channel, address, kind, action, retain, summary in CHANNELS:
        name = schema_name(kind)
        messages[name] = {
            "name": name,
            "payload": {"$ref": f"#/components/schemas/{kind.__name__}"},
        }
        channels[channel] = {
            "address": "mahjong/" + address,
            "description": summary,
            "messages": {name: {"$ref": f"#/components/messages/{name}"}},
            **(
                {"parameters": {"table": {"description": "Table id."}}}
                if "{table}" in address
                else {}
            ),
        }
        operations[f"{action}{channel[0].upper()}{channel[1:]}"] = {
            "action": action,
            "channel": {"$ref": f"#/channels/{channel}"},
            "bindings": {"mqtt": {"qos": 1, "retain": retain}},
        }
    return {
        "asyncapi": "3.0.0",
        "info": {
            "title": "mahjong-table hub link",
            "version": str(VERSION),
            "description": "MQTT contract between automatic mahjong tables and the venue hub. "
            "The topic root `mahjong/` is configurable. " + SIGNING,
        },
        "defaultContentType": "application/json",
        "channels": channels,
        "operations": operations,
        "components": {"messages": messages, "schemas": components},
    }


def rendered() -> dict[str, str]:
    """File name -> text of every generated document."""
    files = {f"{schema_name(k)}.schema.json": _text(message_schema(k)) for k in MESSAGE_TYPES}
    files["asyncapi.json"] = _text(asyncapi())
    return files


def _text(document: dict[str, Any]) -> str:
    return json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write(directory: Path = SCHEMA_DIR) -> list[str]:
    """Write every document; returns the names of files that changed."""
    directory.mkdir(parents=True, exist_ok=True)
    changed = stale(directory)
    for name, text in rendered().items():
        if name in changed:
            (directory / name).write_text(text, encoding="utf-8")
    return changed


def stale(directory: Path = SCHEMA_DIR) -> list[str]:
    """Names of documents missing from `directory` or different from what the code says."""
    out = []
    for name, text in rendered().items():
        path = directory / name
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            out.append(name)
    return sorted(out)
