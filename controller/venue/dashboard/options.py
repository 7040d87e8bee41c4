"""The dashboard's options on `mahjong-table hub` and `hub dashboard-user` (argparse only: the
dashboard itself is imported when --http is given, never on the table daemon's path)."""

import argparse
import getpass
import re
import sys
from pathlib import Path
from typing import Any

from controller.errors import UsageError
from controller.venue.dashboard.auth import hash_password

_ADDRESS = re.compile(r"^(?:\[([0-9a-fA-F:.]+)\]|([\w.-]*)):(\d{1,5})$")


def add_options(parser: argparse.ArgumentParser) -> None:
    """--http and its companions on the recorder."""
    parser.add_argument(
        "--http",
        metavar="HOST:PORT",
        help="serve the live floor dashboard here (off unless given; ':8080' means 127.0.0.1:8080)",
    )
    parser.add_argument(
        "--http-users",
        type=Path,
        help="operators' password file (without it the dashboard is read-only)",
    )
    parser.add_argument("--http-cert", type=Path, help="serve HTTPS with this certificate")
    parser.add_argument("--http-key", type=Path, help="the HTTPS certificate's key")
    parser.add_argument(
        "--tournament", type=Path, help="tournament definition: standings on the dashboard"
    )


def http_address(text: str) -> tuple[str, int]:
    """(host, port) of `--http`; an empty host is the loopback address."""
    match = _ADDRESS.match(text)
    if match is None or not 0 < int(match.group(3)) < 65536:
        raise UsageError(f"--http {text!r}: give HOST:PORT, e.g. 127.0.0.1:8080")
    return match.group(1) or match.group(2) or "127.0.0.1", int(match.group(3))


def register_user_command(actions: Any) -> None:
    """Add `hub dashboard-user FILE NAME`."""
    user = actions.add_parser(
        "dashboard-user",
        help="add (or replace) a dashboard operator in a password file",
        description="Read a password (twice on a terminal, once from a pipe) and write its "
        "scrypt hash for NAME into FILE, the dashboard's --http-users file.",
    )
    user.add_argument("file", type=Path)
    user.add_argument("name")
    user.set_defaults(handler=run_user)


def run_user(args: argparse.Namespace) -> int:
    """Write one operator's hash."""
    if not re.fullmatch(r"[\w.@-]{1,64}", args.name):
        raise UsageError("NAME: letters, digits and . @ _ - only")
    if sys.stdin.isatty():
        password = getpass.getpass("password: ")
        if getpass.getpass("again: ") != password:
            raise UsageError("the two passwords differ")
    else:
        password = sys.stdin.readline().rstrip("\n")
    if len(password) < 8:
        raise UsageError("the password must have at least 8 characters")
    lines = []
    if args.file.exists():
        lines = [
            x
            for x in args.file.read_text(encoding="utf-8").splitlines()
            if not x.startswith(f"{args.name}:")
        ]
    lines.append(f"{args.name}:{hash_password(password)}")
    args.file.write_text("\n".join(lines) + "\n", encoding="utf-8")
    args.file.chmod(0o600)
    sys.stdout.write(f"operator {args.name} written to {args.file}\n")
    return 0
