"""HMAC-SHA256 signatures under a table's key, for results, commands and acks.

The signed bytes are the message's JSON without its `sig` field, keys sorted at every level,
no whitespace (as msgspec writes it); checking works on the received bytes, so a hub of a
newer version still verifies fields it does not know.
"""

import hashlib
import hmac
from typing import Any, TypeVar

import msgspec

from controller.errors import UsageError
from controller.hub.contract.envelopes import Envelope, decode, encode, parse_json

M = TypeVar("M", bound=Envelope)
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

    def verify(self, payload: bytes) -> bool:
        """True when the payload's `sig` is this key's signature of the rest of it."""
        fields = parse_json(payload)
        if not isinstance(fields, dict) or not isinstance(fields.get("sig"), str):
            return False
        return hmac.compare_digest(fields["sig"], self._digest(fields))

    def _digest(self, fields: dict[str, Any]) -> str:
        unsigned = {k: v for k, v in fields.items() if k != "sig"}
        canonical = msgspec.json.encode(unsigned, order="sorted")
        return hmac.new(self._secret, canonical, hashlib.sha256).hexdigest()
