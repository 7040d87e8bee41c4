"""The one owner of the conversation with the table MCU.

Handshake (identify with SYNC, protocol and message-table check), sequence numbers with
go-back-N retransmission (bounded window, timeout doubling from 25 ms, bounded tries),
heartbeats, request/response with typed errors, event delivery with gap detection and state
re-query, reconnection with backoff, MCU restart detection, statistics and a frame log.
Nothing else in the daemon reads or writes the port.
"""

import asyncio
import contextlib
import logging
import random
from collections import deque
from dataclasses import dataclass
from enum import Enum
from typing import Any, cast

from firmware_bridge.errors import (
    BridgeError,
    CommandRejected,
    CommandTimeout,
    CrcError,
    FrameError,
    LinkDown,
    LinkError,
    McuReset,
    MessageError,
    ProtocolMismatch,
    UnexpectedReply,
)
from firmware_bridge.events import Connected, Disconnected, EventGap, Item, Resynced, Subscription
from firmware_bridge.fields import Command, Message, ReplyT, decode_payload, encode_payload
from firmware_bridge.frame import PROTOCOL_VERSION, Flag, Frame, FrameDecoder, encode_frame
from firmware_bridge.link_stats import Counters, FrameRing, LinkStats
from firmware_bridge.messages import (
    HEARTBEAT_INTERVAL_MS,
    MAX_WINDOW,
    SIDES,
    TABLE_HASH,
    WALL_PAGE_STACKS,
    Heartbeat,
    HeartbeatReply,
    Identify,
    IdentifyReply,
    QueryStatus,
    QueryWall,
    QueryZone,
    Rejected,
    WallSide,
    Zone,
)
from firmware_bridge.port import Port, PortOpener

log = logging.getLogger(__name__)
_EVENT, _RESPONSE, _SYNC = int(Flag.EVENT), int(Flag.RESPONSE), int(Flag.SYNC)
_UNSEQUENCED, _NAK, _NEED_SYNC = int(Flag.UNSEQUENCED), int(Flag.NAK), int(Flag.NEED_SYNC)
PROBES_PER_INTERVAL = 5


@dataclass(frozen=True)
class LinkSettings:
    """Timing and reliability policy of the link (seconds)."""

    window: int = 8
    min_rto: float = 0.025
    max_rto: float = 1.0
    max_tries: int = 24
    heartbeat_interval: float = HEARTBEAT_INTERVAL_MS / 1000
    silence_timeout: float = 2.0
    reconnect_min: float = 0.05
    reconnect_max: float = 2.0
    connect_timeout: float = 5.0
    ring_size: int = 64

    def __post_init__(self) -> None:
        if not 1 <= self.window <= MAX_WINDOW:
            raise ValueError(f"window must be 1..{MAX_WINDOW}")


class State(Enum):
    """Where the link is in its life."""

    DOWN = "down"
    HANDSHAKE = "handshake"
    UP = "up"
    CLOSED = "closed"


@dataclass(eq=False)
class _Pending:
    seq: int
    name: str
    reply: type[Message]
    frame: Frame
    data: bytes
    future: asyncio.Future[Message]
    sent_at: float
    deliver: bool
    tries: int = 1
    """Transmissions counted while this command was the oldest unanswered one."""
    resent: bool = False


@dataclass
class _Loss:
    reason: str
    keep_port: bool
    error: type[LinkError] = LinkDown
    mcu_reset: bool = False


@dataclass
class _Rtt:
    srtt: float | None = None
    rttvar: float = 0.0


class _Receiver:
    """Listener for one opened port; callbacks from an older port are ignored."""

    def __init__(self, link: "Link", generation: int) -> None:
        self._link = link
        self._generation = generation

    def data_received(self, data: bytes) -> None:
        if self._generation == self._link._generation:
            self._link._on_data(data)

    def connection_lost(self, exc: Exception | None) -> None:
        if self._generation == self._link._generation:
            self._link._on_port_lost(exc)


class Link:
    """A reliable, self-healing conversation with the table MCU over one port."""

    def __init__(
        self,
        opener: PortOpener,
        settings: LinkSettings | None = None,
        *,
        expected_hash: int = TABLE_HASH,
        name: str = "table MCU",
    ) -> None:
        self.settings = settings or LinkSettings()
        self.name = name
        self._opener = opener
        self._expected_hash = expected_hash
        self._state = State.DOWN
        self._port: Port | None = None
        self._generation = 0
        self._decoder = FrameDecoder()
        self._next_seq = 0
        self._pending: dict[int, _Pending] = {}
        self._waiters: deque[asyncio.Future[None]] = deque()
        self._timer: asyncio.TimerHandle | None = None
        self._identify: IdentifyReply | None = None
        self._events_seen = 0
        self._subscriptions: list[Subscription] = []
        self._counters = Counters()
        self._ring = FrameRing(self.settings.ring_size)
        self._rtt = _Rtt()
        self._loss: _Loss | None = None
        self._lost = asyncio.Event()
        self._settled = asyncio.Event()
        self._fatal: LinkError | None = None
        self._last_error: BaseException | None = None
        self._last_rx = 0.0
        self._heartbeat_answered = True
        self._tasks: list[asyncio.Task[None]] = []
        self._resync_task: asyncio.Task[None] | None = None
        self._resync_again = False

    # ---- public API ------------------------------------------------------------------------

    async def start(self, wait: bool = True) -> None:
        """Connect in the background; with `wait`, until the first handshake (else raise)."""
        self._tasks = [
            asyncio.create_task(self._supervise(), name="link-supervisor"),
            asyncio.create_task(self._heartbeat(), name="link-heartbeat"),
        ]
        if not wait:
            return
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(self.settings.connect_timeout):
                await self._settled.wait()
        if self._state is not State.UP:
            error = self._fatal or LinkDown(
                f"no answer from the {self.name} within {self.settings.connect_timeout:g} s"
                + (f": {self._last_error}" if self._last_error else "")
            )
            await self.close()
            raise error

    async def close(self) -> None:
        """Stop the link and fail whatever is still in flight."""
        self._state = State.CLOSED
        for task in [*self._tasks, self._resync_task]:
            if task is not None:
                task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        if self._timer is not None:
            self._timer.cancel()
        self._fail_all(LinkDown("the link was closed"))
        self._wake_all()
        self._drop_port()

    async def __aenter__(self) -> "Link":
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    @property
    def connected(self) -> bool:
        """True while commands can be sent."""
        return self._state is State.UP

    @property
    def identify(self) -> IdentifyReply | None:
        """What the MCU said about itself at the last handshake."""
        return self._identify

    def stats(self) -> LinkStats:
        """A snapshot of the link statistics."""
        return self._counters.snapshot()

    def frame_log(self) -> list[str]:
        """The last frames sent and received, as text."""
        return self._ring.lines(self._now())

    def subscribe(self, *types: type) -> Subscription:
        """Receive MCU events and link notices (of `types` only, if given) from now on."""
        subscription = Subscription(types, self._subscriptions.remove)
        self._subscriptions.append(subscription)
        return subscription

    async def wait_connected(self, within: float | None = None) -> None:
        """Wait until the link is up (TimeoutError after `within` s)."""
        async with asyncio.timeout(within):
            while self._state is not State.UP:
                if self._fatal is not None:
                    raise self._fatal
                await asyncio.sleep(self.settings.reconnect_min)

    async def request(self, command: Command[ReplyT]) -> ReplyT:
        """Send a command, exactly once and in order; return its reply or raise a LinkError."""
        return cast(ReplyT, await self._request(command, deliver=False))

    def resync(self, reason: str = "requested") -> None:
        """Re-query status, zones and walls now; snapshots then `Resynced` go to subscribers."""
        if self._resync_task is not None and not self._resync_task.done():
            self._resync_again = True
            return
        self._resync_task = asyncio.create_task(self._resync(reason), name="link-resync")

    # ---- connection life -------------------------------------------------------------------

    async def _supervise(self) -> None:
        attempt = 0
        while self._state is not State.CLOSED:
            try:
                await self._connect()
            except ProtocolMismatch as error:
                self._fatal = error
                self._give_up_connecting(error)
                return
            except (BridgeError, OSError) as error:
                self._last_error = error
                self._drop_port()
                self._state = State.DOWN
                attempt += 1
                await asyncio.sleep(self._backoff(attempt))
                continue
            attempt = 0
            await self._lost.wait()
            self._after_loss()

    def _give_up_connecting(self, error: LinkError) -> None:
        log.error("%s", error)
        self._drop_port()
        self._state = State.DOWN
        self._settled.set()
        self._publish(Disconnected(str(error), final=True))

    def _after_loss(self) -> None:
        loss = self._loss or _Loss("connection lost", keep_port=False)
        log.warning("%s link down: %s", self.name, loss.reason)
        self._publish(Disconnected(loss.reason))
        if not loss.keep_port:
            self._drop_port()
        self._lost.clear()

    async def _connect(self) -> None:
        self._lost.clear()
        if self._port is None:
            self._decoder = FrameDecoder()
            self._generation += 1
            self._port = await self._opener(_Receiver(self, self._generation))
            self._port.write(b"\0")
        self._state = State.HANDSHAKE
        self._last_rx = self._now()
        reply = await self._send(Identify(), _SYNC)
        assert isinstance(reply, IdentifyReply)
        self._check_identity(reply)
        self._established(reply)

    def _check_identity(self, reply: IdentifyReply) -> None:
        if reply.protocol_version != PROTOCOL_VERSION or reply.table_hash != self._expected_hash:
            raise ProtocolMismatch(
                f"the {self.name} speaks protocol {reply.protocol_version} with message table "
                f"{reply.table_hash:08x}, this daemon protocol {PROTOCOL_VERSION} with "
                f"{self._expected_hash:08x} (firmware {reply.firmware_major}."
                f"{reply.firmware_minor}.{reply.firmware_patch}): update the firmware or the daemon"
            )

    def _established(self, reply: IdentifyReply) -> None:
        previous = self._identify
        mcu_reset = previous is not None and reply.boot_count != previous.boot_count
        self._identify = reply
        self._events_seen = reply.event_counter
        self._loss = None
        self._state = State.UP
        self._settled.set()
        if previous is not None:
            self._counters.reconnects += 1
        if mcu_reset:
            self._counters.mcu_resets += 1
        log.info("%s connected (boot %d)", self.name, reply.boot_count)
        self._publish(Connected(reply, reconnected=previous is not None, mcu_reset=mcu_reset))
        if previous is not None:
            self.resync("the table MCU restarted" if mcu_reset else "reconnected")

    def _mark_lost(self, loss: _Loss) -> None:
        if self._state in (State.DOWN, State.CLOSED):
            return
        self._loss = loss
        self._state = State.DOWN
        self._fail_all(loss.error(f"{self.name}: {loss.reason}"))
        self._wake_all()
        self._lost.set()

    def _on_port_lost(self, exc: Exception | None) -> None:
        self._port = None
        self._generation += 1
        self._mark_lost(_Loss(f"the serial device went away ({exc or 'closed'})", keep_port=False))

    def _drop_port(self) -> None:
        port, self._port = self._port, None
        self._generation += 1
        if port is not None:
            port.close()

    def _backoff(self, attempt: int) -> float:
        ceiling = min(self.settings.reconnect_max, self.settings.reconnect_min * 2**attempt)
        return random.uniform(ceiling / 2, ceiling)

    async def _heartbeat(self) -> None:
        while True:
            await asyncio.sleep(self._heartbeat_delay())
            if self._state is not State.UP:
                continue
            silent = self._now() - self._last_rx
            if silent > self.settings.silence_timeout:
                self._mark_lost(_Loss(f"no frame for {silent:.1f} s", keep_port=False))
                continue
            flags = _UNSEQUENCED
            self._heartbeat_answered = False
            self._write(Frame(Heartbeat.TYPE, b"", 0, self._events_seen & 0xFF, flags))

    def _heartbeat_delay(self) -> float:
        """The heartbeat interval, or a fifth of it while the last heartbeat is unanswered: a
        few frames lost on a noisy line must not look like silence to either end."""
        interval = self.settings.heartbeat_interval
        return interval if self._heartbeat_answered else interval / PROBES_PER_INTERVAL

    # ---- sending ---------------------------------------------------------------------------

    def _require_up(self) -> None:
        if self._fatal is not None:
            raise self._fatal
        if self._state is not State.UP:
            reason = self._loss.reason if self._loss else "not connected yet"
            raise LinkDown(f"the {self.name} is not connected: {reason}")

    def _send(
        self, command: Command[Any], flags: int = 0, deliver: bool = False
    ) -> asyncio.Future[Message]:
        seq = self._next_seq
        self._next_seq = (seq + 1) & 0xFF
        frame = Frame(command.TYPE, encode_payload(command), seq, self._events_seen & 0xFF, flags)
        future: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        name = type(command).__name__
        data = encode_frame(frame)
        pending = _Pending(seq, name, command.REPLY, frame, data, future, self._now(), deliver)
        self._pending[seq] = pending
        self._write(frame, pending.data)
        if len(self._pending) == 1:
            self._arm()
        return future

    def _write(self, frame: Frame, data: bytes | None = None) -> None:
        if self._port is None:
            return
        data = data or encode_frame(frame)
        self._counters.frames_sent += 1
        self._counters.bytes_sent += len(data)
        self._ring.add(self._now(), "tx", frame)
        self._port.write(data)

    def _arm(self) -> None:
        """Make sure a timer runs for the oldest command (it re-arms itself if it fires early)."""
        if self._timer is None and self._pending:
            oldest = next(iter(self._pending.values()))
            delay = oldest.sent_at + self._rto(oldest.tries) - self._now()
            self._timer = asyncio.get_running_loop().call_later(max(0.0, delay), self._on_timeout)

    def _rto(self, tries: int) -> float:
        base = self.settings.min_rto
        if self._rtt.srtt is not None:
            base = max(base, self._rtt.srtt + 4 * self._rtt.rttvar)
        return float(min(self.settings.max_rto, base * 2 ** (tries - 1)))

    def _on_timeout(self) -> None:
        self._timer = None
        if not self._pending:
            return
        oldest = next(iter(self._pending.values()))
        if self._now() < oldest.sent_at + self._rto(oldest.tries) - 0.0005:
            self._arm()
            return
        if oldest.tries >= self.settings.max_tries:
            self._counters.timeouts += 1
            reason = f"{oldest.name} went unanswered after {oldest.tries} tries"
            self._finish(oldest, error=CommandTimeout(f"{self.name}: {reason}"))
            self._mark_lost(_Loss(reason, keep_port=False))
            return
        oldest.tries += 1
        self._retransmit_all()

    def _retransmit_all(self) -> None:
        now = self._now()
        for pending in self._pending.values():
            pending.resent = True
            pending.sent_at = now
            self._counters.retransmits += 1
            self._write(pending.frame, pending.data)
        self._arm()

    def _fail_all(self, error: LinkError) -> None:
        for pending in list(self._pending.values()):
            self._finish(pending, error=error)

    def _finish(
        self, pending: _Pending, result: Message | None = None, error: BaseException | None = None
    ) -> None:
        self._pending.pop(pending.seq, None)
        if not pending.future.done():
            if error is not None:
                pending.future.set_exception(error)
                pending.future.add_done_callback(_consume_exception)
            else:
                pending.future.set_result(cast(Message, result))
        self._wake_next()
        self._arm()

    # ---- receiving -------------------------------------------------------------------------

    def _on_data(self, data: bytes) -> None:
        self._counters.bytes_received += len(data)
        for item in self._decoder.feed(data):
            if isinstance(item, FrameError):
                self._on_bad_frame(item)
            else:
                self._on_frame(item)

    def _on_bad_frame(self, error: FrameError) -> None:
        if isinstance(error, CrcError):
            self._counters.crc_errors += 1
        else:
            self._counters.frame_errors += 1
        self._ring.add(self._now(), "bad", error.raw)
        self._ring.dump(self._now(), str(error))

    def _protocol_error(self, reason: str) -> None:
        self._counters.protocol_errors += 1
        self._ring.dump(self._now(), reason)

    def _on_frame(self, frame: Frame) -> None:
        self._counters.frames_received += 1
        self._last_rx = self._now()
        self._ring.add(self._last_rx, "rx", frame)
        if frame.version != PROTOCOL_VERSION:
            self._on_foreign_version(frame)
        elif frame.flags & _NEED_SYNC:
            if self._state is State.UP:
                loss = _Loss("the table MCU restarted", True, McuReset, mcu_reset=True)
                self._mark_lost(loss)
        elif frame.flags & _RESPONSE:
            self._on_response(frame)
        elif frame.flags & _EVENT:
            self._on_event(frame)
        elif frame.flags & _NAK:
            self._on_nak(frame.ack)
        elif frame.type == HeartbeatReply.TYPE:
            self._on_heartbeat_reply(frame)

    def _on_foreign_version(self, frame: Frame) -> None:
        self._fatal = ProtocolMismatch(
            f"the {self.name} sends protocol version {frame.version}, "
            f"this daemon speaks {PROTOCOL_VERSION}: update the firmware or the daemon"
        )
        self._protocol_error(str(self._fatal))
        self._fail_all(self._fatal)

    def _on_nak(self, ack: int) -> None:
        if not self._pending:
            return
        oldest = next(iter(self._pending.values()))
        if oldest.seq == ack and self._now() - oldest.sent_at > self.settings.min_rto / 2:
            self._retransmit_all()

    def _on_response(self, frame: Frame) -> None:
        pending = self._pending.get(frame.seq)
        if pending is None:
            self._counters.duplicate_replies += 1
            return
        try:
            reply = decode_payload(frame.type, frame.payload)
        except MessageError as error:
            self._protocol_error(f"reply to {pending.name}: {error}")
            self._finish(pending, error=error)
            return
        if not pending.resent:
            self._rtt_sample(self._now() - pending.sent_at)
        self._resolve(pending, reply)

    def _resolve(self, pending: _Pending, reply: Message) -> None:
        if isinstance(reply, pending.reply):
            self._finish(pending, result=reply)
            if pending.deliver:
                self._publish(reply)
        elif isinstance(reply, Rejected):
            error = CommandRejected(pending.name, reply.reason, reply.reason.name, reply.detail)
            self._finish(pending, error=error)
        else:
            reason = f"{pending.name} answered with {type(reply).__name__}"
            self._protocol_error(reason)
            self._finish(pending, error=UnexpectedReply(reason))

    def _rtt_sample(self, sample: float) -> None:
        self._counters.rtt.append(sample)
        rtt = self._rtt
        if rtt.srtt is None:
            rtt.srtt, rtt.rttvar = sample, sample / 2
        else:
            rtt.rttvar = 0.75 * rtt.rttvar + 0.25 * abs(rtt.srtt - sample)
            rtt.srtt = 0.875 * rtt.srtt + 0.125 * sample

    def _on_event(self, frame: Frame) -> None:
        if self._state is not State.UP:
            return
        delta = (frame.seq - self._events_seen) & 0xFF
        if delta == 0:
            self._protocol_error(f"event number {frame.seq} repeated")
            return
        self._events_seen += delta
        if delta > 1:
            self._on_gap(delta - 1)
        try:
            self._publish(decode_payload(frame.type, frame.payload))
        except MessageError as error:
            self._protocol_error(f"event: {error}")

    def _on_heartbeat_reply(self, frame: Frame) -> None:
        try:
            reply = decode_payload(frame.type, frame.payload)
        except MessageError as error:
            self._protocol_error(f"heartbeat reply: {error}")
            return
        assert isinstance(reply, HeartbeatReply)
        self._heartbeat_answered = True
        if self._state is State.UP and reply.event_counter > self._events_seen:
            missed = reply.event_counter - self._events_seen
            self._events_seen = reply.event_counter
            self._on_gap(missed)

    def _on_gap(self, missed: int) -> None:
        self._counters.event_gaps += 1
        self._protocol_error(f"{missed} event(s) from the table MCU were lost")
        self._publish(EventGap(missed))
        self.resync(f"{missed} event(s) lost")

    def _publish(self, item: Item) -> None:
        for subscription in list(self._subscriptions):
            subscription.put(item)

    async def _resync(self, reason: str) -> None:
        while True:
            self._resync_again = False
            identify = self._identify
            if identify is None:
                return
            queries: list[Command[Any]] = [QueryStatus()]
            queries += [QueryZone(s, z) for s in range(identify.seats) for z in Zone]
            try:
                await asyncio.gather(
                    *(self._request(query, deliver=True) for query in queries),
                    *(self._query_side(side) for side in range(SIDES)),
                )
            except LinkError as error:
                log.info("state re-query interrupted: %s", error)
                return
            if not self._resync_again:
                self._publish(Resynced(reason))
                return

    async def wall_side(self, side: int) -> WallSide:
        """Every tile placed so far on one side, read page by page (`query_wall`)."""
        return await self._query_side(side, deliver=False)

    async def _query_side(self, side: int, deliver: bool = True) -> WallSide:
        first = cast(WallSide, await self._request(QueryWall(side, 0, WALL_PAGE_STACKS), False))
        stacks = -(-first.tiles_per_side // first.layers) if first.layers else 0
        pages = [
            self._request(QueryWall(side, start, WALL_PAGE_STACKS), deliver=False)
            for start in range(WALL_PAGE_STACKS, stacks, WALL_PAGE_STACKS)
        ]
        rest = cast(list[WallSide], await asyncio.gather(*pages))
        slots = first.slots + tuple(slot for page in rest for slot in page.slots)
        whole = WallSide(side, first.tiles_per_side, first.layers, slots)
        if deliver:
            self._publish(whole)
        return whole

    async def _request(self, command: Command[Any], deliver: bool) -> Message:
        self._require_up()
        if self._waiters or self._window_full():
            await self._wait_turn()
        reply = self._send(command, deliver=deliver)
        if not self._window_full():
            self._wake_next()
        return await reply

    async def _wait_turn(self) -> None:
        """Wait, first come first served, for a free place in the window (a waiter keeps its
        place in the queue until it sends)."""
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[None] = loop.create_future()
        self._waiters.append(waiter)
        try:
            while True:
                await waiter
                self._require_up()
                if self._waiters[0] is waiter and not self._window_full():
                    self._waiters.popleft()
                    return
                fresh: asyncio.Future[None] = loop.create_future()
                self._waiters[self._waiters.index(waiter)] = fresh
                waiter = fresh
        except BaseException:
            if waiter in self._waiters:
                self._waiters.remove(waiter)
            self._wake_next()
            raise

    def _window_full(self) -> bool:
        """The window spans from the oldest unanswered command, not over the commands still
        unanswered: a command whose reply keeps getting lost must not fall further behind
        than the MCU's reply cache reaches."""
        if not self._pending:
            return False
        oldest = next(iter(self._pending))
        return (self._next_seq - oldest) & 0xFF >= self.settings.window

    def _wake_next(self) -> None:
        """Let the first waiter look at the window again."""
        if self._waiters and not self._waiters[0].done():
            self._waiters[0].set_result(None)

    def _wake_all(self) -> None:
        for waiter in self._waiters:
            if not waiter.done():
                waiter.set_result(None)

    def _now(self) -> float:
        return asyncio.get_running_loop().time()


def _consume_exception(future: asyncio.Future[Message]) -> None:
    if not future.cancelled():
        future.exception()
