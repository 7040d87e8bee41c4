"""Keeps tests off the host's /etc, /run and /var: an audit hook that refuses, in this process,
every write, directory change, database file and UNIX socket under them (reading a library's
own files there, as ssl and time zones do, stays allowed), and the runtime directory the
daemon's default control socket lives in, moved into a temp folder for child processes too."""

import os
import socket
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from controller.paths import RUN_DIR_VARIABLE

HOST_DIRS = ("/etc", "/run", "/var")
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC


class HostPathTouched(PermissionError):
    """A test tried to change, or talk through, a path of the host's /etc, /run or /var."""


def on_host(path: object) -> bool:
    """True if `path` lies under /etc, /run or /var."""
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    if not isinstance(path, str | os.PathLike):
        return False
    text = os.path.abspath(os.fspath(path))  # noqa: PTH100 (no file system calls in a hook)
    return any(text == top or text.startswith(top + "/") for top in HOST_DIRS)


def _writes(mode: object, flags: object) -> bool:
    if isinstance(mode, str) and any(letter in mode for letter in "wax+"):
        return True
    return isinstance(flags, int) and bool(flags & _WRITE_FLAGS)


def _touched(event: str, args: tuple[object, ...]) -> object | None:
    """The host path an audited event changes or connects to (None: nothing of the host's)."""
    match event:
        case "open" if len(args) >= 3 and _writes(args[1], args[2]) and on_host(args[0]):
            return args[0]
        case "os.mkdir" | "os.remove" | "os.rmdir" | "os.chmod" | "os.chown" | "shutil.rmtree":
            return args[0] if args and on_host(args[0]) else None
        case "os.rename":
            return next((a for a in args[:2] if on_host(a)), None)
        case "sqlite3.connect":
            return args[0] if args and on_host(args[0]) else None
        case "socket.connect" | "socket.bind":
            sock, address = args[0], args[1]
            family = getattr(sock, "family", None)
            if family == socket.AF_UNIX and on_host(address):
                return address
    return None


def install(refused: list[str]) -> Callable[[str, tuple[Any, ...]], None]:
    """Add the audit hook (for the rest of the process); each refusal is also noted."""

    def hook(event: str, args: tuple[Any, ...]) -> None:
        path = _touched(event, args)
        if path is not None:
            refused.append(f"{event} {path}")
            raise HostPathTouched(f"a test may not touch the host's {path} ({event})")

    sys.addaudithook(hook)
    return hook


def private_run_dir(directory: Path) -> None:
    """The daemon's default runtime directory (its control socket) for this process and its
    children: `directory`, never /run/mahjong-table."""
    os.environ[RUN_DIR_VARIABLE] = str(directory)
