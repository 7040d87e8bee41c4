"""A small HTTP/1.1 server on asyncio streams: one request per connection (Connection:
close), except the server-sent event streams, which stay open.

Requests are untrusted input: this is the one place that decodes them, with bounds on the
request head (8 KiB) and body (16 KiB) and a time limit to send them; anything else is a
refusal (400/408/413), counted and logged, never an exception out of the server.
"""

import asyncio
import contextlib
import dataclasses
import logging
import ssl
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from http.cookies import CookieError, SimpleCookie
from urllib.parse import parse_qs, unquote, urlsplit

_log = logging.getLogger(__name__)
HEAD_LIMIT = 8 * 1024
BODY_LIMIT = 16 * 1024
READ_TIMEOUT_S = 10.0
_REASONS = {
    200: "OK",
    303: "See Other",
    400: "Bad Request",
    403: "Forbidden",
    404: "Not Found",
    405: "Method Not Allowed",
    408: "Request Timeout",
    413: "Content Too Large",
    429: "Too Many Requests",
    503: "Service Unavailable",
}


class BadRequest(Exception):
    """A request this server refuses, with the status to answer."""

    def __init__(self, status: int, why: str) -> None:
        super().__init__(why)
        self.status = status


@dataclass(frozen=True)
class Request:
    """One decoded request."""

    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    form: dict[str, str]
    cookies: dict[str, str]
    client: str = ""
    """The client's address."""


@dataclass
class Response:
    """A whole response (pages, redirects, errors)."""

    status: int = 200
    body: bytes = b""
    content_type: str = "text/html; charset=utf-8"
    headers: dict[str, str] = field(default_factory=dict)


class EventStream:
    """A server-sent event stream to one browser, opened (its 200 head sent) by the first
    event or comment."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self._writer = writer
        self.opened = False

    def _open(self) -> None:
        if not self.opened:
            self.opened = True
            self._writer.write(_head(200, "text/event-stream", {"Cache-Control": "no-store"}))

    async def send(self, event: str, data: str) -> None:
        """One event; raises ConnectionError once the browser is gone."""
        self._open()
        lines = "".join(f"data: {line}\n" for line in data.split("\n"))
        self._writer.write(f"event: {event}\n{lines}\n".encode())
        await self._writer.drain()

    async def comment(self) -> None:
        """A keep-alive line the browser ignores."""
        self._open()
        self._writer.write(b": alive\n\n")
        await self._writer.drain()


Handler = Callable[[Request], Awaitable[Response]]
StreamHandler = Callable[[Request, EventStream], Awaitable[Response | None]]
"""Serves one event stream until the browser goes; a Response returned before the first
event refuses the stream (a browser's EventSource stops on a status other than 200)."""


@dataclass
class HttpCounters:
    """What the server has served and refused."""

    served: int = 0
    refused: int = 0
    streams: int = 0


class HttpServer:
    """Routes each request to `handle`, or to `stream` for paths in `stream_paths`."""

    def __init__(self, handle: Handler, stream: StreamHandler, stream_paths: set[str]) -> None:
        self.handle = handle
        self.stream = stream
        self.stream_paths = stream_paths
        self.counters = HttpCounters()

    async def serve(
        self, host: str, port: int, tls: ssl.SSLContext | None, started: asyncio.Event | None
    ) -> None:
        """Listen until cancelled."""
        server = await asyncio.start_server(self._connection, host, port, ssl=tls, limit=HEAD_LIMIT)
        self.port = int(server.sockets[0].getsockname()[1])
        if started is not None:
            started.set()
        async with server:
            await server.serve_forever()

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            try:
                async with asyncio.timeout(READ_TIMEOUT_S):
                    request = await read_request(reader)
                request = dataclasses.replace(request, client=_peer(writer))
            except TimeoutError:
                raise BadRequest(408, "the request did not arrive in time") from None
            if request.path in self.stream_paths and request.method == "GET":
                await self._stream(request, writer)
                return
            response = await self.handle(request)
            self.counters.served += 1
            _write(writer, response)
            await writer.drain()
        except BadRequest as exc:
            self.counters.refused += 1
            _log.warning("dashboard refused a request: %s", exc)
            with contextlib.suppress(ConnectionError):
                _write(writer, Response(exc.status, f"{exc}\n".encode(), "text/plain"))
                await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()
            with contextlib.suppress(ConnectionError, ssl.SSLError):
                await writer.wait_closed()

    async def _stream(self, request: Request, writer: asyncio.StreamWriter) -> None:
        events = EventStream(writer)
        refused = await self.stream(request, events)
        if refused is None or events.opened:
            self.counters.streams += 1
            return
        self.counters.refused += 1
        _log.warning("dashboard refused an event stream: %s", refused.body.decode().strip())
        _write(writer, refused)
        await writer.drain()


async def read_request(reader: asyncio.StreamReader) -> Request:
    """Decode one request head and body, within the bounds."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.LimitOverrunError:
        raise BadRequest(413, f"request head over {HEAD_LIMIT} bytes") from None
    except asyncio.IncompleteReadError as exc:
        raise BadRequest(400, "connection closed mid-request") from exc
    try:
        lines = head.decode("latin-1").split("\r\n")
        method, target, version = lines[0].split(" ")
    except ValueError:
        raise BadRequest(400, "malformed request line") from None
    if not version.startswith("HTTP/1.") or method not in ("GET", "POST"):
        raise BadRequest(405 if version.startswith("HTTP/1.") else 400, f"not served: {method}")
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if line:
            name, sep, value = line.partition(":")
            if not sep:
                raise BadRequest(400, "malformed header line")
            headers[name.strip().lower()] = value.strip()
    body = await _body(reader, headers)
    url = urlsplit(target)
    form = _pairs(body.decode("utf-8", "replace")) if body else {}
    return Request(method, unquote(url.path), _pairs(url.query), headers, form, _cookies(headers))


async def _body(reader: asyncio.StreamReader, headers: dict[str, str]) -> bytes:
    if "transfer-encoding" in headers:
        raise BadRequest(400, "chunked bodies are not accepted")
    try:
        length = int(headers.get("content-length", "0"))
    except ValueError:
        raise BadRequest(400, "bad Content-Length") from None
    if not 0 <= length <= BODY_LIMIT:
        raise BadRequest(413, f"body over {BODY_LIMIT} bytes")
    try:
        return await reader.readexactly(length) if length else b""
    except asyncio.IncompleteReadError as exc:
        raise BadRequest(400, "body shorter than its Content-Length") from exc


def _peer(writer: asyncio.StreamWriter) -> str:
    peer = writer.get_extra_info("peername")
    return str(peer[0]) if isinstance(peer, tuple) and peer else "?"


def _pairs(text: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(text, keep_blank_values=True).items()}


def _cookies(headers: dict[str, str]) -> dict[str, str]:
    jar: SimpleCookie = SimpleCookie()
    with contextlib.suppress(CookieError):
        jar.load(headers.get("cookie", ""))
    return {k: m.value for k, m in jar.items()}


def _head(status: int, content_type: str, extra: dict[str, str]) -> bytes:
    lines = [
        f"HTTP/1.1 {status} {_REASONS.get(status, 'Error')}",
        f"Content-Type: {content_type}",
        "X-Content-Type-Options: nosniff",
        "X-Frame-Options: DENY",
    ]
    lines += [f"{k}: {v}" for k, v in extra.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def _write(writer: asyncio.StreamWriter, response: Response) -> None:
    extra = {
        "Content-Length": str(len(response.body)),
        "Connection": "close",
        "Cache-Control": "no-store",
        **response.headers,
    }
    writer.write(_head(response.status, response.content_type, extra) + response.body)
