"""The dashboard: pages and live views of the floor, a table, the standings and the notices,
served from what the recorder stores; logged-in operators send signed hub commands."""

import asyncio
import contextlib
import hmac
import logging
import math
import re
from collections.abc import Callable

import msgspec

from controller.clock import Clock, SystemClock
from controller.hub.contract.envelopes import MalformedMessage, ReplyMessage, ResultMessage, decode
from controller.hub.contract.hub_commands import (
    Action,
    EndSession,
    PauseSession,
    ResumeSession,
    StartSession,
)
from controller.hub.mqtt.transport import BrokerDown
from controller.venue.dashboard import pages
from controller.venue.dashboard.auth import Outcome, Sessions
from controller.venue.dashboard.floor import LiveResults, TableCard, card
from controller.venue.dashboard.http import EventStream, Request, Response
from controller.venue.recorder import Recorder
from controller.venue.store_view import StoreView
from controller.venue.tournament.definition import Tournament
from controller.venue.tournament.standings import Report, standings

_log = logging.getLogger(__name__)
COOKIE = "mahjong_operator"
KEEPALIVE_S = 15.0
_TABLE_PATH = re.compile(r"^/tables/([a-z0-9][a-z0-9_-]{0,31})(/command)?$")
_MESSAGE_ID = re.compile(r"^[0-9a-f]{32}$")


class Dashboard:
    """The live views over one recorder and its store."""

    def __init__(
        self,
        recorder: Recorder,
        store: StoreView,
        sessions: Sessions | None = None,
        tournament: Tournament | None = None,
        clock: Clock | None = None,
    ) -> None:
        self.recorder = recorder
        self.store = store
        self.sessions = sessions
        self.tournament = tournament
        self.clock = clock or SystemClock()
        self.live = LiveResults()
        self._waiting: set[asyncio.Event] = set()
        self.pushes = 0

    def attach(self) -> None:
        """Read what is recorded so far and follow the recorder from now on."""
        self.live.load(self.store)
        self.recorder.listeners.append(self._recorded)

    def _recorded(self, messages: list[ResultMessage]) -> None:
        self.live.add(messages)
        for waiter in self._waiting:
            waiter.set()

    # Views -------------------------------------------------------------------------------

    def cards(self) -> list[TableCard]:
        """Every table the recorder knows, as floor cards."""
        return [card(p, self.live) for p in self.store.presence()]

    def report(self) -> Report | None:
        """The tournament's standings from the recorded results (None: no tournament)."""
        if self.tournament is None:
            return None
        return standings(self.tournament, self.live.all_results())

    def render(self, view: str, request: Request) -> str:
        """The live part of one view (`floor`, `table:ID[:SESSION]`, `standings[:STAGE]`,
        `notices`)."""
        return self.banner() + self._render(view, request)

    def banner(self) -> str:
        """The warning every view starts with while the results store is down."""
        outage = self.recorder.store.outage
        return "" if outage is None else pages.store_down(outage.since, outage.fault.text)

    def _render(self, view: str, request: Request) -> str:
        kind, _, rest = view.partition(":")
        if kind == "table":
            table, _, session = rest.partition(":")
            return self._table(table, session or None, request)
        if kind == "standings":
            name = self.tournament.tournament.name if self.tournament else ""
            return pages.standings(self.report(), rest or None, name)
        if kind == "notices":
            return pages.notices(self.store.notices(), self.store.refusals())
        return pages.floor(self.cards(), self.store.notices(), self.live.count)

    def _table(self, table: str, session: str | None, request: Request) -> str:
        found = next((c for c in self.cards() if c.table == table), None)
        hands = self.live.session(table, session)
        ops = ""
        cookie = request.cookies.get(COOKIE)
        now = self.clock.wall()
        token = self.sessions.token(cookie, now) if self.sessions else None
        if self.sessions and token and self.sessions.who(cookie, now):
            ops = pages.operator_form(table, token, found.session if found else None)
            ops += self._reply_of(request.query.get("sent", ""))
        sessions = list(self.live.tables.get(table, {}))
        return pages.table_detail(found, table, hands, sessions, ops)

    def _reply_of(self, command: str) -> str:
        if not _MESSAGE_ID.match(command):
            return ""
        for payload in self.store.replies(command):
            with contextlib.suppress(MalformedMessage):
                reply = decode(payload, ReplyMessage)
                return pages.message(f"The table replied: {reply.code}: {reply.message}")
        return pages.message(f"Command {command} sent; no reply yet.")

    # HTTP --------------------------------------------------------------------------------

    async def handle(self, request: Request) -> Response:
        """Answer one request."""
        who = self._who(request)
        path = request.path
        if self.sessions is not None:
            self.sessions.guard.end_quiet(self.clock.wall())
            if path == "/login":
                await self.sessions.hold_back(request.client, self.clock.wall())
        if request.method == "POST":
            return await self._post(request, who)
        if path == "/":
            return self._page("Floor", "floor", request, who)
        if path == "/standings":
            stage = request.query.get("stage", "")
            return self._page(
                "Standings", f"standings:{stage}" if stage else "standings", request, who
            )
        if path == "/notices":
            return self._page("Notices", "notices", request, who)
        if path == "/login":
            return self._login_form(request, "", 200)
        match = _TABLE_PATH.match(path)
        if match and not match.group(2):
            session = request.query.get("session", "")
            view = f"table:{match.group(1)}" + (f":{session}" if session else "")
            return self._page(f"Table {match.group(1)}", view, request, who)
        return Response(404, b"not found\n", "text/plain")

    def _page(self, title: str, view: str, request: Request, who: str | None) -> Response:
        token = self._token(request) if who else ""
        body = pages.page(title, view, self.render(view, request), who, token)
        return Response(body=body.encode())

    def _token(self, request: Request) -> str:
        if self.sessions is None:
            return ""
        return self.sessions.token(request.cookies.get(COOKIE), self.clock.wall()) or ""

    def _who(self, request: Request) -> str | None:
        if self.sessions is None:
            return None
        return self.sessions.who(request.cookies.get(COOKIE), self.clock.wall())

    async def _post(self, request: Request, who: str | None) -> Response:
        if request.path == "/login":
            return await self._login(request)
        match = _TABLE_PATH.match(request.path)
        if request.path != "/logout" and (not match or not match.group(2)):
            return Response(404, b"not found\n", "text/plain")
        cookie = request.cookies.get(COOKIE, "")
        if who is None or self.sessions is None:
            return Response(403, b"log in as an operator first\n", "text/plain")
        token = self.sessions.token(cookie, self.clock.wall())
        if token is None or not hmac.compare_digest(request.form.get("token", ""), token):
            return Response(403, b"this form is stale: reload the page\n", "text/plain")
        if match is None:
            self.sessions.logout(cookie)
            _log.info("dashboard: operator %s logged out (from %s)", who, request.client)
            return _redirect("/", f"{COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict")
        return await self._command(match.group(1), request.form, who)

    def _login_form(self, request: Request, error: str, status: int) -> Response:
        """The login form with its session's token (a new session if it has none)."""
        if self.sessions is None:
            body = pages.login("This dashboard is read-only (no --http-users file).")
            return Response(403, pages.page("Log in", "login", body, None).encode())
        now = self.clock.wall()
        cookie = request.cookies.get(COOKIE)
        token = self.sessions.token(cookie, now)
        headers = {}
        if token is None:
            cookie = self.sessions.begin(now)
            token = self.sessions.token(cookie, now) or ""
            headers["Set-Cookie"] = f"{COOKIE}={cookie}; Path=/; HttpOnly; SameSite=Strict"
        body = pages.page("Log in", "login", pages.login(error, token), None)
        return Response(status, body.encode(), headers=headers)

    async def _login(self, request: Request) -> Response:
        if self.sessions is None:
            return self._login_form(request, "", 403)
        form = request.form
        result = await self.sessions.login(
            request.cookies.get(COOKIE),
            form.get("token", ""),
            form.get("name", "")[:64],
            form.get("password", "")[:1024],
            request.client,
            self.clock.wall(),
        )
        match result.outcome:
            case Outcome.IN:
                _log.info("dashboard: operator %s logged in from %s", form["name"], request.client)
                return _redirect(
                    "/", f"{COOKIE}={result.cookie}; Path=/; HttpOnly; SameSite=Strict"
                )
            case Outcome.WRONG:
                return self._login_form(request, "Wrong name or password.", 403)
            case Outcome.TOO_EARLY:
                wait = f"Too many failed tries: try again in {math.ceil(result.wait_s)} s."
                return self._login_form(request, wait, 429)
            case Outcome.BUSY:
                return self._login_form(request, "Busy checking other log ins: try again.", 503)
            case _:
                return self._login_form(request, "This form is stale: log in again.", 403)

    async def _command(self, table: str, form: dict[str, str], who: str) -> Response:
        try:
            action = operator_action(form)
        except ValueError as exc:
            return Response(400, f"{exc}\n".encode(), "text/plain")
        session = self.recorder.live
        if session is None:
            return Response(503, b"the recorder is not connected to the broker\n", "text/plain")
        try:
            command = await self.recorder.send_command(session, table, action)
        except BrokerDown as exc:
            return Response(503, f"{exc}\n".encode(), "text/plain")
        _log.info("dashboard: operator %s sent %s to table %s", who, form.get("action"), table)
        return _redirect(f"/tables/{table}?sent={command}", None)

    async def stream(self, request: Request, events: EventStream) -> None:
        """Send the view now and again after every batch the recorder commits."""
        view = request.query.get("view", "floor")[:200]
        changed = asyncio.Event()
        self._waiting.add(changed)
        try:
            while True:
                changed.clear()
                await events.send("view", self.render(view, request))
                self.pushes += 1
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(KEEPALIVE_S):
                        await changed.wait()
                if not changed.is_set():
                    await events.comment()
        except (ConnectionError, RuntimeError):
            return
        finally:
            self._waiting.discard(changed)


def operator_action(form: dict[str, str]) -> Action:
    """The hub command an operator's form asks for; ValueError says what is wrong."""
    builders: dict[str, Callable[[], Action]] = {
        "pause": lambda: PauseSession(reason=form.get("reason", "")[:500]),
        "resume": ResumeSession,
        "end": lambda: EndSession(reason=form.get("reason", "")[:500]),
    }
    action = form.get("action", "")
    if action in builders:
        return builders[action]()
    if action != "start":
        raise ValueError(f"unknown action {action[:20]!r}")
    fields = {
        "session": form.get("session", ""),
        "ruleset": form.get("ruleset", "zung-jung"),
        "players": [p.strip() for p in form.get("players", "").split(",") if p.strip()],
        "hands": int(form.get("hands") or 16) if (form.get("hands") or "16").isdigit() else -1,
    }
    try:
        return msgspec.convert(fields, StartSession)
    except msgspec.ValidationError as exc:
        raise ValueError(f"start: {exc}") from exc


def _redirect(to: str, cookie: str | None) -> Response:
    headers = {"Location": to}
    if cookie is not None:
        headers["Set-Cookie"] = cookie
    return Response(303, b"", "text/plain", headers)
