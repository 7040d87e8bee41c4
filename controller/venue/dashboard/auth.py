"""Operators of the dashboard: a password file of scrypt hashes, and sessions kept on the server.

The file has one operator a line, `name:scrypt:N:r:p:salt:hash` (hex), written by
`mahjong-table hub dashboard-user FILE NAME`. Opening the login form starts a session (its
cookie is a random key); a right name and password give a new session for the operator; a log
out deletes it; a restart logs everyone out. Every form, the login form too, carries its
session's token, so another site cannot post it. Tries are limited (`login_guard`).
"""

import asyncio
import contextlib
import enum
import hashlib
import hmac
import logging
import os
import secrets
import threading
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from controller.errors import ConfigError
from controller.venue.dashboard.login_guard import LoginGuard

_log = logging.getLogger(__name__)

_N, _R, _P = 2**14, 8, 1
SESSION_S = 12 * 3600
FORM_S = 1800.0
"""How long a login form stays good."""
MAX_SESSIONS = 10_000
HOLD_MAX_S = 10.0
"""The longest a too-early log in request is held before it is answered."""
HELD_MAX = 256
"""Requests held back at once; beyond, they are answered at once."""
MAX_CHECKING = 4
"""Checks handed to the hashing thread and not done (it runs at the lowest priority, so under
load it may fall behind the pace)."""
BUSY_HOLD_S = 2.0
"""How long a try is held before it is told the checks are busy."""
HASHES_PER_S = 2.0
"""At most this many password checks begin a second, whoever asks (a check is about 0.1 s of
one processor, and sweeps 16 MiB of memory through the processor's caches)."""
BEHIND_HASHES_PER_S = 0.2
"""The same while the recorder is behind (results wait to be stored): recording comes first.
The checks are most of what a login flood costs the recorder (answering one of its requests
takes about a millisecond of the event loop), and while it is behind a flood's every new address
still gets its first try checked."""
_DUMMY = f"scrypt:{_N}:{_R}:{_P}:{'00' * 16}:{'00' * 64}"
"""Checked against for an unknown name: the same hashing as for a known one, never a match."""


def hash_password(password: str, salt: bytes | None = None) -> str:
    """The stored form of a password."""
    salt = salt or secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=_N, r=_R, p=_P)
    return f"scrypt:{_N}:{_R}:{_P}:{salt.hex()}:{digest.hex()}"


def _lowest_priority() -> None:
    """Run the calling thread at the lowest processor priority (Linux: per thread), so that
    hashing passwords takes only time the recorder does not need."""
    with contextlib.suppress(OSError, AttributeError):
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)


def check_password(password: str, stored: str) -> bool:
    """Whether `password` is the one `stored` was made from (the hashing blocks: not on a loop)."""
    try:
        kind, n, r, p, salt, digest = stored.split(":")
        if kind != "scrypt":
            return False
        got = hashlib.scrypt(
            password.encode(),
            salt=bytes.fromhex(salt),
            n=int(n),
            r=int(r),
            p=int(p),
            maxmem=64 * 1024 * 1024,
        )
    except ValueError:
        return False
    return hmac.compare_digest(got.hex(), digest)


def load_operators(path: Path) -> dict[str, str]:
    """name -> stored hash; ConfigError names the line of a malformed entry."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(str(path), None, f"cannot read: {exc.strerror or exc}") from exc
    operators = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        name, sep, stored = line.strip().partition(":")
        if not sep or not name or not stored.startswith("scrypt:") or stored.count(":") != 5:
            raise ConfigError(str(path), number, "expected name:scrypt:N:r:p:salt:hash")
        operators[name] = stored
    return operators


@dataclass
class _Session:
    name: str | None
    """The operator (None: a login form not yet sent)."""
    expires: float
    token: str
    """The form token every form of this session carries."""


class Outcome(enum.Enum):
    """How a log in went."""

    IN = "in"
    WRONG = "wrong"
    TOO_EARLY = "too_early"
    BUSY = "busy"
    BEHIND = "behind"
    """Not checked: the recorder is catching up on results and this address has failed."""
    STALE_FORM = "stale_form"


@dataclass(frozen=True)
class LoginResult:
    """A log in's outcome, the new session cookie when in, the wait when too early."""

    outcome: Outcome
    cookie: str = ""
    wait_s: float = 0.0


class Sessions:
    """Who is logged in: sessions kept here (a cookie is a random key to one), each with its
    form token; a log out deletes its session. Passwords are checked on a thread of their own,
    one at a time, at the lowest processor priority and at most two a second (one every five
    seconds while the recorder is behind), behind the `LoginGuard`'s limits; an unknown name
    costs the same hashing as a known one."""

    def __init__(
        self,
        operators: dict[str, str],
        say: Callable[[str], None] | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        recording_behind: Callable[[], bool] = lambda: False,
    ) -> None:
        self.operators = operators
        self.sleep = sleep
        self.recording_behind = recording_behind
        """Whether results are waiting to be stored now (the dashboard asks its recorder)."""
        self._next_hash = 0.0
        """When the next try may begin its check (the turns given so far)."""
        self._last_start = float("-inf")
        """When the latest check began."""
        self.held = 0
        """Log in requests being held back now."""
        self.guard = LoginGuard(say or (lambda line: _log.warning("%s", line)))
        self._sessions: OrderedDict[str, _Session] = OrderedDict()
        self._forms: OrderedDict[str, _Session] = OrderedDict()
        self._hasher = ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="password-check", initializer=_lowest_priority
        )
        self._checking = 0
        self.checks = 0
        """Passwords hashed (a known name or not)."""

    @classmethod
    def fresh(cls, operators: dict[str, str]) -> "Sessions":
        """Sessions for these operators (nobody logged in yet)."""
        return cls(operators)

    def begin(self, now: float) -> str:
        """A session for a login form (nobody in it yet); returns its cookie. Forms are kept
        apart from operators' sessions, so a flood of forms never ends an operator's."""
        return self._add(self._forms, None, now + FORM_S)

    @staticmethod
    def _add(kept: "OrderedDict[str, _Session]", name: str | None, expires: float) -> str:
        if len(kept) >= MAX_SESSIONS:
            kept.popitem(last=False)  # the oldest (they all last as long)
        cookie = secrets.token_urlsafe(32)
        kept[cookie] = _Session(name, expires, secrets.token_hex(16))
        return cookie

    def _get(self, cookie: str | None, now: float) -> _Session | None:
        key = cookie or ""
        for kept in (self._sessions, self._forms):
            found = kept.get(key)
            if found is not None:
                if found.expires > now:
                    return found
                del kept[key]
        return None

    def who(self, cookie: str | None, now: float) -> str | None:
        """The operator a cookie belongs to, if its session is live and they still exist."""
        found = self._get(cookie, now)
        if found is None or found.name is None or found.name not in self.operators:
            return None
        return found.name

    def token(self, cookie: str | None, now: float) -> str | None:
        """The form token of a live session."""
        found = self._get(cookie, now)
        return None if found is None else found.token

    def logout(self, cookie: str | None) -> None:
        """End a session: its cookie is worth nothing from now on."""
        self._sessions.pop(cookie or "", None)
        self._forms.pop(cookie or "", None)

    async def hold_back(self, client: str, now: float) -> None:
        """Hold a log in request (the form, or a try) from an address that must wait, until its
        wait is over or HOLD_MAX_S passed; at once when HELD_MAX are already held."""
        wait = min(self.guard.address_wait_s(client, now), HOLD_MAX_S)
        if wait <= 0 or self.held >= HELD_MAX:
            return
        self.held += 1
        try:
            await self.sleep(wait)
        finally:
            self.held -= 1

    async def login(
        self, cookie: str | None, token: str, name: str, password: str, client: str, now: float
    ) -> LoginResult:
        """Check a login form sent from `client`: its token, the limits, then the password."""
        form = self._get(cookie, now)
        if form is None or not hmac.compare_digest(form.token, token):
            return LoginResult(Outcome.STALE_FORM)
        wait = self.guard.wait_s(client, name, now)
        if wait > 0:
            return LoginResult(Outcome.TOO_EARLY, wait_s=wait)
        if self._yields(client, now):
            return await self._refused(Outcome.BEHIND, HOLD_MAX_S)
        slot = max(now, self._next_hash)
        if slot - now > HOLD_MAX_S or self._checking >= MAX_CHECKING:
            return await self._refused(Outcome.BUSY, BUSY_HOLD_S)
        self._next_hash = slot + 1.0 / self._hashes_per_s()
        if slot > now:  # its turn among the queued checks
            await self.sleep(slot - now)
            now = slot
        start = max(now, self._last_start + 1.0 / self._hashes_per_s())
        self._last_start = start
        if start > now:  # the recorder fell behind while this try waited: the slower pace
            self._next_hash = max(self._next_hash, start + 1.0 / self._hashes_per_s())
            await self.sleep(start - now)
            now = start
        if self._yields(client, now):  # it fell behind while this try waited its turn
            return LoginResult(Outcome.BEHIND)
        stored = self.operators.get(name)
        self.checks += 1
        loop = asyncio.get_running_loop()
        self._checking += 1
        try:
            right = await loop.run_in_executor(
                self._hasher, check_password, password, stored or _DUMMY
            )
        finally:
            self._checking -= 1
        if stored is None or not right:
            self.guard.failed(client, name, now)
            return LoginResult(Outcome.WRONG)
        self.guard.succeeded(client, name)
        self.logout(cookie)  # a new key once logged in: a planted cookie gains nothing
        return LoginResult(Outcome.IN, cookie=self._add(self._sessions, name, now + SESSION_S))

    def _yields(self, client: str, now: float) -> bool:
        """While the recorder is behind, an address that has failed to log in is not checked
        until it catches up (an address's first try still is)."""
        return self.recording_behind() and self.guard.has_failed(client, now)

    async def _refused(self, outcome: Outcome, hold_s: float) -> LoginResult:
        """Answer a try without checking it, after holding it `hold_s` (a client that insists
        is slowed down: each answer costs the recorder a page), unless too many are held."""
        if self.held < HELD_MAX:
            self.held += 1
            try:
                await self.sleep(hold_s)
            finally:
                self.held -= 1
        return LoginResult(outcome)

    def _hashes_per_s(self) -> float:
        """The pace of password checks now: a flood of log ins from many addresses cannot take
        the processor, and takes less of it while recording is behind."""
        return BEHIND_HASHES_PER_S if self.recording_behind() else HASHES_PER_S

    def close(self) -> None:
        """Stop the password thread."""
        self._hasher.shutdown(wait=False)
