"""Debian's Chromium, headless, driven by selenium through Debian's chromedriver (nothing is
downloaded: both binaries are named explicitly)."""

import asyncio
import shutil
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1024,768")  # fmt: skip


def chromium_binaries() -> tuple[str, str] | None:
    """(chromium, chromedriver) when both are installed."""
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    return (browser, driver) if browser and driver else None


def open_browser(profile: Path) -> webdriver.Chrome:
    """A fresh headless Chromium with its own profile directory; skips (saying why) only
    where Chromium cannot be installed."""
    found = chromium_binaries()
    if found is None:
        pytest.skip("chromium and chromium-driver are not installed (scripts/bootstrap.sh "
                    "installs them with apt; this machine could not)")  # fmt: skip
    options = webdriver.ChromeOptions()
    options.binary_location = found[0]
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    return webdriver.Chrome(options=options, service=Service(executable_path=found[1]))


async def shows(
    driver: webdriver.Chrome, check: Callable[[webdriver.Chrome], bool], what: str
) -> None:
    """Wait (bounded) until the page shows something. The browser tells no one when its page
    changes, so it is asked again every 0.1 s (as WebDriverWait does), off the loop; an
    element swapped while it was read counts as not shown yet."""
    deadline = time.monotonic() + 30
    while not await asyncio.to_thread(_safely, check, driver):
        if time.monotonic() > deadline:
            page = await asyncio.to_thread(_page_text, driver)
            raise AssertionError(f"the dashboard never showed: {what}; it shows: {page}")
        await asyncio.sleep(0.1)


def _page_text(driver: webdriver.Chrome) -> str:
    """Where the browser is and the start of what its page says (for a failure's message)."""
    try:
        text = driver.find_element(By.TAG_NAME, "body").text
    except WebDriverException as error:
        text = f"(no page text: {error.msg})"
    return f"{driver.current_url}: {text[:500]!r}"


def _safely(check: Callable[[webdriver.Chrome], bool], driver: webdriver.Chrome) -> bool:
    try:
        return check(driver)
    except StaleElementReferenceException:
        return False
