"""The venue recorder: takes every table's results off the broker, verifies their signatures,
records each once, acks them, audits the wall, and asks a table to resend when its sequence
numbers show a hole. Its retained `hub/state` tells tables whether anyone is recording."""

import asyncio
import logging
import random
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import timedelta

from controller.clock import Clock, SystemClock
from controller.hub.audit import audit_wall
from controller.hub.commands import Action, ResendResults
from controller.hub.events import HandStarted
from controller.hub.keyring import KeyRing
from controller.hub.messages import (
    HUB_TABLE,
    AckMessage,
    CommandMessage,
    EventMessage,
    HubStateMessage,
    MalformedMessage,
    Refusal,
    ReplyMessage,
    ResultMessage,
    StatusMessage,
    decode,
    encode,
    new_header,
    peek_id,
)
from controller.hub.signing import TableKey
from controller.hub.store import ResultStore
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
LEAVES = ("results", "status", "events", "replies")


@dataclass(frozen=True)
class RecorderSettings:
    """The recorder's name, topic root and timing."""

    name: str = "hub"
    topics: Topics = field(default_factory=Topics)
    timing: LinkTiming = field(default_factory=LinkTiming)
    command_lifetime_s: float = 300.0
    batch: int = 500


@dataclass
class _Acks:
    ids: list[str] = field(default_factory=list)
    refused: list[Refusal] = field(default_factory=list)


@dataclass
class RecorderCounters:
    """What the recorder has done since it started."""

    recorded: int = 0
    duplicates: int = 0
    refused: int = 0
    resend_requests: int = 0


class Recorder:
    """One venue's recorder."""

    def __init__(
        self,
        settings: RecorderSettings,
        store: ResultStore,
        keys: KeyRing,
        connector: MqttConnector,
        clock: Clock | None = None,
        rng: random.Random | None = None,
    ) -> None:
        self.settings = settings
        self.store = store
        self.keys = keys
        self.connector = connector
        self.clock = clock or SystemClock()
        self.rng = rng or random.Random()
        self.topics = settings.topics
        self.timing = settings.timing
        self.pacer = Pacer(self.clock, self.timing.tick_s)
        self.counters = RecorderCounters()
        self.boot = store.bump("boot")
        self.connected = asyncio.Event()
        self._floor: dict[str, int] = defaultdict(int)
        self._gaps: dict[str, tuple[int, float]] = {}
        self._asked: dict[str, float] = {}

    async def run(self) -> None:
        """Record until cancelled, reconnecting with jittered exponential backoff."""
        attempt = 0
        while True:
            try:
                async with self.connector.session(self._will()) as session:
                    attempt = 0
                    await self._serve(session)
            except LinkDown as exc:
                _log.warning("recorder lost the broker: %s", exc)
            finally:
                self.connected.clear()
            await self.pacer.sleep(self.timing.reconnect.delay(attempt, self.rng))
            attempt += 1

    def _hub_state(self, online: bool) -> bytes:
        head = new_header(HUB_TABLE, self.boot, self.store.bump("seq"), self.clock)
        return encode(HubStateMessage(online=online, hub=self.settings.name, **head))

    def _will(self) -> LastWill:
        return LastWill(self.topics.hub_state, self._hub_state(False), retain=True)

    async def _serve(self, session: MqttSession) -> None:
        await session.subscribe(*(self.topics.all_tables(leaf) for leaf in LEAVES))
        await session.publish(self.topics.hub_state, self._hub_state(True), retain=True)
        self.connected.set()
        _log.info("recorder online as %s", self.settings.name)
        inbox: asyncio.Queue[Inbound] = asyncio.Queue()
        try:
            await first_failure(self._receive(session, inbox), self._process(session, inbox))
        except asyncio.CancelledError:
            await self._say_goodbye(session)
            raise

    async def _say_goodbye(self, session: MqttSession) -> None:
        try:
            async with asyncio.timeout(1.0):
                await session.publish(self.topics.hub_state, self._hub_state(False), retain=True)
        except (LinkDown, TimeoutError):
            pass

    async def _receive(self, session: MqttSession, inbox: asyncio.Queue[Inbound]) -> None:
        async for message in session.incoming():
            inbox.put_nowait(message)

    async def _process(self, session: MqttSession, inbox: asyncio.Queue[Inbound]) -> None:
        while True:
            batch = await self._next_batch(inbox)
            acks: dict[str, _Acks] = defaultdict(_Acks)
            with self.store:
                for message in batch:
                    self._handle(message, acks)
                first_seq = self.store.reserve("seq", len(acks))
            for seq, (table, ack) in enumerate(acks.items(), start=first_seq):
                await self._send_ack(session, table, ack, seq)
            await self._check_gaps(session, set(acks) | set(self._gaps))

    async def _next_batch(self, inbox: asyncio.Queue[Inbound]) -> list[Inbound]:
        try:
            async with asyncio.timeout(self.timing.tick_s):
                first = await inbox.get()
        except TimeoutError:
            return []
        batch = [first]
        while len(batch) < self.settings.batch and not inbox.empty():
            batch.append(inbox.get_nowait())
        return batch

    def _handle(self, message: Inbound, acks: dict[str, _Acks]) -> None:
        where = self.topics.table_of(message.topic)
        if where is None or not message.payload:
            return
        table, leaf = where
        try:
            if leaf == "results":
                self._on_result(table, message.payload, acks[table])
            elif leaf == "events":
                self._on_event(table, message.payload)
            elif leaf == "status":
                self._on_status(table, message.payload)
            elif leaf == "replies":
                self._on_reply(table, message.payload)
        except MalformedMessage as exc:
            _log.warning("ignored a %s message from table %s: %s", leaf, table, exc)

    def _on_result(self, table: str, payload: bytes, ack: _Acks) -> None:
        key = self.keys.get(table)
        message = self._accepted(table, key, payload, ack)
        if message is None:
            return
        r = message.result
        published = self.store.commitment(table, r.session, r.hand)
        verdict = audit_wall(published, r.wall.commitment, r.wall.order, r.wall.salt)
        now = self.clock.wall()
        if self.store.add_result(message, payload, verdict, now):
            self.counters.recorded += 1
            _log.info(
                "recorded %s hand %d of table %s (seq %d)", r.session, r.hand, table, message.seq
            )
            if verdict == "mismatch":
                _log.warning(
                    "AUDIT: table %s session %s hand %d: the wall revealed does not match "
                    "the commitment",
                    table,
                    r.session,
                    r.hand,
                )
        else:
            self.counters.duplicates += 1
        ack.ids.append(message.id)

    def _accepted(
        self, table: str, key: TableKey | None, payload: bytes, ack: _Acks
    ) -> ResultMessage | None:
        """The result if it is genuine and well formed; otherwise refuse it and say why."""
        reason, message = _check_result(table, key, payload)
        if message is None:
            self._refuse(table, peek_id(payload), reason, ack if key else None)
        return message

    def _refuse(self, table: str, result_id: str | None, reason: str, ack: _Acks | None) -> None:
        self.counters.refused += 1
        _log.warning("REFUSED result %s from table %s: %s", result_id or "(no id)", table, reason)
        self.store.add_refusal(table, result_id, reason, self.clock.wall())
        if ack is not None and result_id is not None:
            ack.refused.append(Refusal(id=result_id, reason=reason[:500]))

    def _on_event(self, table: str, payload: bytes) -> None:
        message = decode(payload, EventMessage)
        event = message.event
        if message.table != table or not isinstance(event, HandStarted):
            return
        now = self.clock.wall()
        added = self.store.add_commitment(
            table, event.session, event.hand, event.wall_commitment, now
        )
        known = self.store.commitment(table, event.session, event.hand)
        if not added and known != event.wall_commitment:
            _log.warning(
                "AUDIT: table %s published a second, different wall commitment for %s hand %d",
                table,
                event.session,
                event.hand,
            )
        if added:
            self._reaudit(table, event.session, event.hand, event.wall_commitment)

    def _reaudit(self, table: str, session: str, hand: int, published: str) -> None:
        for result_id, payload in self.store.hand_results(table, session, hand):
            wall = decode(payload, ResultMessage).result.wall
            verdict = audit_wall(published, wall.commitment, wall.order, wall.salt)
            self.store.set_audit(result_id, verdict)

    def _on_status(self, table: str, payload: bytes) -> None:
        message = decode(payload, StatusMessage)
        if message.table == table:
            self.store.set_status(table, payload, self.clock.wall())

    def _on_reply(self, table: str, payload: bytes) -> None:
        message = decode(payload, ReplyMessage)
        if message.table != table:
            return
        self.store.add_reply(table, message.command, payload, self.clock.wall())
        level = logging.INFO if message.ok else logging.WARNING
        _log.log(level, "table %s: %s: %s", table, message.code, message.message)

    async def _send_ack(self, session: MqttSession, table: str, ack: _Acks, seq: int) -> None:
        key = self.keys.get(table)
        if key is None:
            return
        head = new_header(table, self.boot, seq, self.clock)
        message = key.sign(AckMessage(results=ack.ids, refused=ack.refused, **head))
        await session.publish(self.topics.acks(table), encode(message))

    async def _check_gaps(self, session: MqttSession, tables: set[str]) -> None:
        now = self.clock.monotonic()
        for table in tables:
            gap, top = self.store.first_gap(table, self._floor[table])
            if gap is None:
                self._floor[table] = top
                self._gaps.pop(table, None)
                continue
            self._floor[table] = gap - 1
            first_seen = self._gaps.setdefault(table, (gap, now))[1]
            if self._gaps[table][0] != gap:
                self._gaps[table] = (gap, now)
                continue
            if now - first_seen >= self.timing.gap_grace_s and self._may_ask(table, now):
                await self.send_command(session, table, ResendResults(since_seq=gap))
                self.counters.resend_requests += 1
                _log.info("table %s: results from seq %d missing; asked for a resend", table, gap)

    def _may_ask(self, table: str, now: float) -> bool:
        if now - self._asked.get(table, float("-inf")) < self.timing.gap_grace_s:
            return False
        self._asked[table] = now
        return True

    async def send_command(self, session: MqttSession, table: str, action: Action) -> str:
        """Sign and publish a command to one table; returns its id."""
        key = self.keys.get(table)
        if key is None:
            raise LinkDown(f"no key for table {table}: cannot sign a command to it")
        message = make_command(
            key,
            table,
            action,
            self.boot,
            self.store.bump("seq"),
            self.clock,
            self.settings.command_lifetime_s,
        )
        await session.publish(self.topics.commands(table), encode(message))
        return message.id


def _check_result(
    table: str, key: TableKey | None, payload: bytes
) -> tuple[str, ResultMessage | None]:
    if key is None:
        return "no key is registered for this table", None
    try:
        if not key.verify(payload):
            return "bad signature", None
        message = decode(payload, ResultMessage)
    except MalformedMessage as exc:
        return f"malformed: {exc}", None
    if message.table != table:
        return f"result names table {message.table} but came on table {table}'s topic", None
    return "", message


def make_command(
    key: TableKey, table: str, action: Action, boot: int, seq: int, clock: Clock, lifetime_s: float
) -> CommandMessage:
    """A signed command to `table` that expires `lifetime_s` from now."""
    head = new_header(table, boot, seq, clock)
    expires = head["ts"] + timedelta(seconds=lifetime_s)
    return key.sign(CommandMessage(expires=expires, action=action, **head))
