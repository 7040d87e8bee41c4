"""HMAC-SHA256 signatures under a table's key, for results, commands, acks and the hub's state.

The signed bytes are the message's JSON without its `sig` (or `sigs`) field, keys sorted at
every level, no whitespace (as msgspec writes it); checking works on the received bytes, so a
hub of a newer version still verifies fields it does not know.
"""

import hashlib
import hmac
from collections.abc import Mapping
from typing import Any, TypeVar

import msgspec

from controller.errors import UsageError
from controller.hub.contract.envelopes import Envelope, decode, decode_checked, encode, parse_json

M = TypeVar("M", bound=Envelope)
_SIGNATURES = ("sig", "sigs")
MIN_KEY_LENGTH = 16


class TableKey:
    """One table's secret, shared by the table and the hub, never written into a log."""

    def __init__(self, secret: str) -> None:
        if len(secret) < MIN_KEY_LENGTH:
            raise UsageError(
                f"a table key needs at least {MIN_KEY_LENGTH} characters "
                "(make one with: openssl rand -hex 32)"
            )
        self._secret = secret.encode("utf-8")

    def __repr__(self) -> str:
        return "TableKey(***)"

    def sign(self, message: M) -> M:
        """A copy of `message` with its `sig` set."""
        fields = msgspec.to_builtins(message)
        return msgspec.structs.replace(message, sig=self._digest(fields))

    def resigned(self, payload: bytes, kind: type[M]) -> bytes:
        """The payload signed under this key (the same bytes when it already is); raises
        MalformedMessage when it is not a valid message of `kind`."""
        if self.verify(payload):
            return payload
        return encode(self.sign(decode(payload, kind)))

    def fingerprint(self) -> int:
        """A number that tells this key from another and nothing about it (the first 7 bytes
        of its signature of a fixed text): what an outbox notes to know its results are
        signed with the key of today."""
        digest = hmac.new(self._secret, b"mahjong-table key fingerprint", hashlib.sha256)
        return int.from_bytes(digest.digest()[:7], "big")

    def verify(self, payload: bytes) -> bool:
        """True when the payload's `sig` is this key's signature of the rest of it."""
        return self._signed(parse_json(payload))

    def verified(self, payload: bytes, kind: type[M]) -> M | None:
        """The message of `kind` in the payload if its `sig` is this key's signature, None if
        it is not; MalformedMessage when it is not JSON, or (signed) not a valid `kind`. The
        payload is bounded and parsed once for both."""
        return decode_checked(payload, kind, self._signed)

    def _signed(self, fields: Any) -> bool:
        if not isinstance(fields, dict) or not isinstance(fields.get("sig"), str):
            return False
        return hmac.compare_digest(fields["sig"], self._digest(fields))

    def verify_among(self, payload: bytes, table: str) -> bool:
        """True when the payload's `sigs[table]` is this key's signature of the rest of it
        (a message signed for many tables, each under its own key: the hub's state)."""
        fields = parse_json(payload)
        sigs = fields.get("sigs") if isinstance(fields, dict) else None
        mine = sigs.get(table) if isinstance(sigs, dict) else None
        if not isinstance(mine, str):
            return False
        return hmac.compare_digest(mine, self._digest(fields))

    def _digest(self, fields: dict[str, Any]) -> str:
        unsigned = dict(fields)
        for name in _SIGNATURES:
            unsigned.pop(name, None)
        canonical = msgspec.json.encode(unsigned, order="sorted")
        return hmac.new(self._secret, canonical, hashlib.sha256).hexdigest()


def sign_for_tables(message: M, keys: Mapping[str, TableKey]) -> M:
    """A copy of `message` with `sigs` set: one signature per table, each under its own key."""
    fields = msgspec.to_builtins(message)
    sigs = {table: key._digest(fields) for table, key in sorted(keys.items())}
    return msgspec.structs.replace(message, sigs=sigs)
