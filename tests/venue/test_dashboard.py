"""The dashboard's HTTP side against a real recorder on a real mosquitto: requests are bounded
and refused in plain words, the floor is read-only without a login, an operator logs in from
the password file and starts and pauses a session on a table through signed hub commands, and
the event stream pushes the floor again after each batch the recorder commits."""

import asyncio
import contextlib
import http.client
import io
import json
import urllib.parse
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from controller.cli import main
from controller.clock import Clock
from controller.errors import ConfigError, UsageError
from controller.venue.dashboard.app import COOKIE, LIVE_VIEWS, Dashboard
from controller.venue.dashboard.auth import Outcome, Sessions, hash_password, load_operators
from controller.venue.dashboard.http import HttpServer
from controller.venue.dashboard.options import http_address
from controller.venue.dashboard.pages import SESSION_ENDED
from controller.venue.recorder import Recorder
from controller.venue.store_view import StoreView
from controller.venue.tournament.definition import Tournament, load_tournament
from devsupport.mosquitto import Broker
from tests.hub.factories import SessionBook, hand_result
from tests.hub.helpers import eventually, make_link, make_recorder, running
from tests.venue.test_tournament import DEFINITION

pytestmark = pytest.mark.broker


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    body: str


@dataclass
class Site:
    dashboard: Dashboard
    server: HttpServer

    async def get(self, path: str, cookie: str = "") -> Reply:
        return await self.send("GET", path, cookie=cookie)

    async def send(self, method: str, path: str, form: dict[str, str] | None = None,
                   cookie: str = "") -> Reply:  # fmt: skip
        """One request from a client thread (the server runs on this loop)."""
        return await asyncio.to_thread(self._request, method, path, form, cookie)

    def _request(self, method: str, path: str, form: dict[str, str] | None = None,
                 cookie: str = "") -> Reply:  # fmt: skip
        conn = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=10)
        body = urllib.parse.urlencode(form).encode() if form is not None else None
        headers = {"Content-Type": "application/x-www-form-urlencoded"} if form else {}
        if cookie:
            headers["Cookie"] = f"{COOKIE}={cookie}"
        conn.request(method, path, body=body, headers=headers)
        response = conn.getresponse()
        reply = Reply(response.status, dict(response.getheaders()), response.read().decode())
        conn.close()
        return reply


@contextlib.asynccontextmanager
async def site(
    broker: Broker, tmp_path: Path, users: Path | None = None, tournament: Path | None = None
) -> AsyncIterator[Site]:
    recorder = make_recorder(broker.url, tmp_path / "hub.db")
    sessions = Sessions.fresh(load_operators(users)) if users else None
    cup = load_tournament(tournament) if tournament else None
    async with serving(recorder, sessions, cup) as served:
        yield served


@contextlib.asynccontextmanager
async def serving(
    recorder: Recorder,
    sessions: Sessions | None = None,
    tournament: Tournament | None = None,
    clock: Clock | None = None,
) -> AsyncIterator[Site]:
    """The recorder running with its dashboard served on a free port, as `hub --http` does:
    the dashboard reads the store's copy the recorder keeps."""
    view = StoreView()
    await recorder.store.call(view.load)
    recorder.view = view
    dashboard = Dashboard(recorder, view, sessions, tournament, clock)
    dashboard.attach()
    server = HttpServer(dashboard.handle, dashboard.stream, {"/events"})
    started = asyncio.Event()
    async with running(recorder.run()), running(server.serve("127.0.0.1", 0, None, started)):
        await started.wait()
        await eventually(recorder.connected.is_set, "recorder online")
        yield Site(dashboard, server)


async def login_form(s: Site) -> tuple[dict[str, str], str]:
    """The login form's fields (its token, the operator's name) and its session cookie."""
    page = await s.get("/login")
    cookie = page.headers["Set-Cookie"].split(";")[0].split("=", 1)[1]
    token = page.body.split('name=token value="')[1].split('"')[0]
    return {"token": token, "name": "referee"}, cookie


def _users(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "operators"

    monkeypatch.setattr("sys.stdin", io.StringIO("correct horse battery\n"))
    assert main(["hub", "dashboard-user", str(path), "referee"]) == 0
    assert path.stat().st_mode & 0o777 == 0o600
    assert "correct horse" not in path.read_text()
    return path


async def test_bad_requests_are_refused_and_counted(broker: Broker, tmp_path: Path) -> None:
    async with site(broker, tmp_path) as s:
        for raw in (b"NONSENSE\r\n\r\n", b"GET / HTTP/1.1\r\nX: " + b"y" * 9000 + b"\r\n\r\n",
                    b"POST /login HTTP/1.1\r\nContent-Length: 99999\r\n\r\n"):  # fmt: skip
            reader, writer = await asyncio.open_connection("127.0.0.1", s.server.port)
            writer.write(raw)
            await writer.drain()
            answer = await asyncio.wait_for(reader.read(), 10)
            writer.close()
            assert answer.split(b" ")[1] in (b"400", b"405", b"413"), answer
        assert s.server.counters.refused == 3
        assert (await s.get("/")).status == 200  # still serving


async def test_read_only_without_a_login(broker: Broker, tmp_path: Path) -> None:
    async with site(broker, tmp_path) as s:
        page = await s.get("/tables/t1")
        assert page.status == 200 and "name=action" not in page.body
        refused = await s.send("POST", "/tables/t1/command", {"action": "pause"})
        assert refused.status == 403 and "log in" in refused.body
        assert (await s.send("POST", "/login", {"name": "x", "password": "y"})).status == 403


async def test_an_operator_starts_and_pauses_a_session(
    broker: Broker, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    book = SessionBook()
    link = make_link(broker.url, tmp_path / "outbox.db", book)
    async with site(broker, tmp_path, _users(tmp_path, monkeypatch)) as s, running(link.run()):
        await eventually(lambda: link.connected, "table connected")
        form, anon = await login_form(s)
        wrong = await s.send("POST", "/login", {**form, "password": "not this one"}, anon)
        assert wrong.status == 403 and "Wrong name or password" in wrong.body
        login = await s.send("POST", "/login", {**form, "password": "correct horse battery"}, anon)
        assert login.status == 303
        cookie = login.headers["Set-Cookie"].split(";")[0].split("=", 1)[1]
        assert "HttpOnly" in login.headers["Set-Cookie"]
        page = await s.get("/tables/t1", cookie)
        token = page.body.split('name=token value="')[1].split('"')[0]
        stale = await s.send(
            "POST", "/tables/t1/command", {"action": "pause", "token": "x"}, cookie
        )
        assert stale.status == 403
        start = {"action": "start", "token": token, "session": "cup.r1.t1",
                 "players": "ann,bo,cy,dee", "hands": "8"}  # fmt: skip
        sent = await s.send("POST", "/tables/t1/command", start, cookie)
        assert sent.status == 303 and "sent=" in sent.headers["Location"]
        await eventually(lambda: book.session == "cup.r1.t1", "session started by the table")
        assert book.players == ["ann", "bo", "cy", "dee"]
        command = sent.headers["Location"].split("sent=", 1)[1]
        await eventually(lambda: bool(s.dashboard.store.replies(command)), "the reply recorded")
        shown = (await s.get(sent.headers["Location"], cookie)).body
        assert "The table replied: ok: session cup.r1.t1 started" in shown
        await s.send("POST", "/tables/t1/command", {"action": "pause", "token": token}, cookie)
        await eventually(lambda: book.state == "paused", "session paused")
        bad = await s.send("POST", "/tables/t1/command", {"action": "start", "token": token,
                                                    "players": "ann"}, cookie)  # fmt: skip
        assert bad.status == 400 and "start:" in bad.body
        # The recorder restarts (sessions live in its memory): the old cookie is refused, and
        # says why.
        assert s.dashboard.sessions is not None
        s.dashboard.sessions = Sessions.fresh({})
        late = await s.send("POST", "/tables/t1/command", {"action": "resume", "token": token},
                            cookie)  # fmt: skip
        assert late.status == 403 and late.body == f"{SESSION_ENDED}\n"


async def _open_stream(port: int, view: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET /events?view={view} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    await writer.drain()
    assert b"text/event-stream" in await reader.readuntil(b"\r\n\r\n")
    return reader, writer


async def _next_event(reader: asyncio.StreamReader) -> tuple[str, str]:
    """The next event (name, data), skipping keep-alive comments."""
    async with asyncio.timeout(20):
        while True:
            block = (await reader.readuntil(b"\n\n")).decode()
            lines = block.strip("\n").split("\n")
            if lines[0].startswith("event: "):
                data = "\n".join(x.removeprefix("data: ") for x in lines[1:])
                return lines[0].removeprefix("event: "), data


async def test_the_event_stream_sends_only_the_parts_that_changed_rendered_once_for_all(
    broker: Broker, tmp_path: Path
) -> None:
    link = make_link(broker.url, tmp_path / "outbox.db", SessionBook())
    async with site(broker, tmp_path) as s, running(link.run()):
        link.record_result(hand_result(1))
        await eventually(lambda: s.dashboard.live.count == 1, "first result recorded")
        viewers = [await _open_stream(s.server.port, "floor") for _ in range(3)]
        for reader, _ in viewers:
            name, data = await _next_event(reader)
            assert name == "view" and 'data-last-hand="1"' in data and "floor-count" in data
        renders, version = s.dashboard.views.renders, s.dashboard.views.version
        link.record_result(hand_result(2))
        for reader, _ in viewers:
            card = ""
            while 'data-last-hand="2"' not in card:  # a status may change the card first
                name, data = await _next_event(reader)
                parts = json.loads(data)
                assert name == "parts" and set(parts) <= {"table-t1", "floor-count"}
                card = parts.get("table-t1", card)
            assert card.startswith('<div class="card')
        # One render per change the recorder committed, whatever the number of viewers.
        assert s.dashboard.views.renders - renders <= s.dashboard.views.version - version
        for _, writer in viewers:
            writer.close()


async def test_the_login_page_is_not_a_live_view(
    broker: Broker, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with site(broker, tmp_path, _users(tmp_path, monkeypatch)) as s:
        page = await s.get("/login")
        assert "name=password" in page.body and "data-view" not in page.body
        # Refused with a status, so that a browser's EventSource gives up instead of
        # reconnecting to an empty stream for ever.
        for view in ("login", "table", "floor:x", "nonsense"):
            reader, writer = await asyncio.open_connection("127.0.0.1", s.server.port)
            writer.write(f"GET /events?view={view} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
            answer = await asyncio.wait_for(reader.read(), 10)
            writer.close()
            assert answer.startswith(b"HTTP/1.1 404 Not Found\r\n"), answer
            said = f"no live view {view!r}: the live views are {LIVE_VIEWS}\n"
            assert answer.endswith(said.encode())
        assert LIVE_VIEWS == "floor, table:ID, standings[:STAGE] and notices"
        assert s.server.counters.refused == 4 and s.server.counters.streams == 0


async def test_the_standings_page_ranks_the_recorded_hands(broker: Broker, tmp_path: Path) -> None:
    definition = tmp_path / "cup.toml"
    definition.write_text(DEFINITION)
    link = make_link(broker.url, tmp_path / "outbox.db", SessionBook())
    async with site(broker, tmp_path, tournament=definition) as s, running(link.run()):
        assert "Player 01" in (await s.get("/standings")).body
        seated = ("p02", "p14", "p13", "p12")
        link.record_result(hand_result(1, "cup.qualifying.r1.t1", seated, winner=0, discarder=2))
        await eventually(lambda: s.dashboard.live.count == 1, "result recorded")
        page = (await s.get("/standings?stage=qualifying")).body
        row = page.split("Player 02")[1].split("</tr>")[0]
        assert "<td class=n>24</td><td class=n>1</td>" in row
        assert "under the minimum" in row  # 1 hand of 4


def test_the_http_address_defaults_to_loopback() -> None:
    assert http_address(":8080") == ("127.0.0.1", 8080)
    assert http_address("0.0.0.0:80") == ("0.0.0.0", 80)
    assert http_address("[::1]:8443") == ("::1", 8443)
    with pytest.raises(UsageError):
        http_address("8080")


async def test_a_session_is_refused_when_forged_expired_logged_out_or_its_operator_removed() -> (
    None
):
    paced: list[float] = []

    async def pace(seconds: float) -> None:
        paced.append(seconds)  # the time is given to each call: nothing to wait for

    sessions = Sessions({"referee": hash_password("correct horse battery")}, sleep=pace)
    form = sessions.begin(1000.0)
    token = sessions.token(form, 1000.0) or ""
    wrong = await sessions.login(form, token, "referee", "wrong", "10.0.0.9", 1000.0)
    assert wrong.outcome == Outcome.WRONG
    right = await sessions.login(
        form, token, "referee", "correct horse battery", "10.0.0.9", 1000.0
    )
    cookie = right.cookie
    assert right.outcome == Outcome.IN and sessions.who(cookie, 1001.0) == "referee"
    assert sessions.token(form, 1001.0) is None  # the form's session ended with the log in
    assert sessions.who(cookie[:-1] + "x", 1001.0) is None
    assert sessions.who(cookie, 1000.0 + 12 * 3600 + 1) is None
    again = await sessions.login(
        sessions.begin(1000.0), "", "referee", "correct horse battery", "10.0.0.9", 1000.0
    )
    assert again.outcome == Outcome.STALE_FORM  # no token, no log in
    other = Sessions({}, sessions.guard.say)
    assert other.who(cookie, 1001.0) is None


def test_a_malformed_password_file_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "operators"
    path.write_text(f"# operators\nreferee:{hash_password('correct horse battery')}\nbob:hunter2\n")
    with pytest.raises(ConfigError) as caught:
        load_operators(path)
    assert caught.value.line == 3
