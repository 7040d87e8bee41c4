"""The control socket: a UNIX socket the `diag` commands talk to while the daemon runs.

Mode 0660, group `mahjong` (when that group exists), so anyone in the group may ask and
nobody else may connect. Each line read is bounded (MAX_LINE_BYTES) and decoded in one place.
Nobody can lock a technician out: a client that sends no whole line within `idle_s` is told
so and closed; the rate limit is shared by all clients (reconnecting does not refill it);
beyond MAX_CLIENTS one more connection is kept for `status`, and `status` has its own
allowance when the shared one is spent. Every refusal is an error reply in words, counted.
"""

import asyncio
import contextlib
import grp
import logging
import os
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path

import msgspec

from controller.diag import protocol as wire
from controller.diag.events import EventLine, FeedHandler
from controller.diag.ports import Prompt
from controller.diag.protocol import ErrorCode, Kind, Op, Refusal, Request
from controller.diag.reports import Refused
from controller.diag.service import carry_out
from controller.diag.target import DiagTarget
from controller.errors import TableError

log = logging.getLogger(__name__)
GROUP = "mahjong"
MODE = 0o660
MAX_CLIENTS = 8
STATUS_SLOTS = 1
"""Connections beyond MAX_CLIENTS that may still ask for `status` (and only that)."""
MAX_CONNECTIONS = 64
"""Beyond this many open connections a new one is closed unread (each waits at most idle_s)."""
RATE_PER_S = 5.0
BURST = 10
STATUS_RATE_PER_S = 1.0
STATUS_BURST = 3
"""`status` requests may go on at this rate when the shared allowance is spent."""
IDLE_S = 10.0
ANSWER_WAIT_S = 600.0
"""How long a prompt waits for the technician's answer."""


class TokenBucket:
    """At most `burst` requests at once, refilled at `rate` per second (time passed in)."""

    def __init__(self, rate: float, burst: int, now: float) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = float(burst)
        self.at = now

    def take(self, now: float) -> bool:
        """True if a request may go ahead at `now`."""
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


class ControlServer:
    """Serves diag requests on the control socket until cancelled."""

    def __init__(
        self,
        path: Path,
        target: DiagTarget,
        feed_loggers: tuple[str, ...] = (),
        idle_s: float = IDLE_S,
    ) -> None:
        self.path = path
        self.idle_s = idle_s
        """A client must send each whole request line within this many seconds."""
        self.target = target
        self.feed_loggers = feed_loggers
        """Loggers whose records go into the event feed while the socket is served."""
        self.refused: Counter[ErrorCode] = Counter()
        """Requests refused, by why (bad lines, too large, too fast, busy)."""
        self.clients = 0
        self.group_note = ""
        self.settled = asyncio.Event()
        """Set once the socket listens, or has been given up (the daemon is ready then)."""
        self.allowance: TokenBucket | None = None
        """Requests from all clients together (made when the socket is served)."""
        self.status_allowance: TokenBucket | None = None

    async def run(self) -> None:
        """Listen on the socket (replacing a stale one) and serve until cancelled. A socket
        that cannot be made is logged and given up: the table plays on without it."""
        try:
            server = await self._listen()
        except OSError as error:
            log.warning("no control socket, diag works only with the daemon stopped: %s", error)
            self.settled.set()
            return
        now = asyncio.get_running_loop().time()
        self.allowance = TokenBucket(RATE_PER_S, BURST, now)
        self.status_allowance = TokenBucket(STATUS_RATE_PER_S, STATUS_BURST, now)
        feed = self.target.feed
        unwatch = None
        handler: logging.Handler | None = None
        if feed is not None:
            feed.bind(asyncio.get_running_loop())
            unwatch = self.target.mcu.watch(lambda text: feed.add("mcu", text))
            handler = FeedHandler(feed)
            for name in self.feed_loggers:
                logging.getLogger(name).addHandler(handler)
        try:
            self._secure()
            log.info("control socket %s (%s)", self.path, self.group_note)
            self.settled.set()
            async with server:
                await server.serve_forever()
        finally:
            if unwatch is not None:
                unwatch()
            if handler is not None:
                for name in self.feed_loggers:
                    logging.getLogger(name).removeHandler(handler)
            with contextlib.suppress(FileNotFoundError):
                self.path.unlink()

    async def _listen(self) -> asyncio.Server:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self.path.is_socket():
            if await _answers(self.path):
                raise OSError(f"{self.path}: another daemon serves this socket")
            self.path.unlink()  # left behind by a daemon that was killed
        return await asyncio.start_unix_server(
            self._serve, path=self.path, limit=wire.MAX_LINE_BYTES + 1
        )

    def _secure(self) -> None:
        self.path.chmod(MODE)
        try:
            gid = grp.getgrnam(GROUP).gr_gid
        except KeyError:
            self.group_note = f"no group '{GROUP}': only this daemon's own user may connect"
            log.warning("control socket: %s", self.group_note)
            return
        try:
            os.chown(self.path, -1, gid)
            self.group_note = f"group {GROUP}, mode 0660"
        except PermissionError:
            self.group_note = f"not in group '{GROUP}': socket left in this user's group"
            log.warning("control socket: %s", self.group_note)

    def _refuse(self, refusal: Refusal) -> bytes:
        self.refused[refusal.code] += 1
        log.warning("control socket: refused a request: %s", refusal.message)
        return wire.error_reply(refusal.code, refusal.message)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.clients += 1
        try:
            if self.clients > MAX_CONNECTIONS:  # a flood: say why, read nothing more
                writer.write(self._refuse(self._full()))
                return
            if self.clients > MAX_CLIENTS + STATUS_SLOTS:
                await self._turn_away(reader, writer)
                return
            await self._session(reader, writer, status_only=self.clients > MAX_CLIENTS)
        except (ConnectionError, TimeoutError, asyncio.IncompleteReadError):
            pass
        finally:
            self.clients -= 1
            writer.close()
            with contextlib.suppress(ConnectionError):
                await writer.wait_closed()

    async def _turn_away(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Say why, then wait for the client's line (closing on an unread line would reset
        the connection before the client reads the reason)."""
        writer.write(self._refuse(self._full()))
        await writer.drain()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(self.idle_s):
                await _read_line(reader)

    @staticmethod
    def _full() -> Refusal:
        return Refusal(
            ErrorCode.BUSY,
            f"the control socket is full: {MAX_CLIENTS} clients and one `status` are "
            "connected; try again when one of them hangs up",
        )

    async def _session(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, status_only: bool
    ) -> None:
        while True:
            line = await self._next_line(reader)
            if line is None:
                return
            if isinstance(line, Refusal):
                writer.write(self._refuse(line))
                await writer.drain()
                return  # the rest of an oversized or unfinished line cannot be trusted
            request = wire.decode_request(line)
            refusal = request if isinstance(request, Refusal) else None
            if refusal is None and isinstance(request, Request):
                refusal = self._admit(request, status_only)
            if refusal is not None:
                writer.write(self._refuse(refusal))
            elif isinstance(request, Request):
                writer.write(await self._answer(request, reader, writer))
            await writer.drain()

    async def _next_line(self, reader: asyncio.StreamReader) -> bytes | Refusal | None:
        """The next request line, or a refusal when none is whole within idle_s."""
        try:
            async with asyncio.timeout(self.idle_s):
                return await _read_line(reader)
        except TimeoutError:
            return Refusal(
                ErrorCode.IDLE,
                f"no whole request line within {self.idle_s:g} s: closed (a request is one "
                "JSON object ending in a newline)",
            )

    def _admit(self, request: Request, status_only: bool) -> Refusal | None:
        """Why this request may not go ahead now (None: it may)."""
        if status_only and request.op is not Op.STATUS:
            return Refusal(
                ErrorCode.BUSY,
                f"{MAX_CLIENTS} clients are connected: this connection may only ask for "
                "status; try again when one of them hangs up",
            )
        assert self.allowance is not None and self.status_allowance is not None
        now = asyncio.get_running_loop().time()
        if self.allowance.take(now):
            return None
        if request.op is Op.STATUS and self.status_allowance.take(now):
            return None
        return Refusal(
            ErrorCode.TOO_FAST,
            f"the control socket takes at most {RATE_PER_S:.0f} requests a second from all "
            "clients together: try again in a second",
        )

    async def _answer(
        self, request: Request, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> bytes:
        prompter = SocketPrompter(reader, writer)

        async def send_event(line: EventLine) -> None:
            writer.write(wire.reply(Kind.EVENT, line))
            await writer.drain()

        try:
            if request.follow:
                return await self._follow(request, reader, prompter, send_event)
            report = await carry_out(self.target, request, prompter, send_event)
        except Refused as error:
            return self._refuse(Refusal(error.code, str(error)))
        except TableError as error:
            return wire.error_reply(ErrorCode.FAILED, str(error))
        return wire.reply(Kind.RESULT, report)

    async def _follow(
        self,
        request: Request,
        reader: asyncio.StreamReader,
        prompter: "SocketPrompter",
        send_event: Callable[[EventLine], Awaitable[None]],
    ) -> bytes:
        """A tail runs until the client hangs up (noticed even while no line comes)."""
        tail = asyncio.ensure_future(carry_out(self.target, request, prompter, send_event))
        hangup = asyncio.ensure_future(reader.read(1))
        try:
            await asyncio.wait({tail, hangup}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            hangup.cancel()
        if not tail.done():
            tail.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await tail
            return b""
        return wire.reply(Kind.RESULT, tail.result())


async def _answers(path: Path) -> bool:
    try:
        _, writer = await asyncio.open_unix_connection(path)
    except OSError:
        return False
    writer.close()
    return True


async def _read_line(reader: asyncio.StreamReader) -> bytes | Refusal | None:
    """One line without its newline; None at the end; a Refusal if it is too long."""
    try:
        line = await reader.readuntil(b"\n")
    except asyncio.IncompleteReadError as end:
        return end.partial.strip() or None
    except asyncio.LimitOverrunError:
        return Refusal(ErrorCode.TOO_LARGE, f"a request is at most {wire.MAX_LINE_BYTES} bytes")
    return line.rstrip(b"\r\n")


class SocketPrompter:
    """Prompts go to the client as reply lines; its answers come back as Answer lines."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer

    async def tell(self, prompt: Prompt) -> None:
        """Send a prompt that needs no answer."""
        self.writer.write(wire.reply(Kind.PROMPT, msgspec.structs.replace(prompt, answer=False)))
        await self.writer.drain()

    async def ask(self, prompt: Prompt) -> bool:
        """Send a prompt and wait for the client's answer."""
        self.writer.write(wire.reply(Kind.PROMPT, prompt))
        await self.writer.drain()
        async with asyncio.timeout(ANSWER_WAIT_S):
            line = await _read_line(self.reader)
        if line is None:
            raise ConnectionError("the client went away during a prompt")
        answer = wire.decode_answer(line) if isinstance(line, bytes) else line
        if isinstance(answer, Refusal):
            raise TableErrorAnswer(answer.message)
        return answer.yes


class TableErrorAnswer(TableError):
    """The client's answer to a prompt was not an answer."""
