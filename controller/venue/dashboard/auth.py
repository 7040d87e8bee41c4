"""Operators of the dashboard: a password file of scrypt hashes, and signed session cookies.

The file has one operator a line, `name:scrypt:N:r:p:salt:hash` (hex), written by
`mahjong-table hub dashboard-user FILE NAME`. A login gives a cookie `name.expiry.mac`, the
MAC keyed by a secret made when the dashboard starts (a restart logs everyone out); forms that
act carry a token derived from the cookie, so another site cannot post them.
"""

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from pathlib import Path

from controller.errors import ConfigError

_N, _R, _P = 2**14, 8, 1
SESSION_S = 12 * 3600


def hash_password(password: str, salt: bytes | None = None) -> str:
    """The stored form of a password."""
    salt = salt or secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=_N, r=_R, p=_P)
    return f"scrypt:{_N}:{_R}:{_P}:{salt.hex()}:{digest.hex()}"


def _check(password: str, stored: str) -> bool:
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
class Sessions:
    """Who is logged in, checked from the cookie alone."""

    operators: dict[str, str]
    secret: bytes

    @classmethod
    def fresh(cls, operators: dict[str, str]) -> "Sessions":
        """Sessions with a new random secret."""
        return cls(operators, secrets.token_bytes(32))

    def login(self, name: str, password: str, now: float) -> str | None:
        """A cookie value for a right name and password, else None."""
        stored = self.operators.get(name)
        if stored is None or not _check(password, stored):
            return None
        body = f"{name}.{int(now) + SESSION_S}"
        return f"{body}.{self._mac(body)}"

    def who(self, cookie: str | None, now: float) -> str | None:
        """The operator a cookie belongs to, if it is genuine and unexpired."""
        if not cookie or cookie.count(".") < 2:
            return None
        body, _, mac = cookie.rpartition(".")
        name, _, expiry = body.rpartition(".")
        if not hmac.compare_digest(mac, self._mac(body)) or not expiry.isdigit():
            return None
        return name if int(expiry) > now and name in self.operators else None

    def token(self, cookie: str) -> str:
        """The form token that goes with a session cookie."""
        return self._mac("form:" + cookie)[:32]

    def _mac(self, text: str) -> str:
        return hmac.new(self.secret, text.encode(), hashlib.sha256).hexdigest()
