"""What a running recorder tells `hub status`: a small file in a run folder (a tmpfs such as
/run/mahjong-hub, so it can still be written when the recorder's own disk is full), rewritten
whenever the recorder's role or its store's state changes: active or standby, since when, and
since when and why its results store is down."""

import asyncio
import contextlib
import logging
import os
from pathlib import Path
from typing import Literal

import msgspec

from controller.venue.async_store import AsyncStore

_log = logging.getLogger(__name__)
DEFAULT_RUN_DIR = Path("/run/mahjong-hub")
Role = Literal["active", "standby"]


class RunState(msgspec.Struct, frozen=True):
    """One recorder's state as `hub status` shows it."""

    name: str
    pid: int
    role: Role
    since: float
    store: str
    store_down_since: float | None = None
    store_fault: str = ""


def state_path(run_dir: Path, name: str, role: Role) -> Path:
    """The state file of recorder `name` in one role (a standby beside the active one)."""
    return run_dir / (f"hub-{name}.json" if role == "active" else f"hub-{name}.standby.json")


def read_state(path: Path) -> RunState | None:
    """The state a recorder last wrote (None: none, or unreadable)."""
    try:
        return msgspec.json.decode(path.read_bytes()[:65536], type=RunState)
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        return None


def is_running(pid: int) -> bool:
    """Whether a process of that id is alive."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _write(path: Path, state: RunState) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    spare = path.with_suffix(".tmp")
    spare.write_bytes(msgspec.json.encode(state))
    spare.replace(path)


class RunStateFile:
    """Keeps one recorder's state file up to date (written off the event loop)."""

    def __init__(
        self, run_dir: Path, name: str, store: AsyncStore, role: Role, since: float
    ) -> None:
        self.run_dir = run_dir
        self.name = name
        self.store = store
        self.role = role
        self.since = since
        self._writes: set[asyncio.Task[None]] = set()
        self._failed = False

    def state(self) -> RunState:
        """The state as it is now."""
        outage = self.store.outage
        return RunState(
            name=self.name,
            pid=os.getpid(),
            role=self.role,
            since=self.since,
            store=self.store.where,
            store_down_since=outage.since if outage else None,
            store_fault=outage.fault.text if outage else "",
        )

    def write_now(self) -> None:
        """Write the state at once (before the recorder's loop runs)."""
        try:
            _write(self.path, self.state())
        except OSError as exc:
            self._failed = True
            _log.warning("cannot write %s for `hub status`: %s", self.path, exc.strerror)

    def follow(self) -> None:
        """Write again whenever the store goes down or comes back."""
        self.store.listeners.append(self.changed)

    @property
    def path(self) -> Path:
        """The file for the recorder's present role."""
        return state_path(self.run_dir, self.name, self.role)

    async def become(self, role: Role, since: float) -> None:
        """The recorder took over: written before this returns."""
        await asyncio.to_thread(self.remove)
        self.role, self.since = role, since
        await self._write(self.path, self.state())

    def changed(self) -> None:
        """Write the state again (in the background)."""
        task = asyncio.ensure_future(self._write(self.path, self.state()))
        self._writes.add(task)
        task.add_done_callback(self._writes.discard)

    async def _write(self, path: Path, state: RunState) -> None:
        try:
            await asyncio.to_thread(_write, path, state)
        except OSError as exc:
            if not self._failed:
                _log.warning("cannot write %s for `hub status`: %s", self.path, exc.strerror)
            self._failed = True

    def remove(self) -> None:
        """The recorder stopped."""
        with contextlib.suppress(OSError):
            self.path.unlink()
