"""What the host makes of the table's answer to `identify`, pure: the protocol version and the
message table the table speaks, checked before anything else of the answer is read, and a named
fault with the right advice when they are not this daemon's."""

from firmware_bridge.errors import ProtocolMismatch
from firmware_bridge.fields import spec_for
from firmware_bridge.frame import PROTOCOL_VERSION
from firmware_bridge.messages import IdentifyReply

_SPEC = spec_for(IdentifyReply)
VERSION_AT = _SPEC.fields.index(next(f for f in _SPEC.fields if f.name == "protocol_version"))
"""The byte of `identify_reply` that holds the protocol version (its fields before are bytes)."""
assert all(field.code == "B" for field in _SPEC.fields[: VERSION_AT + 1])


def reply_version(payload: bytes) -> int | None:
    """The protocol version an `identify_reply` payload tells (None: too short to tell)."""
    return payload[VERSION_AT] if len(payload) > VERSION_AT else None


def version_mismatch(name: str, version: int) -> ProtocolMismatch | None:
    """The fault when the table speaks protocol `version` (None: it is this daemon's)."""
    if version == PROTOCOL_VERSION:
        return None
    if version < PROTOCOL_VERSION:
        advice = (
            f"update the table's firmware to one speaking protocol {PROTOCOL_VERSION} "
            "(flash the firmware built from this release)"
        )
    else:
        advice = (
            f"update the mahjong-table software on this Pi to a release speaking protocol {version}"
        )
    return ProtocolMismatch(
        f"the {name} speaks protocol version {version}, this daemon {PROTOCOL_VERSION}: {advice}",
        table_version=version,
    )


def identity_mismatch(
    name: str, reply: IdentifyReply, expected_hash: int
) -> ProtocolMismatch | None:
    """The fault when the table's answer is not what this daemon speaks (None: it is)."""
    wrong = version_mismatch(name, reply.protocol_version)
    if wrong is not None or reply.table_hash == expected_hash:
        return wrong
    return ProtocolMismatch(
        f"the {name}'s message table is {reply.table_hash:08x}, this daemon's {expected_hash:08x} "
        f"(both protocol version {PROTOCOL_VERSION}; firmware {reply.firmware_major}."
        f"{reply.firmware_minor}.{reply.firmware_patch}): the firmware and the daemon come from "
        "different releases; flash the firmware built from this release",
        table_version=reply.protocol_version,
    )
