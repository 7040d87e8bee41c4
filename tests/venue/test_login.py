"""Dashboard log in under attack, through a real HTTP client against the real recorder and its
dashboard (the dashboard's clock is a manual one, so waits pass without sleeping): tries are
limited per address and per name with growing waits (a too-early request is held back), an
unknown name costs the same hashing as a known one, failures are logged once per burst with the
client's address, a log out ends the session on the server, and no form (the login form
included) is taken without its token."""

import contextlib
import logging
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from controller.clock import ManualClock
from controller.venue.dashboard.auth import Outcome, Sessions, hash_password, load_operators
from controller.venue.dashboard.login_guard import BURST_GAP_S, FREE_FAILURES, LoginGuard
from devsupport.mosquitto import Broker
from tests.hub.helpers import make_recorder
from tests.venue.test_dashboard import Site, _users, login_form, serving

pytestmark = pytest.mark.broker
RIGHT = "correct horse battery"


@contextlib.asynccontextmanager
async def guarded_site(broker: Broker, tmp_path: Path, users: Path) -> AsyncIterator[Site]:
    HELD.clear()  # what an earlier test on this worker held back is not this test's
    recorder = make_recorder(broker.url, tmp_path / "hub.db")
    sessions = Sessions(load_operators(users), sleep=_held)
    async with serving(recorder, sessions, None, CLOCK) as served:
        yield served


CLOCK = ManualClock()
HELD: list[float] = []


async def _held(seconds: float) -> None:
    """The dashboard holding a request back: the time passes on the manual clock."""
    HELD.append(seconds)
    CLOCK.advance(seconds)


async def _try(s: Site, name: str, password: str) -> int:
    form, cookie = await login_form(s)
    return (await s.send("POST", "/login", {**form, "name": name, "password": password},
                         cookie)).status  # fmt: skip


async def test_tries_are_held_back_with_growing_waits_and_told_once_per_burst(
    broker: Broker,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING)
    async with guarded_site(broker, tmp_path, _users(tmp_path, monkeypatch)) as s:
        sessions = s.dashboard.sessions
        assert sessions is not None
        statuses = [await _try(s, "referee", f"guess {n}") for n in range(FREE_FAILURES)]
        assert statuses == [403] * FREE_FAILURES
        assert HELD == [0.5, 0.5]  # at most two password checks begin a second
        HELD.clear()
        # From then on each try (and each login form) from this address is held until its
        # wait is over: 1 s, 2 s, 4 s, 8 s; an unknown name is hashed like a known one.
        statuses = [await _try(s, name, "guess") for name in ("nobody", "referee", "x", "y")]
        assert statuses == [403] * 4 and HELD == [1.0, 2.0, 4.0, 8.0]
        assert sessions.checks == FREE_FAILURES + 4
        # 16 s now: the form is held 10 s (the most a request is held), the try 6 s more.
        HELD.clear()
        assert await _try(s, "referee", RIGHT) == 303
        assert HELD == [10.0, 6.0] and sessions.checks == FREE_FAILURES + 5
        CLOCK.advance(BURST_GAP_S + 1)
        await s.get("/")
    told = [r.getMessage() for r in caplog.records if "log in" in r.getMessage()]
    assert len(told) == 2, told  # the burst's start and its end, not one line per try
    assert "failed operator log in from 127.0.0.1 as 'referee'" in told[0]
    assert "7 failed operator log ins from 127.0.0.1" in told[1]
    assert "'referee', 'nobody', 'x', 'y'" in told[1]


async def test_a_log_out_ends_the_session_and_no_form_is_taken_without_its_token(
    broker: Broker, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with guarded_site(broker, tmp_path, _users(tmp_path, monkeypatch)) as s:
        form, anon = await login_form(s)
        assert (await s.send("POST", "/login", {"name": "referee", "password": RIGHT},
                             anon)).status == 403  # fmt: skip
        stolen = {**form, "password": RIGHT}
        assert (await s.send("POST", "/login", stolen)).status == 403  # token without cookie
        login = await s.send("POST", "/login", {**form, "password": RIGHT}, anon)
        assert login.status == 303
        cookie = login.headers["Set-Cookie"].split(";")[0].split("=", 1)[1]
        assert cookie != anon  # a new key once logged in
        page = await s.get("/tables/t1", cookie)
        token = page.body.split('name=token value="')[1].split('"')[0]
        assert 'action="/logout"' in page.body and f'value="{token}"' in page.body
        assert (await s.send("POST", "/logout", {}, cookie)).status == 403  # no token
        assert (await s.send("POST", "/logout", {"token": token}, cookie)).status == 303
        after = await s.get("/tables/t1", cookie)
        assert "name=action" not in after.body and "log out" not in after.body
        command = {"action": "pause", "token": token}
        refused = await s.send("POST", "/tables/t1/command", command, cookie)
        assert refused.status == 403 and "log in" in refused.body


async def test_each_name_and_each_address_has_its_own_count() -> None:
    said: list[str] = []
    sessions = Sessions({"referee": hash_password(RIGHT)}, said.append, _held)
    for n in range(FREE_FAILURES):  # one failure from each of three addresses
        form = sessions.begin(0.0)
        tried = await sessions.login(form, sessions.token(form, 0.0) or "", "referee", "guess",
                                     f"10.0.0.{n}", 0.0)  # fmt: skip
        assert tried.outcome == Outcome.WRONG
    form = sessions.begin(0.0)
    token = sessions.token(form, 0.0) or ""
    early = await sessions.login(form, token, "referee", RIGHT, "10.0.0.99", 0.0)
    assert early.outcome == Outcome.TOO_EARLY and early.wait_s == 2.0  # the name, from anywhere
    assert sessions.checks == FREE_FAILURES  # refused before any hashing
    other = await sessions.login(form, token, "someone", "guess", "10.0.0.99", 0.0)
    assert other.outcome == Outcome.WRONG  # another name from another address may try
    assert (await sessions.login(form, token, "referee", RIGHT, "10.0.0.99", 2.0)).outcome == (
        Outcome.IN
    )
    assert len(said) == FREE_FAILURES + 1  # one burst begun per address


async def test_checks_are_queued_at_two_a_second_and_a_try_beyond_is_held_then_told_busy() -> None:
    sessions = Sessions({"referee": hash_password(RIGHT)}, sleep=_held)
    HELD.clear()
    outcomes = []
    for n in range(22):  # many addresses, many names, all at once
        form = sessions.begin(0.0)
        tried = await sessions.login(form, sessions.token(form, 0.0) or "", f"u{n}", "guess",
                                     f"10.1.0.{n}", 0.0)  # fmt: skip
        outcomes.append(tried.outcome)
    assert outcomes == [Outcome.WRONG] * 21 + [Outcome.BUSY]
    assert [0.5 * n for n in range(1, 21)] + [2.0] == HELD  # turns up to 10 s, then held 2 s
    assert sessions.checks == 21


async def _guess(sessions: Sessions, address: str, name: str, now: float) -> Outcome:
    """A wrong password for `name` from `address`, through a fresh form: its outcome."""
    form = sessions.begin(now)
    token = sessions.token(form, now) or ""
    return (await sessions.login(form, token, name, "guess", address, now)).outcome


async def test_while_recording_is_behind_checks_are_queued_at_one_every_five_seconds() -> None:
    behind = True
    sessions = Sessions({"referee": hash_password(RIGHT)}, sleep=_held,
                        recording_behind=lambda: behind)  # fmt: skip
    HELD.clear()

    async def guess(n: int, now: float) -> Outcome:
        return await _guess(sessions, f"10.2.0.{n}", f"u{n}", now)

    outcomes = [await guess(n, 0.0) for n in range(4)]  # many addresses, all at once
    assert outcomes == [Outcome.WRONG] * 3 + [Outcome.BUSY]
    assert HELD == [5.0, 10.0, 2.0]  # turns up to 10 s, then held 2 s
    behind = False  # recording caught up: two a second again after the turns already given
    HELD.clear()
    assert [await guess(n, 6.0) for n in range(4, 7)] == [Outcome.WRONG] * 3
    assert HELD == [9.0, 9.5, 10.0]  # turns at 15, 15.5 and 16 s


async def test_a_try_queued_before_the_recorder_fell_behind_waits_for_the_slower_pace() -> None:
    behind = False
    sessions = Sessions({"referee": hash_password(RIGHT)}, sleep=_held,
                        recording_behind=lambda: behind)  # fmt: skip
    HELD.clear()

    async def guess(n: int, now: float) -> Outcome:
        return await _guess(sessions, f"10.3.0.{n}", f"u{n}", now)

    assert await guess(1, 0.0) == Outcome.WRONG  # checked at once
    behind = True
    assert await guess(2, 0.1) == Outcome.WRONG
    assert HELD == [0.4, 4.5]  # its turn at 0.5 s, then five seconds after the first check
    assert await guess(3, 2.0) == Outcome.WRONG
    assert HELD[2:] == [8.0]  # and five seconds after that one


async def test_while_recording_is_behind_an_address_that_failed_is_not_checked() -> None:
    behind = False
    sessions = Sessions({"referee": hash_password(RIGHT)}, sleep=_held,
                        recording_behind=lambda: behind)  # fmt: skip

    async def guess(address: str, now: float, password: str = "guess") -> Outcome:
        form = sessions.begin(now)
        return (await sessions.login(form, sessions.token(form, now) or "", "referee", password,
                                     address, now)).outcome  # fmt: skip

    assert await guess("10.4.0.1", 0.0) == Outcome.WRONG
    behind = True
    HELD.clear()
    assert await guess("10.4.0.1", 10.0) == Outcome.BEHIND  # held, then told, not hashed
    assert HELD == [10.0] and sessions.checks == 1
    assert await guess("10.4.0.2", 20.0, RIGHT) == Outcome.IN  # a first try is checked
    behind = False
    assert await guess("10.4.0.1", 30.0) == Outcome.WRONG  # caught up: checked again
    assert sessions.checks == 3


def test_a_burst_is_told_once_quiet_whatever_began_before_it() -> None:
    said: list[str] = []
    guard = LoginGuard(said.append)
    for now in (0.0, 1.0):
        guard.failed("10.5.0.1", "referee", now)  # begun first, goes on
    for now in (10.0, 11.0):
        guard.failed("10.5.0.2", "admin", now)  # begun later, stops
    guard.failed("10.5.0.1", "referee", 50.0)
    said.clear()
    guard.end_quiet(11.0 + BURST_GAP_S + 1)
    assert len(said) == 1 and "from 10.5.0.2" in said[0]  # the one gone quiet, at once
    guard.end_quiet(50.0 + BURST_GAP_S + 1)
    assert len(said) == 2 and "2 failed operator log ins from 10.5.0.1" not in said[1]
    assert "3 failed operator log ins from 10.5.0.1 over 50 s" in said[1]
