"""The table's side of the hub link: keeps a connection to the venue broker, publishes status,
events and replies, sends results until the hub acks them, and carries out hub commands."""

import asyncio
import contextlib
import logging
import random
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import Any

import msgspec

from controller import __version__
from controller.clock import Clock, SystemClock
from controller.hub.dispatcher import Answer, CommandDispatcher, TableControl
from controller.hub.events import Event, LinkCounters, TableStatus
from controller.hub.messages import (
    AckMessage,
    EventMessage,
    HubStateMessage,
    MalformedMessage,
    ReplyMessage,
    ResultMessage,
    StatusMessage,
    decode,
    encode,
    new_header,
)
from controller.hub.outbox import Outbox, PendingResult
from controller.hub.result import HandResult
from controller.hub.signing import TableKey
from controller.hub.timing import LinkTiming, Pacer
from controller.hub.topics import Topics
from controller.hub.transport import (
    Inbound,
    LastWill,
    LinkDown,
    MqttConnector,
    MqttSession,
    first_failure,
)

_log = logging.getLogger(__name__)
IDLE_WAIT_S = 60.0


@dataclass(frozen=True)
class LinkSettings:
    """Who the table is on the hub link and how it times itself."""

    table: str
    key: TableKey
    topics: Topics = field(default_factory=Topics)
    timing: LinkTiming = field(default_factory=LinkTiming)
    software: str = __version__


@dataclass
class LinkStats:
    """What the link has done since it started (for diag and the bench)."""

    connects: int = 0
    results_sent: int = 0
    results_resent: int = 0
    results_acked: int = 0


@dataclass(frozen=True)
class ResultReceipt:
    """A result safely in the outbox: the hand may now count as over."""

    id: str
    seq: int


class HubLink:
    """Everything the table publishes to, and hears from, the venue hub."""

    def __init__(
        self,
        settings: LinkSettings,
        outbox: Outbox,
        connector: MqttConnector,
        control: TableControl,
        clock: Clock | None = None,
        rng: random.Random | None = None,
    ) -> None:
        self.settings = settings
        self.outbox = outbox
        self.connector = connector
        self.clock = clock or SystemClock()
        self.rng = rng or random.Random()
        self.dispatcher = CommandDispatcher(
            settings.table, settings.key, control, self, outbox, self.clock
        )
        self.topics = settings.topics
        self.timing = settings.timing
        self.pacer = Pacer(self.clock, self.timing.tick_s)
        self.connected = False
        self.hub_online = False
        self.stats = LinkStats()
        self._status = TableStatus(software=settings.software)
        self._wake = asyncio.Event()
        self._due: dict[str, float] = {}
        self._attempts: dict[str, int] = {}
        self._refused: set[str] = set()
        self._publishing: set[asyncio.Task[None]] = set()
        self._failure: BaseException | None = None

    # --- what the session and the app call -------------------------------------------------

    def record_result(self, result: HandResult) -> ResultReceipt:
        """Sign the result and store it durably; only then does the hand count as over."""
        ids: list[str] = []

        def build(seq: int) -> tuple[str, bytes]:
            fields = new_header(self.settings.table, self.outbox.boot, seq, self.clock)
            message = self.settings.key.sign(ResultMessage(result=result, **fields))
            ids.append(message.id)
            return message.id, encode(message)

        seq = self.outbox.add_result(build, self.clock.wall())
        self._wake.set()
        return ResultReceipt(ids[0], seq)

    def publish_event(self, event: Event) -> None:
        """Queue a public play-by-play event (dropped oldest-first if the link stays down)."""
        topic = self.topics.events(self.settings.table)
        self.outbox.add_feed(
            "event", topic, lambda seq: encode(EventMessage(event=event, **self._head(seq)))
        )
        self._wake.set()

    def update_status(self, status: TableStatus) -> None:
        """Publish a new retained status (only the newest waits while the link is down)."""
        self._status = status
        self._queue_status(online=True)

    @property
    def pending_results(self) -> int:
        """Results the hub has not acknowledged yet."""
        return self.outbox.pending_count()

    async def run(self) -> None:
        """Stay connected until cancelled, reconnecting with jittered exponential backoff."""
        attempt = 0
        while True:
            try:
                async with self.connector.session(self._will()) as session:
                    attempt = 0
                    await self._serve(session)
            except LinkDown as exc:
                _log.warning("hub link down: %s", exc)
            finally:
                self._disconnected()
            delay = self.timing.reconnect.delay(attempt, self.rng)
            attempt += 1
            await self.pacer.sleep(delay)

    # --- LinkActions, for the command dispatcher -------------------------------------------

    def resend_since(self, seq: int) -> str:
        """Make results from `seq` on pending again and send them now."""
        reopened, oldest = self.outbox.reopen_since(seq)
        self._due.clear()
        self._wake.set()
        held = "none held" if oldest is None else f"oldest held is {oldest}"
        return f"{reopened} acknowledged results queued again from seq {seq} ({held})"

    def report_status(self, status: TableStatus) -> None:
        """Publish this status now."""
        self.update_status(status)

    # --- the connection ---------------------------------------------------------------------

    async def _serve(self, session: MqttSession) -> None:
        t = self.settings.table
        await session.subscribe(self.topics.commands(t), self.topics.acks(t), self.topics.hub_state)
        self.connected = True
        self.stats.connects += 1
        _log.info("hub link up")
        self._queue_status(online=True)
        try:
            await first_failure(self._receive(session), self._send(session))
        except asyncio.CancelledError:
            await self._say_goodbye(session)
            raise

    async def _say_goodbye(self, session: MqttSession) -> None:
        with contextlib.suppress(LinkDown, TimeoutError):
            async with asyncio.timeout(1.0):
                await session.publish(*self._status_payload(online=False), retain=True)

    def _disconnected(self) -> None:
        self.connected = False
        self.hub_online = False
        self._due.clear()
        self._failure = None
        for task in self._publishing:
            task.cancel()

    def _will(self) -> LastWill:
        topic, payload = self._status_payload(online=False)
        return LastWill(topic, payload, retain=True)

    def _head(self, seq: int) -> dict[str, Any]:
        return new_header(self.settings.table, self.outbox.boot, seq, self.clock)

    def _status_payload(self, online: bool) -> tuple[str, bytes]:
        return self.topics.status(self.settings.table), self._status_bytes(
            self.outbox.next_feed_seq(), online
        )

    def _status_bytes(self, seq: int, online: bool) -> bytes:
        status = self._status if online else msgspec.structs.replace(self._status, state="offline")
        counters = LinkCounters(
            pending_results=self.outbox.pending_count(),
            dropped_messages=self.outbox.dropped,
            refused_results=len(self._refused),
        )
        return encode(StatusMessage(online=online, status=status, link=counters, **self._head(seq)))

    def _queue_status(self, online: bool) -> None:
        topic = self.topics.status(self.settings.table)
        self.outbox.add_feed(
            "status", topic, lambda seq: self._status_bytes(seq, online), retain=True
        )
        self._wake.set()

    # --- receiving ----------------------------------------------------------------------------

    async def _receive(self, session: MqttSession) -> None:
        async for message in session.incoming():
            try:
                await self._on_message(message)
            except MalformedMessage as exc:
                _log.warning("ignored a message on %s: %s", message.topic, exc)

    async def _on_message(self, message: Inbound) -> None:
        t = self.settings.table
        if message.topic == self.topics.hub_state:
            self._on_hub_state(message.payload)
        elif message.topic == self.topics.acks(t):
            self._on_ack(message.payload)
        elif message.topic == self.topics.commands(t):
            self._answer(await self.dispatcher.handle(message.payload))

    def _on_hub_state(self, payload: bytes) -> None:
        online = bool(payload) and decode(payload, HubStateMessage).online
        if online and not self.hub_online:
            _log.info("hub is online: sending results")
            self._due.clear()
        elif not online and self.hub_online:
            _log.warning("hub is offline: results wait in the outbox")
        self.hub_online = online
        self._wake.set()

    def _on_ack(self, payload: bytes) -> None:
        ack = decode(payload, AckMessage)
        if ack.table != self.settings.table or not self.settings.key.verify(payload):
            _log.warning("ignored an ack not signed for this table (id %s)", ack.id)
            return
        self.stats.results_acked += self.outbox.mark_acked(ack.results, self.clock.wall())
        for result_id in ack.results:
            self._due.pop(result_id, None)
            self._attempts.pop(result_id, None)
            self._refused.discard(result_id)
        for refusal in ack.refused:
            if refusal.id not in self._refused:
                _log.error("the hub refuses result %s: %s", refusal.id, refusal.reason)
            self._refused.add(refusal.id)
        self._wake.set()

    def _answer(self, answer: Answer) -> None:
        if not answer.ok:
            _log.warning("hub command %s: %s: %s", answer.command, answer.code, answer.message)
        topic = self.topics.replies(self.settings.table)

        def build(seq: int) -> bytes:
            return encode(
                ReplyMessage(
                    command=answer.command,
                    ok=answer.ok,
                    code=answer.code,
                    message=answer.message[:500],
                    **self._head(seq),
                )
            )

        self.outbox.add_feed("reply", topic, build)
        self._wake.set()

    # --- sending ------------------------------------------------------------------------------

    async def _send(self, session: MqttSession) -> None:
        while True:
            self._wake.clear()
            if self._failure is not None:
                raise self._failure
            await self._flush_feed(session)
            if self.hub_online:
                await self._send_results(session)
            await self.pacer.sleep(self._until_next_due(), self._wake)

    async def _flush_feed(self, session: MqttSession) -> None:
        while batch := self.outbox.feed_head(64):
            for item in batch:
                await session.publish(item.topic, item.payload, retain=item.retain)
                self.outbox.remove_feed(item.n)

    async def _send_results(self, session: MqttSession) -> None:
        now = self.clock.monotonic()
        batch = [
            r
            for r in self.outbox.pending_results(self.timing.window)
            if self._due.get(r.id, now) <= now
        ]
        topic = self.topics.results(self.settings.table)
        for result in batch:
            self._schedule_resend(result, now)
            self._spawn(session.publish(topic, result.payload))

    def _spawn(self, publish: Coroutine[Any, Any, None]) -> None:
        """Publish in the background: the window refills as acks come, not as PUBACKs do."""
        task = asyncio.ensure_future(publish)
        self._publishing.add(task)
        task.add_done_callback(self._published)

    def _published(self, task: "asyncio.Task[None]") -> None:
        self._publishing.discard(task)
        error = None if task.cancelled() else task.exception()
        if error is not None:
            self._failure = error
            self._wake.set()

    def _schedule_resend(self, result: PendingResult, now: float) -> None:
        attempt = self._attempts.get(result.id, 0)
        self._attempts[result.id] = attempt + 1
        self.stats.results_sent += 1
        self.stats.results_resent += attempt > 0
        self._due[result.id] = now + self.timing.resend.delay(attempt, self.rng)

    def _until_next_due(self) -> float:
        if not self._due or not self.hub_online:
            return IDLE_WAIT_S
        return max(0.0, min(self._due.values()) - self.clock.monotonic())
