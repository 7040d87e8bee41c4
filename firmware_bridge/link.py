"""The one owner of the conversation with the table MCU.

Handshake (identify with SYNC, protocol and message-table check), heartbeats, request/response
with typed errors, event delivery and state re-query after gaps, reconnection with backoff,
MCU restart detection, statistics and a frame log. Sequence numbers, the window, timeouts,
go-back-N resends, NAKs and gap detection are decided by the pure session core
(`firmware_bridge.session`); this class owns the port, the timer, the tasks and the futures.
Nothing else in the daemon reads or writes the port.
"""

import asyncio
import contextlib
import logging
import random
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import Enum, IntEnum
from typing import Any, cast

from firmware_bridge.bounds import BOUNDED, out_of_bounds
from firmware_bridge.errors import (
    BridgeError,
    CommandRejected,
    CommandTimeout,
    CrcError,
    ForeignFrame,
    FrameError,
    LinkDown,
    LinkError,
    McuReset,
    MessageError,
    ProtocolMismatch,
    UnexpectedReply,
)
from firmware_bridge.events import (
    Connected,
    Disconnected,
    EventGap,
    Item,
    Resynced,
    Subscription,
    ZonesRead,
)
from firmware_bridge.fields import Command, Message, ReplyT, decode_payload, encode_payload
from firmware_bridge.frame import Flag, Frame, FrameDecoder
from firmware_bridge.handshake import identity_mismatch, reply_version, version_mismatch
from firmware_bridge.link_stats import Counters, FrameRing, LinkStats
from firmware_bridge.messages import (
    HEARTBEAT_INTERVAL_MS,
    MAX_WINDOW,
    SEATS,
    SIDES,
    TABLE_HASH,
    WALL_PAGE_STACKS,
    ZONE_PAGE_UIDS,
    BuildWalls,
    Heartbeat,
    HeartbeatReply,
    Identify,
    IdentifyReply,
    QueryStatus,
    QueryWall,
    QueryZone,
    QueryZonePage,
    Rejected,
    WallBuilt,
    WallSide,
    WallTile,
    Zone,
    ZoneInventory,
    ZonePage,
)
from firmware_bridge.port import Port, PortOpener
from firmware_bridge.session import (
    Answered,
    EventArrived,
    EventRepeated,
    EventsLost,
    GaveUp,
    HostSession,
    McuRestarted,
    Outcome,
    SessionSettings,
    Transmit,
    Unsequenced,
)

log = logging.getLogger(__name__)
_SYNC, _UNSEQUENCED = int(Flag.SYNC), int(Flag.UNSEQUENCED)
_IDENTIFY_REPLY = IdentifyReply.TYPE
_NEVER = float("inf")
PROBES_PER_INTERVAL = 5
LATE_TRIES = 3
"""Times a state read is asked, while its replies may be older than the events since."""


_INTERRUPTED: tuple[type[BaseException], ...] = (
    LinkDown,
    McuReset,
    CommandTimeout,
    ProtocolMismatch,
    asyncio.CancelledError,
)
"""What interrupts a state re-query: the link reconnects and queries again by itself."""


@dataclass(frozen=True)
class LinkSettings:
    """Timing and reliability policy of the link (seconds)."""

    window: int = 16
    min_rto: float = 0.025
    max_rto: float = 1.0
    max_tries: int = 24
    heartbeat_interval: float = HEARTBEAT_INTERVAL_MS / 1000
    silence_timeout: float = 2.0
    reconnect_min: float = 0.05
    reconnect_max: float = 2.0
    connect_timeout: float = 5.0
    ring_size: int = 64
    ring_dump_interval: float = 60.0
    """The frame ring goes to the log at the first protocol error, then at most once in this
    long while errors go on (with how many came between): on a noisy line the errors come
    several a second, and a dump of 64 frames each time would fill a Pi's journal (about
    10 kB a second) with the same picture."""

    def __post_init__(self) -> None:
        if not 1 <= self.window <= MAX_WINDOW:
            raise ValueError(f"window must be 1..{MAX_WINDOW}")

    @property
    def session(self) -> SessionSettings:
        """The part the pure session core needs."""
        return SessionSettings(self.window, self.min_rto, self.max_rto, self.max_tries)


class State(Enum):
    """Where the link is in its life."""

    DOWN = "down"
    HANDSHAKE = "handshake"
    UP = "up"
    CLOSED = "closed"


@dataclass(eq=False, slots=True)
class _Call:
    """A command in flight as its caller sees it (the session core keeps the frames)."""

    command: Command[Any]
    future: asyncio.Future[Message]
    deliver: bool
    """Publish the reply to subscribers, in its place among the events."""
    part: "Part"
    """The part of the MCU's state the command reads."""
    events_then: int
    """How many events had come when it was sent."""
    fresh: bool = False
    """Only a reply no newer event may contradict will do."""
    late: bool = False
    """The reply came, but may be older than an event about the same part: not delivered."""
    told_before_reply: int = 0
    """The newest event about its part when the reply came (events after it are newer)."""

    @property
    def name(self) -> str:
        """The command's name, for messages."""
        return type(self.command).__name__


@dataclass
class _Loss:
    reason: str
    keep_port: bool
    error: type[LinkError] = LinkDown
    mcu_reset: bool = False


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
        jitter: Callable[[float, float], float] = random.uniform,
    ) -> None:
        self.settings = settings or LinkSettings()
        self.name = name
        self._jitter = jitter
        """Picks each reconnect pause between its two bounds (random; a test passes its own)."""
        self._opener = opener
        self._expected_hash = expected_hash
        self._state = State.DOWN
        self._port: Port | None = None
        self._generation = 0
        self._decoder = FrameDecoder()
        self._counters = Counters()
        self._session = HostSession(self.settings.session, self._counters)
        self._calls: dict[int, _Call] = {}
        self._waiters: deque[asyncio.Future[None]] = deque()
        self._timer: asyncio.TimerHandle | None = None
        self._due = _NEVER
        """When the timer is due (a float to compare: asking the timer costs a call)."""
        self._identify: IdentifyReply | None = None
        self._events = 0
        """Events delivered over the link's life."""
        self._newest: dict[Part, int] = {}
        """The number (in `_events`) of the newest event about each part of the state."""
        self._wall_changes = 0
        """Builds asked for and wall events seen over the link's life."""
        self._walls_read_at: int | None = None
        """`_wall_changes` when a re-query last read every wall side (None: not since the
        handshake): while it stands, the walls need no re-read (in play, none are built)."""
        self._subscriptions: list[Subscription] = []
        self._listeners: list[Callable[[Item], None]] = []
        self._ring = FrameRing(self.settings.ring_size)
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
        self._gaps = 0
        """Event gaps seen so far (the newest gap's number)."""
        self._min_rto = self.settings.min_rto
        """No command is due sooner after it is sent (a timer due by then is soon enough)."""
        self._loop: asyncio.AbstractEventLoop | None = None
        """The loop the link was started on (its events are bound to it anyway): asking
        asyncio for the running loop costs a system call on every frame."""
        self._clock: Callable[[], float] = _running_loop_time
        """The loop's clock: its `time`, bound while the link runs."""

    # ---- public API ------------------------------------------------------------------------

    async def start(self, wait: bool = True) -> None:
        """Connect in the background; with `wait`, until the first handshake (else raise)."""
        self._loop = asyncio.get_running_loop()
        self._clock = _loop_clock(self._loop)
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
        self._settled.set()  # whoever waits for the link hears that it is closed
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
        self._loop, self._clock = None, _running_loop_time

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
        return self._ring.lines(self._clock())

    def subscribe(self, *types: type) -> Subscription:
        """Receive MCU events and link notices (of `types` only, if given) from now on."""
        subscription = Subscription(types, self._subscriptions.remove)
        self._subscriptions.append(subscription)
        return subscription

    def listen(self, callback: Callable[[Item], None]) -> Callable[[], None]:
        """Call `callback` with every MCU event and link notice from now on, as it arrives
        (no queue and no task in between: for a watcher that only looks, such as the event
        feed); returns the way to stop. What it raises is logged, never raised into the link."""
        self._listeners.append(callback)
        return lambda: self._listeners.remove(callback) if callback in self._listeners else None

    async def wait_connected(self, within: float | None = None) -> None:
        """Wait until the link is up (TimeoutError after `within` s; the fatal error if it
        gave up, LinkDown if it was closed)."""
        async with asyncio.timeout(within):
            while self._state is not State.UP:
                if self._fatal is not None:
                    raise self._fatal
                if self._state is State.CLOSED:
                    raise LinkDown("the link was closed")
                await self._settled.wait()

    def request(self, command: Command[ReplyT]) -> Awaitable[ReplyT]:
        """Send a command, exactly once and in order; awaited, its reply (or a LinkError).

        In the usual case (up, nobody waiting, room in the window) the command goes out at
        once and what is returned is the reply's own future: no coroutine between the caller
        and the reply. A command that cannot be encoded fails where it is awaited, as it does
        when it has to wait for its turn."""
        if (
            self._state is State.UP
            and self._fatal is None
            and not self._waiters
            and not self._session.window_full()
        ):
            try:
                return self._send(command).future  # type: ignore[return-value]
            except BridgeError as error:
                return _failed(error)
        return cast(Awaitable[ReplyT], self._request(command, deliver=False))

    def resync(self, reason: str = "requested") -> None:
        """Re-query status, zones and walls now; snapshots then `Resynced` go to subscribers."""
        if self._resync_task is not None and not self._resync_task.done():
            self._resync_again = True
            return
        self._resync_task = asyncio.create_task(self._resync(reason), name="link-resync")

    # ---- connection life -------------------------------------------------------------------

    async def _supervise(self) -> None:
        """Connect, and connect again after each loss, until closed. A typed failure waits a
        backoff; a bug (any other exception) is logged with its traceback and counted, and the
        link goes on connecting: the table keeps its MCU rather than losing it silently."""
        attempt = 0
        while self._state is not State.CLOSED:
            try:
                await self._connect()
                attempt = 0
                await self._lost.wait()
                self._after_loss()
                continue
            except ProtocolMismatch as error:
                self._fatal = error
                self._give_up_connecting(error)
                return
            except (BridgeError, OSError) as error:
                self._last_error = error
            except Exception as error:
                self._counters.bugs += 1
                log.exception("bug in the %s link; connecting again", self.name)
                self._last_error = error
            self._drop_port()
            self._go_down()
            attempt += 1
            await asyncio.sleep(self._backoff(attempt))

    def _go_down(self) -> None:
        """Not connected (any more): waiters wait for the next handshake."""
        self._state = State.DOWN
        self._settled.clear()

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
        self._last_rx = self._clock()
        reply = await self._send(Identify(), _SYNC).future
        assert isinstance(reply, IdentifyReply)
        self._check_identity(reply)
        self._established(reply)

    def _check_identity(self, reply: IdentifyReply) -> None:
        wrong = identity_mismatch(self.name, reply, self._expected_hash)
        if wrong is not None:
            raise wrong

    def _established(self, reply: IdentifyReply) -> None:
        previous = self._identify
        mcu_reset = previous is not None and reply.boot_count != previous.boot_count
        self._identify = reply
        self._walls_read_at = None
        self._session.begin(reply.event_counter)
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
        self._go_down()
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
        return self._jitter(ceiling / 2, ceiling)

    async def _heartbeat(self) -> None:
        """A heartbeat every interval; a fifth of it after one still unanswered then: a few
        frames lost on a noisy line must not look like silence to either end."""
        interval = self.settings.heartbeat_interval
        probe = interval / PROBES_PER_INTERVAL
        while True:
            await asyncio.sleep(probe)
            if self._heartbeat_answered:
                await asyncio.sleep(interval - probe)
            if self._state is not State.UP:
                continue
            silent = self._clock() - self._last_rx
            if silent > self.settings.silence_timeout:
                self._mark_lost(_Loss(f"no frame for {silent:.1f} s", keep_port=False))
                continue
            self._heartbeat_answered = False
            self._write(self._session.unsequenced(Heartbeat.TYPE, _UNSEQUENCED).data)

    # ---- sending ---------------------------------------------------------------------------

    def _require_up(self) -> None:
        if self._fatal is not None:
            raise self._fatal
        if self._state is not State.UP:
            reason = self._loss.reason if self._loss else "not connected yet"
            raise LinkDown(f"the {self.name} is not connected: {reason}")

    def _send(
        self, command: Command[Any], flags: int = 0, deliver: bool = False, fresh: bool = False
    ) -> _Call:
        loop = self._loop or asyncio.get_running_loop()
        future: asyncio.Future[Message] = loop.create_future()
        now = self._clock()
        session = self._session
        seq, data = session.send(command.TYPE, encode_payload(command), now, flags)
        if type(command) is BuildWalls:
            self._wall_changes += 1
        part = part_read(command) if fresh else None  # (only a fresh read looks at its part)
        call = _Call(command, future, deliver, part, self._events, fresh)
        self._calls[seq] = call
        self._write(data, now)
        if self._due > now + self._min_rto and (self._timer is None or session.in_flight == 1):
            self._arm()  # the oldest command's deadline is this one's: the timer may be later
        return call

    def _write(self, data: bytes, now: float | None = None) -> None:
        port = self._port
        if port is None:
            return
        counters = self._counters
        counters.frames_sent += 1
        counters.bytes_sent += len(data)
        self._ring.add((self._clock() if now is None else now, "tx", data))
        port.write(data)

    def _arm(self) -> None:
        """Keep one timer, due no later than the session core's next deadline. A timer due
        earlier stays (it finds nothing due, and is set again then): a link answered in time
        sets its timer about once per timeout, not once per request."""
        deadline = self._session.next_deadline()
        timer = self._timer
        if timer is not None:
            if deadline is None or self._due <= deadline:
                return
            timer.cancel()
            self._timer, self._due = None, _NEVER
        if deadline is not None:
            self._timer = asyncio.get_running_loop().call_at(deadline, self._on_timeout)
            self._due = deadline

    def _on_timeout(self) -> None:
        self._timer, self._due = None, _NEVER
        self._apply(self._session.on_time(self._clock()))
        self._arm()

    def _fail_all(self, error: LinkError) -> None:
        self._session.drop_all()
        for seq in list(self._calls):
            self._fail(seq, error)
        self._arm()

    def _fail(self, seq: int, error: BaseException) -> None:
        """Command `seq` failed with `error`."""
        call = self._calls.pop(seq, None)
        if call is not None and not call.future.done():
            call.future.set_exception(error)
            call.future.add_done_callback(_consume_exception)
        if self._waiters:
            self._wake_next()

    # ---- receiving -------------------------------------------------------------------------

    def _on_data(self, data: bytes) -> None:
        self._counters.bytes_received += len(data)
        for item in self._decoder.feed(data):
            if type(item) is Frame:
                self._on_frame(item)
            else:
                self._on_bad_frame(cast(FrameError, item))

    def _on_bad_frame(self, error: FrameError) -> None:
        if isinstance(error, CrcError):
            self._counters.crc_errors += 1
        else:
            self._counters.frame_errors += 1
        now = self._clock()
        self._ring.add((now, "bad", error.raw))
        if isinstance(error, ForeignFrame):
            mismatch = version_mismatch(self.name, error.version)
            if mismatch is not None and self._fatal is None:
                self._on_mismatch(mismatch)
                return
        self._ring.dump(now, str(error), self.settings.ring_dump_interval)

    def _protocol_error(self, reason: str) -> None:
        self._counters.protocol_errors += 1
        self._ring.dump(self._clock(), reason, self.settings.ring_dump_interval)

    def _on_frame(self, frame: Frame) -> None:
        self._counters.frames_received += 1
        self._last_rx = now = self._clock()
        self._ring.add((now, "rx", frame))
        session = self._session
        outcomes = session.receive(frame, now)
        if len(outcomes) == 1 and type(answer := outcomes[0]) is Answered:
            self._on_answer(*answer)  # the usual outcome: a reply, on its own
        else:
            self._apply(outcomes)
        if session.in_flight:
            self._arm()  # a newer oldest command may be due before the timer

    def _apply(self, outcomes: list[Outcome]) -> None:
        """Carry out what the session core decided."""
        for outcome in outcomes:
            match outcome:
                case Answered(seq, frame, late):
                    self._on_answer(seq, frame, late)
                case Transmit(data):
                    self._write(data)
                case GaveUp(seq, tries):
                    self._on_given_up(seq, tries)
                case EventArrived(frame):
                    self._on_event(frame)
                case EventsLost(missed):
                    self._on_gap(missed)
                case EventRepeated(number):
                    self._protocol_error(f"event number {number} repeated")
                case McuRestarted():
                    self._mark_lost(_Loss("the table MCU restarted", True, McuReset, True))
                case Unsequenced(frame) if frame.type == HeartbeatReply.TYPE:
                    self._on_heartbeat_reply(frame)

    def _on_given_up(self, seq: int, tries: int) -> None:
        call = self._calls.get(seq)
        reason = f"{call.name if call else 'a command'} went unanswered after {tries} tries"
        self._fail(seq, CommandTimeout(f"{self.name}: {reason}"))
        self._mark_lost(_Loss(reason, keep_port=False))

    def _on_mismatch(self, error: ProtocolMismatch) -> None:
        """The table speaks another protocol version: nothing it says can be read."""
        self._fatal = error
        self._protocol_error(str(error))
        self._fail_all(error)

    def _on_answer(self, seq: int, frame: Frame, late: bool) -> None:
        call = self._calls.get(seq)
        if call is None:
            return
        if frame.type == _IDENTIFY_REPLY:
            # A table of another protocol version says which before the rest can be read.
            version = reply_version(frame.payload)
            mismatch = None if version is None else version_mismatch(self.name, version)
            if mismatch is not None:
                self._fail(seq, mismatch)
                return
        if call.fresh:
            # The MCU resent the reply it kept: older than an event since about the same part?
            newest = self._events if call.part is None else self._newest.get(call.part, 0)
            call.late = late and newest > call.events_then
            call.told_before_reply = newest
        try:
            reply = decode_payload(frame.type, frame.payload)
        except MessageError as error:
            self._protocol_error(f"reply to {call.name}: {error}")
            self._fail(seq, error)
            return
        expected = call.command.REPLY
        bounded = type(reply) in BOUNDED  # (most replies carry no seat, side or dice)
        if bounded and isinstance(reply, expected) and (wrong := self._out_of_bounds(reply)):
            self._protocol_error(f"reply to {call.name}: {wrong}")
            self._fail(seq, UnexpectedReply(f"{call.name} answered with {wrong}"))
        elif isinstance(reply, expected):
            del self._calls[seq]  # (answered: as `_fail`, with the reply)
            if not call.future.done():
                call.future.set_result(reply)
            if self._waiters:
                self._wake_next()
            if call.late:
                self._counters.late_replies += 1
            elif call.deliver:
                self._publish(reply)
        elif isinstance(reply, Rejected):
            refused = CommandRejected(call.name, reply.reason, reply.reason.name, reply.detail)
            self._fail(seq, refused)
        else:
            reason = f"{call.name} answered with {type(reply).__name__}"
            self._protocol_error(reason)
            self._fail(seq, UnexpectedReply(reason))

    def _on_event(self, frame: Frame) -> None:
        try:
            event = decode_payload(frame.type, frame.payload)
        except MessageError as error:
            self._protocol_error(f"event: {error}")
            return
        if wrong := self._out_of_bounds(event):
            self._protocol_error(f"event: {wrong}")
            return
        self._events += 1
        part = part_told(event)
        if part is not None:
            self._newest[part] = self._events
            if part[0] is PartKind.WALL:
                self._wall_changes += 1
        self._publish(event)

    def _out_of_bounds(self, message: Message) -> str:
        if type(message) not in BOUNDED:
            return ""
        identify = self._identify
        return out_of_bounds(message, identify.seats if identify is not None else SEATS)

    def _on_heartbeat_reply(self, frame: Frame) -> None:
        try:
            reply = decode_payload(frame.type, frame.payload)
        except MessageError as error:
            self._protocol_error(f"heartbeat reply: {error}")
            return
        assert isinstance(reply, HeartbeatReply)
        self._heartbeat_answered = True
        if self._state is State.UP:
            self._apply(self._session.counter_seen(reply.event_counter))

    def _on_gap(self, missed: int) -> None:
        self._protocol_error(f"{missed} event(s) from the table MCU were lost")
        self._gaps += 1
        self._publish(EventGap(missed, self._gaps))
        self.resync(f"{missed} event(s) lost")

    def _publish(self, item: Item) -> None:
        for subscription in list(self._subscriptions):
            subscription.put(item)
        for listener in list(self._listeners):
            try:
                listener(item)
            except Exception:
                log.exception(
                    "a watcher of the %s link failed on %s", self.name, type(item).__name__
                )

    async def _resync(self, reason: str) -> None:
        while True:
            self._resync_again = False
            covers = self._gaps
            identify = self._identify
            if identify is None:
                return
            changes = self._wall_changes
            sides = range(SIDES) if self._walls_read_at != changes else range(0)
            # The whole batch ends before anything is decided: a failed query must not have
            # the others asked again while they are still in flight.
            outcomes = await asyncio.gather(
                self._request(QueryStatus(), deliver=True),
                *(self._query_zone(seat, zone) for seat, zone in _zones(identify)),
                *(self._query_side(side) for side in sides),
                return_exceptions=True,
            )
            failures = [error for error in outcomes if isinstance(error, BaseException)]
            if any(isinstance(error, _INTERRUPTED) for error in failures):
                log.info("state re-query interrupted: %s", failures[0])
                return  # the link reconnects and re-queries by itself
            if failures and all(isinstance(error, BridgeError) for error in failures):
                log.info("state re-query failed (%s): querying again", failures[0])
                self._resync_again = True
                await asyncio.sleep(self.settings.min_rto)
                continue
            if failures:  # a bug: said with its traceback and counted; the link goes on
                self._counters.bugs += 1
                bug = next(e for e in failures if not isinstance(e, BridgeError))
                log.error("bug in the %s link's state re-query", self.name, exc_info=bug)
                return
            if sides and self._wall_changes == changes:
                self._walls_read_at = changes
            # Published even if gaps came meanwhile: on a lossy line they come faster than a
            # re-query ends, and what came before this one began is known now.
            self._publish(Resynced(reason, covers))
            if not self._resync_again:
                return

    async def read_zones(self, token: float) -> None:
        """Read every zone antenna once more, one zone after another: each inventory goes to
        subscribers in its place among the events, then `ZonesRead(token)`. A LinkError
        stops the read (no `ZonesRead`)."""
        identify = self._identify
        if identify is None:
            raise LinkDown(f"the {self.name} is not connected: no handshake yet")
        for seat, zone in _zones(identify):
            await self._query_zone(seat, zone)
        self._publish(ZonesRead(token))

    async def _query_zone(self, seat: int, zone: Zone) -> ZoneInventory:
        """One zone's inventory, read page by page (`query_zone_page`: small frames survive a
        noisy line), published among the events unless an event about the zone came while
        it was read (that event told a newer state)."""
        part = (PartKind.ZONE, seat, zone)
        for _ in range(LATE_TRIES):
            call = await self._answered(QueryZonePage(seat, zone), deliver=False, fresh=True)
            first = cast(ZonePage, call.future.result())
            since = call.told_before_reply  # the list was read when page 0 was answered
            stale = call.late  # still older than an event after LATE_TRIES
            pages = [
                self._request(QueryZonePage(seat, zone, start), deliver=False, fresh=True)
                for start in range(ZONE_PAGE_UIDS, first.total, ZONE_PAGE_UIDS)
            ]
            rest = cast(list[ZonePage], await asyncio.gather(*pages))
            uids = first.uids + tuple(uid for page in rest for uid in page.uids)
            if len(uids) == first.total and all(page.total == first.total for page in rest):
                break  # the pages of one list (else it was read again meanwhile: once more)
        else:
            raise UnexpectedReply(f"the pages of zone {seat}/{zone.name} did not fit together")
        inventory = ZoneInventory(seat, zone, uids)
        if not stale and self._newest.get(part, 0) == since:
            self._publish(inventory)
        return inventory

    async def wall_side(self, side: int) -> WallSide:
        """Every tile placed so far on one side, read page by page (`query_wall`)."""
        return await self._query_side(side, deliver=False)

    async def _query_side(self, side: int, deliver: bool = True) -> WallSide:
        page = QueryWall(side, 0, WALL_PAGE_STACKS)
        first = cast(WallSide, await self._request(page, deliver=False, fresh=deliver))
        stacks = -(-first.tiles_per_side // first.layers) if first.layers else 0
        pages = [
            self._request(QueryWall(side, start, WALL_PAGE_STACKS), deliver=False, fresh=deliver)
            for start in range(WALL_PAGE_STACKS, stacks, WALL_PAGE_STACKS)
        ]
        rest = cast(list[WallSide], await asyncio.gather(*pages))
        slots = first.slots + tuple(slot for page in rest for slot in page.slots)
        whole = WallSide(side, first.tiles_per_side, first.layers, slots)
        if deliver:
            self._publish(whole)
        return whole

    async def _request(self, command: Command[Any], deliver: bool, fresh: bool = False) -> Message:
        """Send, wait for the reply; `deliver` publishes it among the events. A state read
        (`fresh`, and always when delivered) whose reply may be older than events seen since
        is asked again, up to LATE_TRIES times; the last reply is then returned undelivered:
        the events since told that part anyway."""
        return (await self._answered(command, deliver, fresh)).future.result()

    async def _answered(self, command: Command[Any], deliver: bool, fresh: bool) -> _Call:
        """As `_request`; the call whose reply was taken."""
        for _ in range(LATE_TRIES):
            self._require_up()
            if self._waiters or self._window_full():
                await self._wait_turn()
            call = self._send(command, deliver=deliver, fresh=fresh or deliver)
            if not self._window_full():
                self._wake_next()
            await call.future
            if not call.late:
                break
        return call

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
        return self._session.window_full()

    def _wake_next(self) -> None:
        """Let the first waiter look at the window again."""
        if self._waiters and not self._waiters[0].done():
            self._waiters[0].set_result(None)

    def _wake_all(self) -> None:
        for waiter in self._waiters:
            if not waiter.done():
                waiter.set_result(None)


class PartKind(IntEnum):
    """What a part of the MCU's state is (an int, so that parts hash fast as dict keys)."""

    ZONE = 0
    WALL = 1


Part = tuple[PartKind, int, int] | None
"""A part of the MCU's state: one zone (ZONE, seat, zone), one wall side (WALL, side, 0);
None: the whole status (any event may change it)."""


_READS = frozenset({QueryZone, QueryZonePage, QueryWall})
"""The commands that read one part of the MCU's state (the others: the whole, or none)."""


def part_read(command: Command[Any]) -> Part:
    """The part of the MCU's state a command reads."""
    if type(command) not in _READS:
        return None
    match command:
        case QueryZone(seat, zone) | QueryZonePage(seat, zone, _, _):
            return (PartKind.ZONE, seat, zone)
        case QueryWall(side, _, _):
            return (PartKind.WALL, side, 0)
    return None


def part_told(event: Message) -> Part:
    """The part of the MCU's state an event tells of."""
    match event:
        case ZoneInventory(seat, zone, _):
            return (PartKind.ZONE, seat, zone)
        case WallTile(side, _, _, _) | WallBuilt(side, _):
            return (PartKind.WALL, side, 0)
    return None


def _loop_clock(loop: asyncio.AbstractEventLoop) -> Callable[[], float]:
    """The loop's clock: `time.monotonic` itself where the loop's `time` is asyncio's own (all
    it does is call it: a Python call less on every frame), else the loop's `time`."""
    if getattr(loop.time, "__func__", None) is asyncio.BaseEventLoop.time:
        return time.monotonic
    return loop.time


def _running_loop_time() -> float:
    return asyncio.get_running_loop().time()


def _zones(identify: IdentifyReply) -> list[tuple[int, Zone]]:
    return [(seat, zone) for seat in range(identify.seats) for zone in Zone]


async def _failed(error: BaseException) -> Any:
    raise error


def _consume_exception(future: asyncio.Future[Message]) -> None:
    if not future.cancelled():
        future.exception()
