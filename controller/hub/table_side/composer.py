"""The messages a table sends, built in one place: the envelope (table, boot, seq, outbox id,
time), results signed with the table's key, statuses carrying the link's health, replies."""

import logging
from collections.abc import Callable
from datetime import datetime
from typing import Any

import msgspec

from controller.clock import Clock
from controller.hub.contract.envelopes import (
    EventMessage,
    MalformedMessage,
    ReplyMessage,
    ResultMessage,
    StatusMessage,
    encode,
    new_header,
)
from controller.hub.contract.result import HandResult
from controller.hub.contract.signing import TableKey
from controller.hub.contract.table_events import Event, TableStatus
from controller.hub.table_side.dispatcher import Answer
from controller.hub.table_side.health import link_counters
from controller.hub.table_side.outbox import Outbox

_log = logging.getLogger(__name__)
Build = Callable[[int], bytes]


class TableMessages:
    """Builders of one table's messages; each takes the sequence number the outbox gives."""

    def __init__(
        self, table: str, key: TableKey, outbox: Outbox, clock: Clock, keepalive_s: int
    ) -> None:
        self.table = table
        self.key = key
        self.outbox = outbox
        self.clock = clock
        self.keepalive_s = keepalive_s

    def head(self, seq: int) -> dict[str, Any]:
        """Envelope fields of a new message."""
        return new_header(self.table, self.outbox.boot, seq, self.clock, outbox=self.outbox.id)

    def result(self, result: HandResult, ids: list[str]) -> Callable[[int], tuple[str, bytes]]:
        """A signed result; its id is appended to `ids` (the builder runs in the outbox's
        thread)."""

        def build(seq: int) -> tuple[str, bytes]:
            message = self.key.sign(ResultMessage(result=result, **self.head(seq)))
            ids.append(message.id)
            return message.id, encode(message)

        return build

    def event(self, event: Event) -> Build:
        """A public play-by-play event."""
        return lambda seq: encode(EventMessage(event=event, **self.head(seq)))

    def status(
        self,
        status: TableStatus,
        online: bool,
        connected_at: datetime | None,
        will: bool = False,
        doubt: str = "",
    ) -> Build:
        """The table status with the link's health; offline ones say `state` offline. `doubt`:
        what the link itself must tell a technician (it comes before the outbox's news)."""
        shown = status if online else msgspec.structs.replace(status, state="offline")

        def build(seq: int) -> bytes:
            b = self.outbox
            message = StatusMessage(
                online=online,
                status=shown,
                link=link_counters(
                    b.pending_count(), b.dropped, b.refused, doubt or b.problem, b.is_new
                ),
                will=will,
                connected_at=connected_at,
                keepalive_s=self.keepalive_s,
                **self.head(seq),
            )
            return encode(message)

        return build

    def reply(self, answer: Answer) -> Build:
        """The answer to one hub command."""
        return lambda seq: encode(
            ReplyMessage(
                command=answer.command,
                ok=answer.ok,
                code=answer.code,
                message=answer.message[:500],
                data=answer.data,
                **self.head(seq),
            )
        )

    def resign(self, payload: bytes) -> bytes:
        """A stored result signed with the table's key as it is now (same bytes if it is)."""
        try:
            return self.key.resigned(payload, ResultMessage)
        except MalformedMessage as exc:
            _log.error("a stored result cannot be read to sign it again: %s", exc)
            return payload
