"""The venue recorder: takes every table's results off the broker, verifies their signatures,
records each once, acks them (and says why it refuses any), audits the wall, asks a table to
resend what it is missing (`gaps.GapWatch`), notes when each table was last heard and when it
went offline. Its retained `hub/state` tells tables whether anyone is recording.

The store runs on its own thread (`async_store`): each batch of messages is handled there in
one transaction and acked only once committed. While the store is down nothing is acked (the
tables keep their results and send them again); what arrives is held in memory, bounded and
without repeats, and stored when the store returns, after which every table is asked for what
the store still lacks."""

import asyncio
import logging
import random
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field, replace
from datetime import timedelta
from functools import partial
from typing import Any

from controller.clock import Clock, SystemClock
from controller.hub.contract.audit import audit_wall
from controller.hub.contract.envelopes import (
    HUB_TABLE,
    AckMessage,
    CommandMessage,
    Envelope,
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
    peek_place,
)
from controller.hub.contract.hub_commands import Action, ResendResults
from controller.hub.contract.signing import TableKey, sign_for_tables
from controller.hub.contract.table_events import HandStarted
from controller.hub.contract.topics import Topics
from controller.hub.mqtt.changes import Changes
from controller.hub.mqtt.link_timing import Backoff, LinkTiming, Pacer, raise_if_cancelled
from controller.hub.mqtt.reconnect import Reconnect
from controller.hub.mqtt.refusals import InputRefusals
from controller.hub.mqtt.transport import (
    BrokerDown,
    Inbound,
    LastWill,
    MqttConnector,
    MqttSession,
    first_failure,
)
from controller.venue.async_store import AsyncStore, StoreDown
from controller.venue.gaps import GapWatch, Source
from controller.venue.keyring import KeyRing
from controller.venue.store import NewResult, ResultStore
from controller.venue.store_view import StoreView

_log = logging.getLogger(__name__)
REPUBLISH_EVERY_S = 1.0
"""At most this often the recorder puts its state back over a foreign one."""
LEAVES = ("results", "status", "events", "replies")
SEQ_BLOCK = 4096
"""Message numbers taken from the store at a time (hub states and commands need some while
the store is down)."""
ACKS_IN_FLIGHT = 64
"""Acks handed to the broker whose PUBACK has not come yet, at most (`_AcksInFlight`)."""
HELD_MAX = 50_000
"""Messages held in memory while the store is down (results kept once each by id)."""


@dataclass(frozen=True)
class RecorderSettings:
    """The recorder's name, topic root and timing."""

    name: str = "hub"
    topics: Topics = field(default_factory=Topics)
    timing: LinkTiming = field(default_factory=LinkTiming)
    command_lifetime_s: float = 300.0
    batch: int = 500
    gap_asks: int = 5
    store_retry: Backoff = field(default_factory=lambda: Backoff(0.5, 2.0, 30.0))
    """Waits between attempts to store again while the store is down."""


@dataclass
class _Batch:
    """What handling one batch of messages leaves to do once it is committed."""

    acks: dict[str, "_Acks"] = field(default_factory=lambda: defaultdict(_Acks))
    sources: set[Source] = field(default_factory=set)
    met: list[Source] = field(default_factory=list)
    recorded: list[ResultMessage] = field(default_factory=list)
    accepted: list[tuple[ResultMessage, bytes]] = field(default_factory=list)
    """Verified results not yet stored (`Recorder._record` stores them together)."""
    counts: "RecorderCounters" = field(default_factory=lambda: RecorderCounters())
    asks: list[tuple[str, Action]] = field(default_factory=list)
    numbers: tuple[int, int] | None = None
    """A new block of message numbers taken in this batch (first, last)."""
    presence: bool = False
    notices: bool = False
    refusals: bool = False


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
    malformed: int = 0
    foreign_states: int = 0
    predecessor_states: int = 0

    def add(self, more: "RecorderCounters") -> None:
        """Count what a committed batch did."""
        for name, value in vars(more).items():
            setattr(self, name, getattr(self, name) + value)


class _Numbers:
    """Message numbers (hub states, acks, commands) from a block taken from the store."""

    def __init__(self) -> None:
        self.next = 1
        self.last = 0

    def left(self) -> int:
        return self.last - self.next + 1

    def take(self, count: int = 1) -> int:
        """The first of `count` consecutive numbers."""
        if self.left() < count:
            raise BrokerDown("no message numbers left: the results store has been down too long")
        first = self.next
        self.next += count
        return first

    def refill(self, block: tuple[int, int]) -> None:
        self.next, self.last = block


class _Held:
    """What arrived while the store was down, in order, each message once (a result by its id,
    however often the table sent it again), at most HELD_MAX."""

    def __init__(self) -> None:
        self._messages: OrderedDict[tuple[str, str | int], Inbound] = OrderedDict()
        self.dropped = 0

    def __len__(self) -> int:
        return len(self._messages)

    def keep(self, messages: list[Inbound]) -> None:
        for message in messages:
            key = (message.topic, peek_id(message.payload) or hash(message.payload))
            if key in self._messages:
                continue
            if len(self._messages) >= HELD_MAX:
                self.dropped += 1  # a result the table will send again
                continue
            self._messages[key] = message

    def take(self, count: int) -> list[Inbound]:
        taken: list[Inbound] = []
        while self._messages and len(taken) < count:
            taken.append(self._messages.popitem(last=False)[1])
        return taken


class Recorder:
    """One venue's recorder."""

    def __init__(
        self,
        settings: RecorderSettings,
        store: AsyncStore,
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
        self.refusals = InputRefusals(_log)
        self.boot = 0  # numbered in `run`: the constructor does no I/O
        self.connected = asyncio.Event()
        self.changes = Changes()
        self.view: StoreView | None = None
        """The dashboard's copy of the store, refreshed after each batch (None: no dashboard)."""
        self._db: ResultStore = store.sync  # used on the store's worker thread only
        self.behind = False
        """More than one message was waiting when the recorder took its last batch: messages
        come faster than it stores them (the dashboard then checks passwords more slowly)."""
        self._numbers = _Numbers()
        self._held = _Held()
        self._retries = 0
        self._noticed = False
        self._own_states: set[str] = set()
        self._will_id: str | None = None
        self._state_at = -REPUBLISH_EVERY_S
        self._foreign_state = False
        self.gaps = GapWatch(self._db, self.timing.gap_grace_s, settings.gap_asks, self._notice)
        self.live: MqttSession | None = None
        """The broker session while connected (a dashboard sends operator commands on it)."""
        self.listeners: list[Callable[[list[ResultMessage]], None]] = []
        """Told after each committed batch, with the results it recorded anew (and with none
        when the store goes down or comes back)."""
        store.listeners.append(self._store_changed)

    async def run(self) -> None:
        """Record until cancelled, reconnecting with jittered exponential backoff."""
        if not self.boot:
            self.boot = await self._numbered_boot()
        reconnect = Reconnect(
            self.connector,
            self.timing.reconnect,
            self.pacer,
            self.rng,
            _log,
            "recorder lost the broker",
        )
        await reconnect.forever(self._will, self._serve, self._disconnected)

    async def _numbered_boot(self) -> int:
        """This run's boot number and a first block of message numbers, once the store can
        give them (it may be down when the recorder starts)."""
        while True:
            try:
                boot, block = await self.store.transaction(_start_numbers)
            except StoreDown:
                await self._store_pause()
                continue
            self._numbers.refill(block)
            return boot

    @property
    def held(self) -> int:
        """Messages held in memory until the store returns."""
        return len(self._held)

    def _store_changed(self) -> None:
        self.changes.notify()
        for listener in self.listeners:
            listener([])

    async def _store_pause(self) -> None:
        """Wait before trying the store again (a jittered, growing delay)."""
        delay = self.settings.store_retry.delay(self._retries, self.rng)
        self._retries += 1
        await self.pacer.sleep(delay)

    def _disconnected(self) -> None:
        self.connected.clear()
        self.changes.notify()

    def _hub_state(self, online: bool, will: str | None = None) -> HubStateMessage:
        """Our state, signed for every table we have a key for (the tables trust no other)."""
        head = new_header(HUB_TABLE, self.boot, self._numbers.take(), self.clock)
        state = HubStateMessage(online=online, hub=self.settings.name, will=will, **head)
        self._own_states.add(state.id)
        return sign_for_tables(state, self.keys.keys)

    async def _will(self) -> LastWill:
        will = self._hub_state(False)
        self._will_id = will.id
        return LastWill(self.topics.hub_state, encode(will), retain=True)

    async def _publish_state(self, session: MqttSession) -> None:
        state = self._hub_state(True, self._will_id)
        await session.publish(self.topics.hub_state, encode(state), retain=True)
        self._state_at = self.clock.monotonic()

    async def _serve(self, session: MqttSession) -> None:
        topics = [self.topics.all_tables(leaf) for leaf in LEAVES]
        await session.subscribe(*topics, self.topics.hub_state)
        await self._publish_state(session)
        self.connected.set()
        self.live = session
        self.changes.notify()
        _log.info("recorder online as %s", self.settings.name)
        inbox: asyncio.Queue[Inbound] = asyncio.Queue()
        try:
            await first_failure(self._receive(session, inbox), self._process(session, inbox))
        except asyncio.CancelledError:
            await self._say_goodbye(session)
            raise
        finally:
            self.live = None

    async def _say_goodbye(self, session: MqttSession) -> None:
        try:
            async with asyncio.timeout(1.0):
                goodbye = encode(self._hub_state(False))
                await session.publish(self.topics.hub_state, goodbye, retain=True)
        except (BrokerDown, TimeoutError):
            pass

    async def _receive(self, session: MqttSession, inbox: asyncio.Queue[Inbound]) -> None:
        async for message in session.incoming():
            inbox.put_nowait(replace(message, received=self.clock.wall()))

    async def _process(self, session: MqttSession, inbox: asyncio.Queue[Inbound]) -> None:
        acks = _AcksInFlight(ACKS_IN_FLIGHT)
        try:
            await self._batches(session, inbox, acks)
        finally:
            acks.cancel()

    async def _batches(
        self, session: MqttSession, inbox: asyncio.Queue[Inbound], acks: "_AcksInFlight"
    ) -> None:
        while True:
            raise_if_cancelled()
            acks.check()
            asked = self.gaps.asks
            if self._held:
                messages = self._held.take(self.settings.batch)
            else:
                messages = await self._next_batch(inbox)
            self.behind = len(messages) > 1
            was_down = self.store.outage is not None
            try:
                batch = await self.store.transaction(partial(_handle_all, self, messages))
            except StoreDown:
                self._held.keep(messages)
                self.changes.notify()
                await self._store_pause()
                self._held.keep(_drain(inbox))
                continue
            self._retries = 0
            if was_down:
                self.gaps.forget_met()  # ask every table again for what the store lacks
            await self._committed(session, batch, acks)
            if self._foreign_state and self.clock.monotonic() - self._state_at >= REPUBLISH_EVERY_S:
                self._foreign_state = False
                await self._publish_state(session)
            if messages or batch.asks or self.gaps.asks != asked:
                self.changes.notify()
            self.pacer.turns.notify()

    async def _committed(
        self, session: MqttSession, batch: "_Batch", acks: "_AcksInFlight"
    ) -> None:
        """What a stored batch leaves to do: count, tell, ack (the broker takes the acks while
        the next batch is stored), ask."""
        self.counters.add(batch.counts)
        if batch.numbers is not None:
            self._numbers.refill(batch.numbers)
        _log_recorded(batch.recorded)
        if batch.recorded or batch.presence or batch.notices or batch.refusals:
            for listener in self.listeners:
                listener(batch.recorded)
        if batch.acks:
            first = self._numbers.take(len(batch.acks))
            for seq, (table, ack) in enumerate(batch.acks.items(), start=first):
                signed = self._signed_ack(table, ack, seq)
                if signed is not None:
                    await acks.publish(session.publish(self.topics.acks(table), signed))
        for table, action in batch.asks:
            await self.send_command(session, table, action)

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

    def handle_messages(self, messages: list[Inbound]) -> "_Batch":
        """Handle messages inside the store's transaction (on the store's worker thread);
        returns what is left to do once it is committed: acks, resend requests, counts."""
        batch = _Batch()
        self._noticed = False
        for message in messages:
            self._handle(message, batch)
        self._record(batch)
        batch.asks = [(s[0], ask) for s in batch.met for ask in self.gaps.on_meeting(s)]
        batch.asks += self.gaps.holes(batch.sources | set(batch.met), self.clock.monotonic())
        if self._numbers.left() < SEQ_BLOCK // 2 + len(batch.acks) + len(batch.asks):
            first = self._db.reserve("seq", SEQ_BLOCK)
            batch.numbers = (first, first + SEQ_BLOCK - 1)
        batch.notices = self._noticed
        if self.view is not None:
            self.view.refresh(self._db, batch.presence, batch.notices, batch.refusals)
        return batch

    def _handle(self, message: Inbound, batch: _Batch) -> None:
        if message.topic == self.topics.hub_state:
            if not message.retain:  # a retained one predates ours, which replaced it
                self._on_hub_state(message.payload, batch)
            return
        where = self.topics.table_of(message.topic)
        if where is None or not message.payload:
            return
        table, leaf = where
        alive: Envelope | None
        try:
            if leaf == "results":
                alive = self._on_result(table, message.payload, batch)
            elif leaf == "events":
                alive = self._on_event(table, message.payload)
            elif leaf == "status":
                batch.presence = True
                alive = self._on_status(table, message)
            elif leaf == "replies":
                alive = self._on_reply(table, message.payload)
            else:
                return
        except MalformedMessage as exc:
            batch.counts.malformed += 1
            self.refusals.refuse(f"table {table}", f"{leaf} message", str(exc))
            return
        if alive is not None:
            heard = None if message.retain else message.received or self.clock.wall()
            self._alive(table, alive, batch, heard)

    def _on_hub_state(self, payload: bytes, batch: _Batch) -> None:
        """Someone else's state on our topic: put ours back (it replaced ours as retained).

        A state of this recorder's own name, of an earlier boot and signed with our keys is
        its predecessor's: above all its last will, which the broker publishes when a killed
        recorder's connection drops, and keeps for this recorder's persistent session until
        it connects. That is named for what it is, not refused as a forgery."""
        try:
            state = decode(payload, HubStateMessage) if payload else None
        except MalformedMessage:
            state = None
        if state is not None and state.id in self._own_states:
            return
        if state is not None and self._predecessor(state, payload):
            batch.counts.predecessor_states += 1
            _log.info(
                "hub/state: %s of this recorder's predecessor (%s, boot %d), delivered late by "
                "the broker; publishing ours again",
                "the last will (or goodbye)" if not state.online else "a state",
                state.hub,
                state.boot,
            )
        else:
            if not self._foreign_state:
                self.refusals.refuse("hub/state", "hub state not ours", "publishing our own again")
            batch.counts.foreign_states += 1
        self._foreign_state = True

    def _predecessor(self, state: HubStateMessage, payload: bytes) -> bool:
        if state.hub != self.settings.name or state.boot >= self.boot:
            return False
        return any(key.verify_among(payload, table) for table, key in self.keys.keys.items())

    def _alive(self, table: str, message: Envelope, batch: _Batch, heard: float | None) -> None:
        """The table is connected: it sent this at wall time `heard` (the batch may be handled
        later), or (None) its retained status says online (its will would have replaced that
        status if it had gone)."""
        if heard is not None:
            batch.presence = True
            self._db.heard(table, heard)
        if self.keys.get(table) is None:
            return
        outbox = message.outbox or ""
        if not self.gaps.knows(table, outbox, message.boot):
            self._record(batch)  # what meeting it reads of the store includes what came before
        if self.gaps.meet(table, outbox, message.boot, self.clock.wall()):
            batch.met.append((table, outbox))

    def _notice(self, table: str, kind: str, text: str) -> None:
        self._noticed = True
        if self._db.add_notice(table, kind, text, self.clock.wall()):
            _log.warning("%s: %s", kind.replace("_", " ").upper(), text)

    def _on_result(self, table: str, payload: bytes, batch: _Batch) -> ResultMessage | None:
        key = self.keys.get(table)
        message = self._accepted(table, key, payload, batch)
        if message is None:
            return None
        batch.sources.add((table, message.outbox or ""))
        batch.accepted.append((message, payload))
        batch.acks[table].ids.append(message.id)
        return message

    def _record(self, batch: _Batch) -> None:
        """Store the batch's verified results so far, each with the audit of its wall against
        the commitment seen at the start of its hand: the commitments read in one round trip,
        the results written in another, each kept once by id."""
        if not batch.accepted:
            return
        accepted, batch.accepted = batch.accepted, []
        hands = [(m.table, m.result.session, m.result.hand) for m, _ in accepted]
        published = self._db.commitments(hands)
        audited: list[NewResult] = []
        for hand, (message, payload) in zip(hands, accepted, strict=True):
            wall = message.result.wall
            verdict = audit_wall(published.get(hand), wall.commitment, wall.order, wall.salt)
            audited.append((message, payload, verdict))
        added = self._db.add_results(audited, self.clock.wall())
        for (message, _, audit), new in zip(audited, added, strict=True):
            if not new:
                batch.counts.duplicates += 1
                continue
            batch.counts.recorded += 1
            batch.recorded.append(message)
            if audit == "mismatch":
                r = message.result
                _log.warning(
                    "AUDIT: table %s session %s hand %d: the wall revealed does not match "
                    "the commitment",
                    message.table,
                    r.session,
                    r.hand,
                )

    def _accepted(
        self, table: str, key: TableKey | None, payload: bytes, batch: _Batch
    ) -> ResultMessage | None:
        """The result if it is genuine and well formed; otherwise refuse it and say why."""
        reason, message = _check_result(table, key, payload)
        if message is None:
            self._refuse(table, payload, reason, batch)
        return message

    def _refuse(self, table: str, payload: bytes, reason: str, batch: _Batch) -> None:
        result_id = peek_id(payload)
        batch.counts.refused += 1
        batch.refusals = True
        ack = batch.acks[table]
        _log.warning("REFUSED result %s from table %s: %s", result_id or "(no id)", table, reason)
        self._db.add_refusal(table, result_id, reason, self.clock.wall(), peek_place(payload))
        if result_id is not None:
            ack.refused.append(Refusal(id=result_id, reason=reason[:500]))

    def _on_event(self, table: str, payload: bytes) -> EventMessage | None:
        message = decode(payload, EventMessage)
        event = message.event
        if message.table != table:
            return None
        if not isinstance(event, HandStarted):
            return message
        now = self.clock.wall()
        added = self._db.add_commitment(
            table, event.session, event.hand, event.wall_commitment, now
        )
        known = self._db.commitment(table, event.session, event.hand)
        if not added and known != event.wall_commitment:
            _log.warning(
                "AUDIT: table %s published a second, different wall commitment for %s hand %d",
                table,
                event.session,
                event.hand,
            )
        if added:
            self._reaudit(table, event.session, event.hand, event.wall_commitment)
        return message

    def _reaudit(self, table: str, session: str, hand: int, published: str) -> None:
        for result_id, payload in self._db.hand_results(table, session, hand):
            wall = decode(payload, ResultMessage).result.wall
            verdict = audit_wall(published, wall.commitment, wall.order, wall.salt)
            self._db.set_audit(result_id, verdict)

    def _on_status(self, table: str, inbound: Inbound) -> StatusMessage | None:
        payload, retained = inbound.payload, inbound.retain
        message = decode(payload, StatusMessage)
        if message.table != table:
            return None
        now = inbound.received or self.clock.wall()
        self._db.set_status(table, payload, now)
        if message.online or retained:
            return message if message.online else None
        # Seen live: the table said goodbye itself, or the broker gave its will just now.
        if message.will:
            _log.warning("table %s is gone: the broker published its last will", table)
        else:
            self._db.heard(table, now)
        self._db.went_offline(table, now, message.will)
        return None

    def _on_reply(self, table: str, payload: bytes) -> ReplyMessage | None:
        message = decode(payload, ReplyMessage)
        if message.table != table:
            return None
        self._db.add_reply(table, message.command, payload, self.clock.wall())
        if self.view is not None:
            self.view.add_reply(message.command, payload)
        level = logging.INFO if message.ok else logging.WARNING
        _log.log(level, "table %s: %s: %s", table, message.code, message.message)
        return message

    def _signed_ack(self, table: str, ack: _Acks, seq: int) -> bytes | None:
        """The ack to publish to `table`, signed with its key (None: nothing to send)."""
        key = self.keys.get(table)
        if key is None:
            return None  # the table trusts only acks signed with its key; the refusal is on record
        if not (ack.ids or ack.refused):
            return None
        head = new_header(table, self.boot, seq, self.clock)
        return encode(key.sign(AckMessage(results=ack.ids, refused=ack.refused, **head)))

    async def send_command(self, session: MqttSession, table: str, action: Action) -> str:
        """Sign and publish a command to one table; returns its id."""
        key = self.keys.get(table)
        if key is None:
            raise BrokerDown(f"no key for table {table}: cannot sign a command to it")
        message = make_command(
            key,
            table,
            action,
            self.boot,
            self._numbers.take(),
            self.clock,
            self.settings.command_lifetime_s,
        )
        await session.publish(self.topics.commands(table), encode(message))
        self.counters.resend_requests += isinstance(action, ResendResults)
        return message.id


class _AcksInFlight:
    """Acks of stored batches on their way to the broker: each is published (handed to the
    connection, in order) as its batch commits, and the next batch is stored while the broker
    takes it, instead of waiting for its PUBACK first. At most `limit` wait for their PUBACK;
    a publish that failed (the broker is gone) ends the session at the next batch, and the
    acks not yet taken are lost with it (the tables send those results again, which are
    then acked as the duplicates they are)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._waiting: set[asyncio.Task[None]] = set()
        self._failure: BaseException | None = None

    def check(self) -> None:
        """Raise what a publish failed with."""
        if self._failure is not None:
            raise self._failure

    async def publish(self, send: Coroutine[Any, Any, None]) -> None:
        """Start a publish; wait first while `limit` others wait for their PUBACK."""
        while len(self._waiting) >= self.limit:
            await asyncio.wait(self._waiting, return_when=asyncio.FIRST_COMPLETED)
            self.check()
        task = asyncio.ensure_future(send)
        self._waiting.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: "asyncio.Task[None]") -> None:
        self._waiting.discard(task)
        if not task.cancelled() and task.exception() is not None and self._failure is None:
            self._failure = task.exception()

    def cancel(self) -> None:
        """The session ends: publishes not yet done are dropped."""
        for task in self._waiting:
            task.cancel()


def _log_recorded(recorded: list[ResultMessage]) -> None:
    """One line per table for the results a batch recorded anew (a busy venue stores
    hundreds in a batch: a line each would cost more than storing them)."""
    by_table: dict[str, list[ResultMessage]] = defaultdict(list)
    for message in recorded:
        by_table[message.table].append(message)
    for table, messages in by_table.items():
        if len(messages) == 1:
            [m] = messages
            _log.info(
                "recorded %s hand %d of table %s (seq %d)", m.result.session, m.result.hand,
                table, m.seq,
            )  # fmt: skip
            continue
        seqs = sorted(m.seq for m in messages)
        sessions = sorted({m.result.session for m in messages})
        _log.info(
            "recorded %d results of table %s (seq %d to %d, session %s)", len(messages), table,
            seqs[0], seqs[-1], ", ".join(sessions),
        )  # fmt: skip


def _check_result(
    table: str, key: TableKey | None, payload: bytes
) -> tuple[str, ResultMessage | None]:
    if key is None:
        return "no key is registered for this table", None
    try:
        message = key.verified(payload, ResultMessage)
    except MalformedMessage as exc:
        return f"malformed: {exc}", None
    if message is None:
        return "bad signature", None
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


def _start_numbers(store: ResultStore) -> tuple[int, tuple[int, int]]:
    """A new boot number and a first block of message numbers (in one transaction)."""
    boot = store.reserve("boot", 1)
    first = store.reserve("seq", SEQ_BLOCK)
    return boot, (first, first + SEQ_BLOCK - 1)


def _drain(inbox: asyncio.Queue[Inbound]) -> list[Inbound]:
    """Everything queued now."""
    taken = []
    while not inbox.empty():
        taken.append(inbox.get_nowait())
    return taken


def _handle_all(recorder: Recorder, messages: list[Inbound], _: ResultStore) -> "_Batch":
    return recorder.handle_messages(messages)
