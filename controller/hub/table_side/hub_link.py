"""The table's side of the hub link: keeps a connection to the venue broker, publishes status,
events and replies, sends results until the hub acks them, and carries out hub commands."""

import asyncio
import contextlib
import logging
import random
from collections.abc import Coroutine
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from controller import __version__
from controller.clock import Clock, SystemClock
from controller.hub.contract.envelopes import (
    AckMessage,
    HubStateMessage,
    MalformedMessage,
    Refusal,
    decode,
)
from controller.hub.contract.result import HandResult
from controller.hub.contract.signing import TableKey
from controller.hub.contract.table_events import Event, TableStatus
from controller.hub.contract.topics import Topics
from controller.hub.mqtt.changes import Changes
from controller.hub.mqtt.link_timing import LinkTiming, Pacer, ResendSchedule, raise_if_cancelled
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
from controller.hub.table_side.composer import TableMessages
from controller.hub.table_side.dispatcher import Answer, CommandDispatcher, TableControl
from controller.hub.table_side.health import attention
from controller.hub.table_side.outbox import FeedKind, Outbox, RefusedResult
from controller.hub.table_side.send_window import SendWindow

_log = logging.getLogger(__name__)
IDLE_WAIT_S = 60.0
KEY_DOUBT = (
    "the hub's state is not signed with this table's key, so results wait in the outbox: "
    "is mqtt.result_key the key the hub's keys file holds for this table?"
)


@dataclass(frozen=True)
class HubLinkSettings:
    """Who the table is on the hub link and how it times itself."""

    table: str
    key: TableKey
    topics: Topics = field(default_factory=Topics)
    timing: LinkTiming = field(default_factory=LinkTiming)
    software: str = __version__


@dataclass
class HubLinkStats:
    """What the link has done since it started (for diag and the bench)."""

    connects: int = 0
    results_sent: int = 0
    results_resent: int = 0
    results_acked: int = 0
    results_refused: int = 0
    malformed: int = 0
    unsigned_ignored: int = 0


@dataclass(frozen=True)
class ResultReceipt:
    """A result safely in the outbox: the hand may now count as over."""

    id: str
    seq: int


class HubLink:
    """Everything the table publishes to, and hears from, the venue hub."""

    def __init__(
        self,
        settings: HubLinkSettings,
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
        self.messages = TableMessages(
            settings.table, settings.key, outbox, self.clock, self.timing.keepalive_s
        )
        self.pacer = Pacer(self.clock, self.timing.tick_s)
        self.connected = False
        self.hub_online = False
        self.stats = HubLinkStats()
        self.changes = Changes()
        self.refusals = InputRefusals(_log)
        self._status = TableStatus(software=settings.software)
        self._status_at: float | None = None  # when the last status was queued (table's clock)
        self._status_due: float | None = None  # when the newest status (not queued) is due
        self._wake = asyncio.Event()
        self.schedule = ResendSchedule(self.timing.resend, self.rng)
        self.window = SendWindow(outbox, self.schedule, self.timing.window)
        self._publishing: set[asyncio.Task[None]] = set()
        self._failure: BaseException | None = None
        self._connected_at: datetime | None = None
        self._started = False
        self._problem_told = ""
        self._hub_taken: datetime | None = None  # the time of the hub state taken last
        self._hub_will: str | None = None  # the id of that state's last will
        self._hub_unverified = False  # the last hub state was not signed with our key

    def _note_new_outbox(self) -> None:
        if self.outbox.is_new:
            _log.warning(
                "outbox %s did not exist: began a new one (id %s); result numbers start again, "
                "and if this table had an outbox before, results it had not delivered are lost",
                self.outbox.path,
                self.outbox.id[:8],
            )

    async def _retry_refused_at_start(self) -> None:
        # A restart is a technician's way to say "try again" (e.g. after fixing the key): each
        # result refused before is sent once more, signed with the key the table has now. On
        # the outbox's thread: the loop runs on while the card works.
        reopened = await self.outbox.reopen_async(1, None, self.messages.resign, acked=False)
        again = reopened.refused
        if again:
            _log.warning("sending %d results the hub refused before once more (re-signed)", again)
        signer = self.settings.key.fingerprint()
        resigned = await self.outbox.resign_pending_async(self.messages.resign, signer)
        if resigned:
            _log.warning("%d waiting results were signed with another key: signed anew", resigned)

    def _poke(self) -> None:
        """Something changed: the send loop looks again, and so does anyone waiting."""
        self._wake.set()
        self.changes.notify()

    # --- what the session and the app call -------------------------------------------------

    def record_result(self, result: HandResult) -> ResultReceipt:
        """Sign the result and store it durably; only then does the hand count as over.

        Blocks for the one fsync of the result (the outbox's writer thread does it);
        `record_result_async` gives the same guarantee without blocking the event loop.
        """
        ids: list[str] = []
        seq = self.outbox.add_result(self.messages.result(result, ids), self.clock.wall())
        self._poke()
        return ResultReceipt(ids[0], seq)

    async def record_result_async(self, result: HandResult) -> ResultReceipt:
        """As `record_result`; returns once the result is on disk, the loop running meanwhile."""
        ids: list[str] = []
        build = self.messages.result(result, ids)
        seq = await self.outbox.add_result_async(build, self.clock.wall())
        self._poke()
        return ResultReceipt(ids[0], seq)

    def publish_event(self, event: Event) -> None:
        """Queue a public play-by-play event (dropped oldest-first if the link stays down)."""
        topic = self.topics.events(self.settings.table)
        self.outbox.add_feed(FeedKind.EVENT, topic, self.messages.event(event))
        self._poke()

    def update_status(self, status: TableStatus) -> None:
        """Publish a new retained status (only the newest waits while the link is down).

        A change of phase or of the fault is queued at once; any other change at most once per
        `status_interval_s` of the table's clock, and never later: the status then queued is
        the newest."""
        before, self._status = self._status, status
        at = self._status_at
        allowed = None if at is None else at + self.timing.status_interval_s
        if must_show_now(before, status) or allowed is None or self.clock.monotonic() >= allowed:
            self._queue_status(online=True)
        elif self._status_due is None:
            self._status_due = allowed
            self._wake.set()  # the send loop wakes up for it in time

    def _queue_due_status(self) -> None:
        """Queue the newest status if its time has come."""
        due = self._status_due
        if due is not None and self.clock.monotonic() >= due:
            self._queue_status(online=True)

    @property
    def pending_results(self) -> int:
        """Results waiting to be sent or acknowledged (refused ones are counted apart)."""
        return self.outbox.pending_count()

    @property
    def refused_results(self) -> list[RefusedResult]:
        """Results the hub refused, oldest first, each with the hub's reason."""
        return self.outbox.refused

    @property
    def attention(self) -> str:
        """What a technician must do about the link, in plain words ('' when nothing)."""
        return attention(self.outbox.refused, self._doubt() or self.outbox.problem)

    def _doubt(self) -> str:
        return KEY_DOUBT if self._hub_unverified and not self.hub_online else ""

    async def resend_refused(self) -> int:
        """Send every refused result again (re-signed with the table's key); returns how many."""
        again = await self.outbox.reopen_async(1, None, self.messages.resign, acked=False)
        self._after_resend()
        return again.refused

    async def run(self) -> None:
        """Stay connected until cancelled, reconnecting with jittered exponential backoff."""
        if not self._started:
            self._started = True
            self._note_new_outbox()
            await self._retry_refused_at_start()
        loop = asyncio.get_running_loop()

        def on_disk() -> None:  # in the outbox's thread: what was queued may now be published
            loop.call_soon_threadsafe(self._poke)

        self.outbox.on_commit = on_disk
        reconnect = Reconnect(
            self.connector, self.timing.reconnect, self.pacer, self.rng, _log, "hub link down"
        )
        await reconnect.forever(self._will, self._serve, self._disconnected)

    # --- LinkActions, for the command dispatcher -------------------------------------------

    async def resend(self, since: int, until: int | None = None) -> str:
        """Queue results in [since, until] again, refused ones re-signed, and send them now."""
        again = await self.outbox.reopen_async(since, until, self.messages.resign)
        self._after_resend()
        span = f"seq {since}" + ("" if until is None else f" to {until}")
        held = "none held" if again.oldest is None else f"oldest held is {again.oldest}"
        return (
            f"{again.acked} acknowledged and {again.refused} refused results queued again "
            f"from {span} ({held})"
        )

    def _after_resend(self) -> None:
        # The results queued again are new to the schedule, so due now; the ones in flight
        # keep waiting for their ack (sending them again would only make duplicates).
        self._queue_status(online=True)

    def report_status(self, status: TableStatus) -> None:
        """Publish this status now (the hub asked for it)."""
        self._status = status
        self._queue_status(online=True)

    # --- the connection ---------------------------------------------------------------------

    async def _serve(self, session: MqttSession) -> None:
        t = self.settings.table
        await session.subscribe(self.topics.commands(t), self.topics.acks(t), self.topics.hub_state)
        self.connected = True
        self.stats.connects += 1
        self._problem_told = ""  # a new session hears of any outbox problem again
        self.changes.notify()
        _log.info("hub link up")
        self._queue_status(online=True)
        try:
            await first_failure(self._receive(session), self._send(session))
        except asyncio.CancelledError:
            await self._say_goodbye(session)
            raise

    async def _say_goodbye(self, session: MqttSession) -> None:
        with contextlib.suppress(BrokerDown, TimeoutError):
            async with asyncio.timeout(1.0):
                await session.publish(*self._status_now(online=False), retain=True)

    def _disconnected(self) -> None:
        self.connected = False
        self.hub_online = False
        self.window.restart()
        self._failure = None
        for task in self._publishing:
            task.cancel()
        self.changes.notify()

    async def _will(self) -> LastWill:
        """The last will: made now, as the connection begins, and labelled as such."""
        self._connected_at = datetime.fromtimestamp(self.clock.wall(), UTC)
        topic, payload = self._status_now(online=False, will=True)
        await self.outbox.flushed()  # its sequence number is on disk before anyone can see it
        return LastWill(topic, payload, retain=True)

    def _status_now(self, online: bool, will: bool = False) -> tuple[str, bytes]:
        """A status published outside the feed (the will, the goodbye)."""
        doubt = self._doubt()
        build = self.messages.status(self._status, online, self._connected_at, will, doubt)
        return self.topics.status(self.settings.table), build(self.outbox.next_feed_seq())

    def _queue_status(self, online: bool) -> None:
        topic = self.topics.status(self.settings.table)
        build = self.messages.status(self._status, online, self._connected_at, doubt=self._doubt())
        self.outbox.add_feed(FeedKind.STATUS, topic, build, retain=True)
        self._status_at, self._status_due = self.clock.monotonic(), None
        self._poke()

    # --- receiving ----------------------------------------------------------------------------

    async def _receive(self, session: MqttSession) -> None:
        async for message in session.incoming():
            await self.on_message(message)
            raise_if_cancelled()

    async def on_message(self, message: Inbound) -> None:
        """Act on one message from the broker; a malformed one is counted and logged, never
        raised."""
        try:
            await self._dispatch(message)
        except MalformedMessage as exc:
            self.stats.malformed += 1
            self.refusals.refuse(message.topic, "message", str(exc))
        self.changes.notify()

    async def _dispatch(self, message: Inbound) -> None:
        t = self.settings.table
        if message.topic == self.topics.hub_state:
            self._on_hub_state(message.payload)
        elif message.topic == self.topics.acks(t):
            self._on_ack(message.payload)
        elif message.topic == self.topics.commands(t):
            self._answer(await self.dispatcher.handle(message.payload))

    def _on_hub_state(self, payload: bytes) -> None:
        """Take the hub's state only when it is signed for this table and not a replay."""
        if not payload or not self.settings.key.verify_among(payload, self.settings.table):
            self.stats.unsigned_ignored += 1
            self.refusals.refuse("hub/state", "hub state", "not signed for this table: ignored")
            self._set_unverified(bool(payload))
            return
        self._set_unverified(False)
        state = decode(payload, HubStateMessage)
        # A replay is older than the state taken; the will of that state's connection is older
        # too (made first) but is the one offline state to take. A fresh store restarts the
        # hub's numbers, not its clock, so the time orders states.
        if (
            self._hub_taken is not None
            and state.id != self._hub_will
            and state.ts < self._hub_taken
        ):
            self.refusals.refuse("hub/state", "hub state", "older than the one taken: ignored")
            return
        self._hub_taken = max(state.ts, self._hub_taken or state.ts)
        self._hub_will = state.will
        online = state.online
        if online and not self.hub_online:
            _log.info("hub is online: sending results")
            self.window.restart()
        elif not online and self.hub_online:
            _log.warning("hub is offline: results wait in the outbox")
        self.hub_online = online
        self._poke()

    def _set_unverified(self, unverified: bool) -> None:
        if unverified != self._hub_unverified:
            self._hub_unverified = unverified
            if unverified:
                _log.error("%s", KEY_DOUBT)
            self._queue_status(online=True)

    def _on_ack(self, payload: bytes) -> None:
        ack = decode(payload, AckMessage)
        if ack.table != self.settings.table:
            _log.warning("ignored an ack for table %s (id %s)", ack.table, ack.id)
            return
        if not self.settings.key.verify(payload):
            self.stats.unsigned_ignored += 1
            self.refusals.refuse("hub/ack", "ack", "not signed with this table's key: ignored")
            return
        self.stats.results_acked += self.outbox.mark_acked(ack.results, self.clock.wall())
        self.schedule.forget(ack.results)
        if sum(self._on_refusal(refusal) for refusal in ack.refused):
            self._queue_status(online=True)
        self._poke()

    def _on_refusal(self, refusal: Refusal) -> bool:
        """Set a refused result aside (only from a signed ack: anyone else could stop a
        result being sent this way)."""
        reason = refusal.reason
        refused = self.outbox.mark_refused(refusal.id, reason[:500], self.clock.wall())
        if refused is None:
            return False
        self.schedule.forget([refusal.id])
        self.stats.results_refused += 1
        _log.error(
            "result seq %d (%s) refused by hub: %s; kept in the outbox, not sent again until asked",
            refused.seq,
            refused.id,
            reason,
        )
        return True

    def _answer(self, answer: Answer) -> None:
        if not answer.ok:
            _log.warning("hub command %s: %s: %s", answer.command, answer.code, answer.message)
        topic = self.topics.replies(self.settings.table)
        self.outbox.add_feed(FeedKind.REPLY, topic, self.messages.reply(answer))
        self._poke()

    # --- sending ------------------------------------------------------------------------------

    async def _send(self, session: MqttSession) -> None:
        while True:
            self._wake.clear()
            if self._failure is not None:
                raise self._failure
            self._queue_due_status()
            await self._flush_feed(session)
            if self.hub_online:
                await self._send_results(session)
            self.changes.notify()
            await self.pacer.sleep(self._until_next_due(), self._wake)

    async def _flush_feed(self, session: MqttSession) -> None:
        problem = self.outbox.problem
        if problem != self._problem_told:
            # The feed waits for the disk, which is what fails: say so directly.
            if problem:
                _log.error("%s", problem)
            await session.publish(*self._status_now(online=True), retain=True)
            self._problem_told = problem
        while batch := self.outbox.feed_head(64):
            for item in batch:
                await session.publish(item.topic, item.payload, retain=item.retain)
                self.outbox.remove_feed(item.n)

    async def _send_results(self, session: MqttSession) -> None:
        now = self.clock.monotonic()
        topic = self.topics.results(self.settings.table)
        for result in self.window.due(now):
            self.stats.results_sent += 1
            self.stats.results_resent += self.window.sent(result, now)
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
            self._poke()

    def _until_next_due(self) -> float:
        now = self.clock.monotonic()
        waits = [IDLE_WAIT_S]
        result = self.schedule.next_in(now)
        if result is not None and self.hub_online:
            waits.append(result)
        if self._status_due is not None:
            waits.append(max(0.0, self._status_due - now))
        return min(waits)


def must_show_now(before: TableStatus, after: TableStatus) -> bool:
    """A change a venue must see at once: the phase (a hand begun or over, a pause, the session
    over), a fault raised, changed or cleared, another session or hand."""
    return (before.state, before.fault, before.session, before.hand) != (
        after.state,
        after.fault,
        after.session,
        after.hand,
    )
