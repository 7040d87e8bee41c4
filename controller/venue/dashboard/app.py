"""The dashboard: pages and live views of the floor, a table, the standings and the notices,
served from what the recorder stores; logged-in operators send signed hub commands."""

import asyncio
import contextlib
import hmac
import logging
import math
import re
import urllib.parse
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
from controller.venue.async_store import StoreDown
from controller.venue.dashboard import pages
from controller.venue.dashboard.auth import Outcome, Sessions
from controller.venue.dashboard.floor import LiveResults, TableCard, card
from controller.venue.dashboard.http import EventStream, Request, Response
from controller.venue.dashboard.live import RenderCache, Rendered, mark
from controller.venue.recorder import Recorder
from controller.venue.store_view import StoreView
from controller.venue.tournament.commands import entries_of
from controller.venue.tournament.definition import Tournament
from controller.venue.tournament.entries import Entry, describe, encode_entry, entry_from_form
from controller.venue.tournament.plan import planned_hands
from controller.venue.tournament.standings import Report, standings

_log = logging.getLogger(__name__)
COOKIE = "mahjong_operator"
_COOKIE_FLAGS = "Path=/; HttpOnly; SameSite=Strict"
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
        self.entries: list[Entry] = []
        self.views = RenderCache(self.render)
        self._waiting: set[asyncio.Event] = set()
        self._shown_down = ""
        self.pushes = 0

    def attach(self) -> None:
        """Read what is recorded so far and follow the recorder from now on."""
        self.live.load(self.store)
        self.entries = entries_of(self.store)
        self.recorder.listeners.append(self._recorded)
        self.recorder.store.listeners.append(self._changed)  # the store's banner
        if self.sessions is not None:
            self.sessions.recording_behind = lambda: self.recorder.behind

    def _recorded(self, messages: list[ResultMessage]) -> None:
        self.live.add(messages)
        self._changed()

    def _changed(self) -> None:
        self.views.changed()
        for waiter in self._waiting:
            waiter.set()

    # Views -------------------------------------------------------------------------------

    def cards(self) -> list[TableCard]:
        """Every table the recorder knows, as floor cards."""
        return [card(p, self.live, self._planned) for p in self.store.presence()]

    def _planned(self, session: str) -> int | None:
        """Hands a tournament session is to play, make-up sessions included (None: not a
        session of the tournament's draws)."""
        if self.tournament is None:
            return None
        return planned_hands(self.tournament, session, self.live.all_results(), self.entries)

    def hub_down(self) -> str:
        """What keeps the recorder from recording, in words ('' : it records)."""
        if self.recorder.live is None:
            return (
                "The recorder is not connected to the broker: results wait in the tables' "
                "outboxes and the floor below is not up to date."
            )
        return ""

    async def watch(self) -> None:
        """Show the recorder going offline or back (no batch arrives to say so)."""
        while True:
            await self.recorder.changes.next_change()
            self._fresh()

    def _fresh(self) -> None:
        """Views shown from now on say whether the recorder is on the broker (no batch comes
        to say that it went off)."""
        if self.hub_down() != self._shown_down:
            self._shown_down = self.hub_down()
            self._changed()

    def report(self) -> Report | None:
        """The tournament's standings from the recorded results (None: no tournament)."""
        if self.tournament is None:
            return None
        return standings(self.tournament, self.live.all_results(), self.entries)

    def banner(self) -> str:
        """The warning every view starts with while the results store is down."""
        outage = self.recorder.store.outage
        if outage is None:
            return "<div id=store-up hidden></div>"
        return pages.store_down(outage.since, outage.fault.text)

    def render(self, view: str) -> Rendered:
        """One live view (`floor`, `table:ID[:SESSION]`, `standings[:STAGE]`, `notices`), the
        same for every viewer (what depends on who is looking stays outside live views), with
        the store's banner as its first part."""
        shown = self._render(view)
        key = "store-down" if self.recorder.store.outage is not None else "store-up"
        return Rendered(mark(key) + shown.layout, {key: self.banner(), **shown.parts})

    def _render(self, view: str) -> Rendered:
        kind, _, rest = view.partition(":")
        if kind == "table":
            table, _, rest = rest.partition(":")
            session, _, command = rest.partition(":")
            found = next((c for c in self.cards() if c.table == table), None)
            hands = self.live.session(table, session or None)
            sessions = list(self.live.tables.get(table, {}))
            shown = pages.table_detail(found, table, hands, sessions)
            if not command:
                return shown
            reply = f"<div id=command-reply>{self._reply_of(command)}</div>"
            return Rendered(mark("command-reply") + shown.layout,
                            {"command-reply": reply, **shown.parts})  # fmt: skip
        if kind == "standings":
            name = self.tournament.tournament.name if self.tournament else ""
            return pages.standings(self.report(), rest or None, name, self.entries)
        if kind == "notices":
            return pages.notices(self.store.notices(), self.store.refusals())
        return pages.floor(self.cards(), self.store.notices(), self.live.count, self.hub_down())

    def _operator_forms(self, table: str, request: Request) -> str:
        """The operator's forms of a table page (outside the live view)."""
        token = self._token(request)
        if not token:
            return ""
        found = next((c for c in self.cards() if c.table == table), None)
        form = pages.operator_form(table, token, found.session if found else None)
        return f"<section class=operator>{form}</section>"

    def _entry_forms(self, request: Request) -> str:
        """The director's entry form of the standings page (outside the live view)."""
        token = self._token(request)
        if not (self.tournament and token):
            return ""
        stages = [s.name for s in self.tournament.stages]
        note = pages.message(request.query.get("entered", "")[:200])
        return pages.entry_form(token, stages, note)

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
        if path == "/kiosk":
            self._fresh()
            inner = self.views.get("floor").whole()
            return Response(body=pages.page("Floor", "floor", inner, None, kiosk=True).encode())
        if path == "/standings":
            stage = request.query.get("stage", "")
            view = f"standings:{stage}" if stage else "standings"
            return self._page("Standings", view, request, who, self._entry_forms(request))
        if path == "/notices":
            return self._page("Notices", "notices", request, who)
        if path == "/login":
            return self._login_form(request, "", 200)
        match = _TABLE_PATH.match(path)
        if match and not match.group(2):
            session, sent = request.query.get("session", ""), request.query.get("sent", "")
            view = f"table:{match.group(1)}:{session}"
            view += f":{sent}" if _MESSAGE_ID.match(sent) else ""
            forms = self._operator_forms(match.group(1), request)
            return self._page(f"Table {match.group(1)}", view, request, who, forms)
        return Response(404, b"not found\n", "text/plain")

    def _page(
        self, title: str, view: str, request: Request, who: str | None, forms: str = ""
    ) -> Response:
        self._fresh()
        inner = self.views.get(view).whole()
        token = self._token(request) if who else ""
        ended = self._ended(request)
        body = pages.page(title, view, inner, who, forms, token=token, ended=ended)
        # Said once: the cookie of the ended session is dropped.
        headers = {"Set-Cookie": f"{COOKIE}=; {_COOKIE_FLAGS}; Max-Age=0"} if ended else {}
        return Response(body=body.encode(), headers=headers)

    def _ended(self, request: Request) -> bool:
        """The browser holds an operator session cookie the recorder no longer knows (it
        restarted, or the session expired)."""
        cookie = request.cookies.get(COOKIE)
        if self.sessions is None or not cookie:
            return False
        return self.sessions.token(cookie, self.clock.wall()) is None

    def _token(self, request: Request) -> str:
        """The form token of the request's operator session ('' : not logged in)."""
        if self.sessions is None:
            return ""
        cookie = request.cookies.get(COOKIE)
        now = self.clock.wall()
        if not self.sessions.who(cookie, now):
            return ""
        return self.sessions.token(cookie, now) or ""

    def _who(self, request: Request) -> str | None:
        if self.sessions is None:
            return None
        return self.sessions.who(request.cookies.get(COOKIE), self.clock.wall())

    async def _post(self, request: Request, who: str | None) -> Response:
        if request.path == "/login":
            return await self._login(request)
        match = _TABLE_PATH.match(request.path)
        entry = request.path == "/entries"
        logout = request.path == "/logout"
        if not (entry or logout) and (not match or not match.group(2)):
            return Response(404, b"not found\n", "text/plain")
        cookie = request.cookies.get(COOKIE, "")
        if who is None or self.sessions is None:
            said = pages.SESSION_ENDED if self._ended(request) else "log in as an operator first"
            return Response(403, f"{said}\n".encode(), "text/plain")
        token = self.sessions.token(cookie, self.clock.wall())
        if token is None or not hmac.compare_digest(request.form.get("token", ""), token):
            return Response(403, b"this form is stale: reload the page\n", "text/plain")
        if logout:
            self.sessions.logout(cookie)
            _log.info("dashboard: operator %s logged out (from %s)", who, request.client)
            return _redirect("/", f"{COOKIE}=; {_COOKIE_FLAGS}; Max-Age=0")
        if entry:
            return await self._enter(request.form, who)
        assert match is not None
        return await self._command(match.group(1), request.form, who)

    async def _enter(self, form: dict[str, str], who: str) -> Response:
        """Keep one director's entry and show the standings with it."""
        if self.tournament is None:
            return Response(400, b"no tournament is loaded (--tournament)\n", "text/plain")
        try:
            entry = entry_from_form(form, who, self.clock.wall())
        except ValueError as exc:
            return Response(400, f"the entry is not kept: {exc}\n".encode(), "text/plain")
        try:
            await self.keep_entry(entry)
        except StoreDown as exc:
            return Response(503, f"the entry is not kept: {exc}\n".encode(), "text/plain")
        done = urllib.parse.quote(f"Kept: {describe(entry)}")
        return _redirect(f"/standings?entered={done}", None)

    async def keep_entry(self, entry: Entry) -> None:
        """Store a director's entry and show it in every view at once (StoreDown: the store
        is down, the entry is not kept)."""
        payload = encode_entry(entry)
        await self.recorder.store.call(
            lambda store: store.add_director_entry(payload, entry.by, entry.at)
        )
        self.entries.append(entry)
        _log.info("dashboard: %s", describe(entry))
        self._changed()

    def _login_form(self, request: Request, error: str, status: int) -> Response:
        """The login form with its session's token (a new session if it has none)."""
        if self.sessions is None:
            body = pages.login("This dashboard is read-only (no --http-users file).")
            return Response(403, pages.page("Log in", None, body, None).encode())
        now = self.clock.wall()
        cookie = request.cookies.get(COOKIE)
        token = self.sessions.token(cookie, now)
        headers = {}
        if token is None:
            cookie = self.sessions.begin(now)
            token = self.sessions.token(cookie, now) or ""
            headers["Set-Cookie"] = f"{COOKIE}={cookie}; {_COOKIE_FLAGS}"
        body = pages.page("Log in", None, pages.login(error, token), None)
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
                return _redirect("/", f"{COOKIE}={result.cookie}; {_COOKIE_FLAGS}")
            case Outcome.WRONG:
                return self._login_form(request, "Wrong name or password.", 403)
            case Outcome.TOO_EARLY:
                wait = f"Too many failed tries: try again in {math.ceil(result.wait_s)} s."
                return self._login_form(request, wait, 429)
            case Outcome.BUSY:
                return self._login_form(request, "Busy checking other log ins: try again.", 503)
            case Outcome.BEHIND:
                behind = "The recorder is storing a backlog of results: try again once it is done."
                return self._login_form(request, behind, 503)
            case _:
                return self._login_form(request, "This form is stale: log in again.", 403)

    async def _command(self, table: str, form: dict[str, str], who: str) -> Response:
        try:
            action = operator_action(form)
            left = self._leaver(table, form, who)
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
        if left is not None:
            try:
                await self.keep_entry(left)
            except StoreDown as exc:
                said = (
                    f"table {table} was sent {form.get('action')}, but the leaver's forfeit "
                    f"is not kept: {exc}; enter it again from the standings page\n"
                )
                return Response(503, said.encode(), "text/plain")
        return _redirect(f"/tables/{table}?sent={command}", None)

    def _leaver(self, table: str, form: dict[str, str], who: str) -> Entry | None:
        """An End naming a leaver: the leaver forfeits the hand in play (the hand after the
        last recorded one when the table reports none). ValueError: not a valid entry."""
        player = form.get("leaver", "").strip()
        if form.get("action") != "end" or not player:
            return None
        found = next((c for c in self.cards() if c.table == table), None)
        if found is None or found.session is None:
            raise ValueError(f"table {table} has no session to name a leaver in")
        hand = found.hand or (found.last_hand or 0) + 1
        why = form.get("reason", "") or f"left table {table}; the session was ended"
        fields = {"kind": "forfeit", "forfeit": "left_hand", "player": player,
                  "session": found.session, "hand": str(hand), "reason": why}  # fmt: skip
        return entry_from_form(fields, who, self.clock.wall())

    async def stream(self, request: Request, events: EventStream) -> Response | None:
        """Send the view now, then after every batch the recorder commits only the parts of
        it that changed (each rendered once for all viewers). A view that is not a live view
        is refused (404) before anything is streamed. A page shown to an operator (`operator`)
        whose session ends (the recorder restarted, or it expired) is told so, once."""
        view = request.query.get("view", "")[:200]
        if not live_view(view):
            said = f"no live view {view[:40]!r}: the live views are {LIVE_VIEWS}\n"
            return Response(404, said.encode(), "text/plain")
        operator = request.query.get("operator", "")[:64]
        changed = asyncio.Event()
        self._waiting.add(changed)
        shown: Rendered | None = None
        try:
            while True:
                changed.clear()
                if operator and self._who(request) != operator:
                    await events.send("account", pages.account(None, ended=True))
                    operator = ""
                shown, event = self.views.since(view, shown)
                if event is not None:
                    await events.send(*event)
                    self.pushes += 1
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(KEEPALIVE_S):
                        await changed.wait()
                if not changed.is_set():
                    await events.comment()
        except (ConnectionError, RuntimeError):
            return None
        finally:
            self._waiting.discard(changed)


LIVE_VIEWS = "floor, table:ID, standings[:STAGE] and notices"


def live_view(view: str) -> bool:
    """True for the views the event stream serves (anything else is refused)."""
    kind, _, rest = view.partition(":")
    if kind == "floor" or kind == "notices":
        return not rest
    return kind in ("table", "standings") and (kind == "standings" or bool(rest))


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
