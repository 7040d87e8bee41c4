"""An operator in a real headless Chromium while tables play: the login form stays a login
form, the Start form keeps what is typed and where the cursor is while four tables publish
results, submitting it starts the session on the table, and a forfeit and a correction
entered on the standings page change the standings at once."""

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.common.by import By

from controller.hub.table_side.hub_link import HubLink
from controller.venue.dashboard.app import Dashboard
from controller.venue.dashboard.auth import Sessions, hash_password
from controller.venue.dashboard.http import HttpServer
from controller.venue.store_view import StoreView
from controller.venue.tournament.definition import Tournament, load_tournament
from devsupport.mosquitto import Broker
from tests.hub.factories import SessionBook, hand_result
from tests.hub.helpers import eventually, make_link, make_recorder, running
from tests.venue.browser import open_browser, shows
from tests.venue.test_tournament import DEFINITION

pytestmark = [pytest.mark.broker, pytest.mark.slow]
TABLES = ("t1", "t2", "t3", "t4")
PASSWORD = "correct horse battery"


@dataclass
class Floor:
    dashboard: Dashboard
    port: int
    books: dict[str, SessionBook]
    links: dict[str, HubLink]

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"


@contextlib.asynccontextmanager
async def playing_floor(
    broker: Broker, tmp_path: Path, tournament: Tournament | None = None
) -> AsyncIterator[Floor]:
    """A recorder with the dashboard (one operator, `referee`) and four table links."""
    recorder = make_recorder(broker.url, tmp_path / "hub.db", TABLES)
    sessions = Sessions.fresh({"referee": hash_password(PASSWORD)})
    view = StoreView()
    await recorder.store.call(view.load)
    recorder.view = view
    dashboard = Dashboard(recorder, view, sessions, tournament)
    dashboard.attach()
    server = HttpServer(dashboard.handle, dashboard.stream, {"/events"})
    started = asyncio.Event()
    books = {t: SessionBook() for t in TABLES}
    links = {t: make_link(broker.url, tmp_path / f"{t}.db", books[t], table=t) for t in TABLES}
    async with contextlib.AsyncExitStack() as stack:
        await stack.enter_async_context(running(recorder.run()))
        await stack.enter_async_context(running(server.serve("127.0.0.1", 0, None, started)))
        for link in links.values():
            await stack.enter_async_context(running(link.run()))
        await started.wait()
        await eventually(recorder.connected.is_set, "recorder online")
        await eventually(lambda: all(link.connected for link in links.values()), "tables online")
        yield Floor(dashboard, server.port, books, dict(links))


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[webdriver.Chrome]:
    driver = open_browser(tmp_path / "chromium-profile")
    yield driver
    driver.quit()


def _value(driver: webdriver.Chrome, element_id: str) -> str:
    return str(driver.find_element(By.ID, element_id).get_attribute("value"))


def _focused_id(driver: webdriver.Chrome) -> str:
    return str(driver.execute_script("return document.activeElement.id;"))


def _last_hand(driver: webdriver.Chrome, table: str) -> int:
    found = driver.find_elements(By.ID, f"table-{table}")
    return int(found[0].get_attribute("data-last-hand") or 0) if found else 0


async def log_in(driver: webdriver.Chrome, floor: Floor, play: Callable[[int], None]) -> None:
    """Open the login page, let the tables play a hand, then log in with the same form."""
    await asyncio.to_thread(driver.get, floor.url("/login"))
    await shows(driver, lambda d: bool(d.find_elements(By.NAME, "name")), "the login form")
    name = await asyncio.to_thread(driver.find_element, By.NAME, "name")
    await asyncio.to_thread(name.send_keys, "referee")
    before = floor.dashboard.live.count
    play(1)
    await eventually(lambda: floor.dashboard.live.count >= before + 4, "a hand at every table")
    assert await asyncio.to_thread(name.get_attribute, "value") == "referee"
    password = await asyncio.to_thread(driver.find_element, By.NAME, "password")
    await asyncio.to_thread(password.send_keys, PASSWORD + "\n")
    await shows(driver, lambda d: "referee" in d.find_element(By.TAG_NAME, "header").text,
                "the operator's name in the header")  # fmt: skip


def _row(driver: webdriver.Chrome, player: str) -> str:
    found = driver.find_elements(By.ID, f"line-qualifying-{player}")
    return found[0].text if found else ""


async def _enter(driver: webdriver.Chrome, fields: dict[str, str]) -> None:
    """Fill in the director's entry form and keep the entry."""

    def fill() -> None:
        for name, value in fields.items():
            element = driver.find_element(By.ID, f"entry-{name}")
            if element.tag_name == "select":
                element.find_element(By.CSS_SELECTOR, f'option[value="{value}"]').click()
            else:
                element.clear()
                element.send_keys(value)
        driver.find_element(By.ID, "entry-submit").click()

    await asyncio.to_thread(fill)


async def test_an_operator_logs_in_starts_a_table_and_enters_a_forfeit_and_a_correction(
    broker: Broker, browser: webdriver.Chrome, tmp_path: Path
) -> None:
    definition = tmp_path / "cup.toml"
    definition.write_text(DEFINITION)
    async with playing_floor(broker, tmp_path, load_tournament(definition)) as floor:

        def play(hand: int) -> None:
            for n, table in enumerate(TABLES):
                session = f"cup.qualifying.r1.{table}"
                players = tuple(f"p{4 * n + k:02d}" for k in range(1, 5))
                floor.links[table].record_result(hand_result(hand, session, players))

        await log_in(browser, floor, play)
        await asyncio.to_thread(browser.get, floor.url("/tables/t1"))
        await shows(browser, lambda d: _last_hand(d, "t1") == 1, "table t1's first hand")
        session = await asyncio.to_thread(browser.find_element, By.ID, "start-session")
        await asyncio.to_thread(session.clear)
        await asyncio.to_thread(session.send_keys, "cup.r2.t1")
        players = await asyncio.to_thread(browser.find_element, By.ID, "start-players")
        await asyncio.to_thread(players.send_keys, "ann,bo")
        for hand in (2, 3, 4):
            play(hand)
            await shows(browser, lambda d, h=hand: _last_hand(d, "t1") == h,  # type: ignore[misc]
                        f"hand {hand} of table t1 pushed to the page")  # fmt: skip
            assert await asyncio.to_thread(_value, browser, "start-session") == "cup.r2.t1"
            assert await asyncio.to_thread(_value, browser, "start-players") == "ann,bo"
            assert await asyncio.to_thread(_focused_id, browser) == "start-players"
        await asyncio.to_thread(players.send_keys, ",cy,dee")
        await asyncio.to_thread(browser.find_element(By.CSS_SELECTOR, "button[value=start]").click)
        await shows(browser, lambda d: "The table replied: ok" in d.page_source,
                    "the table's reply to the start command")  # fmt: skip
        assert floor.books["t1"].session == "cup.r2.t1"
        assert floor.books["t1"].players == ["ann", "bo", "cy", "dee"]

        # Four hands at each table: East won 24 off West in each (96 points, ranked; the four
        # East players share rank 1).
        await asyncio.to_thread(browser.get, floor.url("/standings?stage=qualifying"))
        await shows(browser, lambda d: _row(d, "p01").startswith("1 tie Player 01 p01 96 4 4 0"),
                    "p01 first with 96 points from 4 hands")  # fmt: skip
        await _enter(browser, {"kind": "forfeit", "player": "p01",
                               "session": "cup.qualifying.r1.t1", "hand": "5",
                               "forfeit": "left_hand", "reason": "left before hand 5"})  # fmt: skip
        await shows(browser, lambda d: " 66 5 4 1 " in _row(d, "p01"),
                    "p01 with the forfeit: 96 - 30 points, 5 hands, 1 forfeit")  # fmt: skip
        await _enter(browser, {"kind": "correction", "player": "p02", "stage": "qualifying",
                               "points": "24", "reason": "hand 3 scored wrongly"})  # fmt: skip
        await shows(browser, lambda d: " 24 4 0 0 +24" in _row(d, "p02"),
                    "p02 with the correction")  # fmt: skip
        audit = await asyncio.to_thread(lambda: browser.find_element(By.ID, "audit").text)
        assert (
            "p02: correction of +24 points in qualifying; by referee: hand 3 scored wrongly"
            in audit
        )
        assert "p01: forfeit (left_hand) of hand 5 of cup.qualifying.r1.t1" in audit


async def test_an_operator_whose_session_ended_is_told_to_log_in_again(
    broker: Broker, browser: webdriver.Chrome, tmp_path: Path
) -> None:
    async with playing_floor(broker, tmp_path) as floor:

        def play(hand: int) -> None:
            for n, table in enumerate(TABLES):
                players = tuple(f"p{4 * n + k:02d}" for k in range(1, 5))
                floor.links[table].record_result(hand_result(hand, f"s.{table}", players))

        await log_in(browser, floor, play)
        await asyncio.to_thread(browser.get, floor.url("/tables/t1"))
        await shows(browser, lambda d: "log out" in d.find_element(By.TAG_NAME, "header").text,
                    "the logged-in header on the table page")  # fmt: skip
        # The recorder restarts: the operators' sessions (kept in its memory) are gone.
        floor.dashboard.sessions = Sessions.fresh({"referee": hash_password(PASSWORD)})
        play(2)
        ended = "your operator session ended (the recorder restarted or it expired): log in again"
        await shows(browser, lambda d: d.find_element(By.TAG_NAME, "header").text.endswith(
                    f"Notices\n{ended}\nlive"), "the header logged out, saying why")  # fmt: skip
        buttons = await asyncio.to_thread(browser.find_elements, By.CSS_SELECTOR, "form button")
        assert buttons and not any(
            await asyncio.to_thread(lambda: [b.is_enabled() for b in buttons])
        )
        # A page loaded with the old cookie says so once, then forgets the cookie.
        await asyncio.to_thread(browser.get, floor.url("/"))
        header = await asyncio.to_thread(lambda: browser.find_element(By.TAG_NAME, "header").text)
        assert ended in header and "log out" not in header
        await asyncio.to_thread(browser.get, floor.url("/"))
        header = await asyncio.to_thread(lambda: browser.find_element(By.TAG_NAME, "header").text)
        assert "operator log in" in header and ended not in header
