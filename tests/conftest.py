"""Shared fixtures: real parts for every test (a mosquitto broker, pseudo-terminals, MockFactory
GPIO pins) and a manual clock so that timing is tested without sleeping."""

import contextlib
import logging
import os
import pty
import resource
import subprocess
import tempfile
import tty
from collections.abc import Iterator
from pathlib import Path

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory, MockPWMPin
from hypothesis import settings

from controller.clock import ManualClock
from devsupport import host_guard
from devsupport.mosquitto import Broker, find_mosquitto
from tests.scheduling import BothEnds

settings.register_profile("suite", deadline=None)
settings.load_profile("suite")
"""No time limit per generated example: speed is measured in bench/, never asserted in a test
(a loaded machine made examples that talk to a subprocess, such as the C codec, miss hypothesis's
default 200 ms deadline)."""

HOST_TOUCHES: list[str] = []
"""What tests tried to change under the host's /etc, /run or /var (each was refused)."""


def pytest_configure(config: pytest.Config) -> None:
    """No test touches the host: its runtime directory is a temp folder, and the audit hook
    refuses writes, sockets and databases under /etc, /run and /var."""
    run_dir = Path(tempfile.mkdtemp(prefix="mahjong-test-run-"))
    host_guard.private_run_dir(run_dir)
    host_guard.install(HOST_TOUCHES)


@pytest.fixture(autouse=True)
def host_untouched() -> Iterator[None]:
    """Fails the test that tried to touch the host (even if it caught the refusal)."""
    before = len(HOST_TOUCHES)
    yield
    tried = HOST_TOUCHES[before:]
    if tried:
        pytest.fail(f"the test tried to touch the host: {'; '.join(tried)}")


def pytest_addoption(parser: pytest.Parser) -> None:
    """`--hardware PORT`: run the link tests against the real table MCU on PORT."""
    parser.addoption(
        "--hardware",
        metavar="PORT",
        default=None,
        help="device or socket:// URL of a real table MCU: the link tests talk to it instead of "
        "the simulator (tests that need the simulator's fault injection are deselected)",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Slow tests first (with workers, each starts as soon as a worker is free: see
    `tests/scheduling.py`); with --hardware, only the tests that can run against a real MCU."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)  # stable
    if config.getoption("--hardware") is None:
        return
    keep = [item for item in items if "hardware_link" in getattr(item, "fixturenames", ())]
    config.hook.pytest_deselected(items=[item for item in items if item not in keep])
    items[:] = keep


def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> BothEnds | None:
    """With `--dist loadgroup`, xdist's groups on a queue taken from both ends (see
    `tests/scheduling.py`)."""
    return BothEnds(config, log) if config.getvalue("dist") == "loadgroup" else None


def pytest_runtest_setup(item: pytest.Item) -> None:
    """With --dist loadgroup, a test marked `xdist_group` that xdist did not group (its id has
    no `@group`) fails, saying why: its group's shared set-up would be made once per worker."""
    if not getattr(item.config.option, "loadgroup", False):
        return
    if item.get_closest_marker("xdist_group") and "@" not in item.nodeid:
        pytest.fail(
            f"pytest-xdist did not put this test in its xdist_group: pytest {pytest.__version__}"
            " is one that xdist cannot group with (pytest-xdist issue 1386)"
        )


STARVABLE_NICE = 10
"""How much a starvable test lowers its CPU priority while it runs (nice +10: about a tenth of
the CPU share of a test at the ordinary priority)."""


def _can_raise_priority_back(nice: int) -> bool:
    """Root may; anyone else only within RLIMIT_NICE (which allows nice down to 20 - limit)."""
    return os.geteuid() == 0 or 20 - resource.getrlimit(resource.RLIMIT_NICE)[0] <= nice


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    """With several workers, a test that does not depend on real time (`starvable`: on virtual
    time, or building and installing; `looptime`) runs with its fixtures at a lower CPU
    priority: starving it changes nothing it asserts, while a test on real time on another
    worker (an MCU heartbeat over a pty, a command's reply timeout, a browser) gets the CPU
    first. Linux keeps the priority per thread: this lowers the test's thread (and the threads
    and processes it starts meanwhile) and raises it back afterwards, which needs root or a
    RLIMIT_NICE that allows it (else the test runs at the ordinary priority)."""
    starvable = item.get_closest_marker("starvable") or item.get_closest_marker("looptime")
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    if starvable is None or workers < 2:  # alone, it has no other worker to yield to
        return (yield)
    nice = os.getpriority(os.PRIO_PROCESS, 0)
    if not _can_raise_priority_back(nice):
        return (yield)
    os.setpriority(os.PRIO_PROCESS, 0, min(nice + STARVABLE_NICE, 19))
    try:
        return (yield)
    finally:
        os.setpriority(os.PRIO_PROCESS, 0, nice)


FIRMWARE_SOURCES = Path(__file__).resolve().parents[1] / "hardware" / "firmware"


def build_firmware(build_dir: Path, *targets: str) -> subprocess.CompletedProcess[str]:
    """`make -C hardware/firmware BUILD=build_dir targets...` (the sources stay clean)."""
    return subprocess.run(
        ["make", "-s", "-C", str(FIRMWARE_SOURCES), f"BUILD={build_dir}", *targets],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )


@pytest.fixture(scope="session")
def firmware_host(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The C firmware's host build, made once per test session in a temporary folder."""
    build = tmp_path_factory.mktemp("firmware")
    build_firmware(build, "host")
    return build / "host" / "mahjong-fw-host"


@pytest.fixture(autouse=True)
def root_logging() -> Iterator[None]:
    """The root logger as it was before the test: a command run in process (`run`, `hub`) sets
    up its own stderr handler and level, which must not outlive the test (its stream is the
    test's captured stderr, closed afterwards)."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    for handler in list(root.handlers):
        if handler not in handlers:
            root.removeHandler(handler)
    for handler in handlers:
        if handler not in root.handlers:
            root.addHandler(handler)
    root.setLevel(level)


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    """A running mosquitto on a free loopback port; `.stop()`, `.kill()`, `.restart()`."""
    if find_mosquitto() is None:
        pytest.fail("mosquitto is not installed: run ./scripts/test, which installs it")
    instance = Broker(tmp_path / "broker")
    instance.start()
    yield instance
    instance.kill()


class PtyPair:
    """Two ends of a pseudo-terminal in raw mode: `device` is what a serial client opens by path."""

    def __init__(self) -> None:
        self.controller_fd, self.device_fd = pty.openpty()
        tty.setraw(self.controller_fd)
        tty.setraw(self.device_fd)
        self.device_path = os.ttyname(self.device_fd)

    def close(self) -> None:
        """Close both ends (idempotent)."""
        for fd in (self.controller_fd, self.device_fd):
            with contextlib.suppress(OSError):
                os.close(fd)


@pytest.fixture
def pty_pair() -> Iterator[PtyPair]:
    """A raw pseudo-terminal pair: the simulated MCU holds `controller_fd`, clients open
    `device_path` like a USB serial device."""
    pair = PtyPair()
    yield pair
    pair.close()


@pytest.fixture
def pins() -> Iterator[MockFactory]:
    """gpiozero's MockFactory as the pin factory for the test; reset afterwards."""
    previous = Device.pin_factory
    factory = MockFactory(pin_class=MockPWMPin)
    Device.pin_factory = factory
    yield factory
    factory.reset()
    Device.pin_factory = previous


@pytest.fixture
def clock() -> ManualClock:
    """A clock that moves only when the test calls `advance(seconds)`."""
    return ManualClock()
