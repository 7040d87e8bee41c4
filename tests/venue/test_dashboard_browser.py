"""The floor dashboard in a real headless Chromium, served by `mahjong-table hub --http`
(its own process) recording from a real mosquitto: `simulate` plays sessions into it, the
floor shows the table, a new result appears without a reload, another table's fault appears
with its advice, and a screenshot is kept in the test's tmp dir."""

import asyncio
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By

from controller.hub.contract.table_events import TableStatus
from devsupport.mosquitto import Broker, free_port
from tests.hub.factories import KEY_TEXT, SessionBook
from tests.hub.helpers import make_link, running
from tests.sim.test_simulate_hub import RecorderProcess
from tests.venue.browser import open_browser, shows

pytestmark = [pytest.mark.broker, pytest.mark.slow]
ROOT = Path(__file__).parents[2]
SIM_KEY = "a1b2c3d4e5f60718293a4b5c6d7e8f90"
ADVICE = (
    "motor stalled: the wall lift did not reach the top within 4 s. Switch the table off, "
    "clear any tile under the lift, then switch it on again"
)


class DashboardRecorder(RecorderProcess):
    """`mahjong-table hub --http` in its own process."""

    def __init__(self, url: str, db: Path, keys: Path, port: int) -> None:
        super().__init__(url, db, keys, "--http", f"127.0.0.1:{port}", ready="dashboard on http://")


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[webdriver.Chrome]:
    driver = open_browser(tmp_path / "chromium-profile")
    yield driver
    driver.quit()


async def _simulate(url: str, keys: Path, hands: int, seed: int) -> None:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "controller", "simulate", "--fast", "--plain", "--hands",
        str(hands), "--seed", str(seed), "--mqtt", url, "--keys", str(keys), cwd=ROOT,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
    )  # fmt: skip
    out, _ = await asyncio.wait_for(process.communicate(), 90)
    assert process.returncode == 0, out.decode()


def _text(driver: webdriver.Chrome, element_id: str) -> str:
    """An element's text ('' while the live script is swapping it for a newer one)."""
    try:
        found = driver.find_elements(By.ID, element_id)
        return found[0].text if found else ""
    except StaleElementReferenceException:
        return ""


def _card_text(driver: webdriver.Chrome, table: str) -> str:
    return _text(driver, f"table-{table}")


async def test_the_floor_updates_live_in_a_real_browser(
    broker: Broker, browser: webdriver.Chrome, tmp_path: Path
) -> None:
    keys = tmp_path / "hub-keys.toml"
    keys.write_text(f'[tables]\nsim-table = "{SIM_KEY}"\nlift-table = "{KEY_TEXT}"\n')
    keys.chmod(0o600)
    port = free_port()
    recorder = DashboardRecorder(broker.url, tmp_path / "hub.sqlite3", keys, port)
    try:
        await _simulate(broker.url, keys, hands=2, seed=1)
        await asyncio.to_thread(browser.get, f"http://127.0.0.1:{port}/")
        await shows(browser, lambda d: "last result: hand 2" in _card_text(d, "sim-table"),
                     "the simulated table with its two results")  # fmt: skip
        await asyncio.to_thread(browser.execute_script, "window.notReloaded = true;")

        await _simulate(broker.url, keys, hands=1, seed=2)
        await shows(browser, lambda d: "3 results recorded" in _text(d, "live"),
                     "the third result, pushed without a reload")  # fmt: skip

        link = make_link(broker.url, tmp_path / "lift.db", SessionBook(), table="lift-table")
        async with running(link.run()):
            link.update_status(TableStatus(state="fault", fault=ADVICE))
            await shows(browser, lambda d: ADVICE in _card_text(d, "lift-table"),
                         "the fault with its advice")  # fmt: skip
            card = browser.find_element(By.ID, "table-lift-table")
            assert "fault" in (card.get_attribute("class") or "")
            assert browser.execute_script("return window.notReloaded === true;")
            shot = tmp_path / "floor.png"
            assert browser.save_screenshot(str(shot)) and shot.stat().st_size > 1000
    finally:
        recorder.stop()
