"""The `mahjong-table` command: one console script, one module per subcommand group.

Errors become one line on stderr, `mahjong-table: error: ...`, with exit 2 for bad usage or
input and exit 1 for run-time failures; `--debug` adds the traceback.
"""

import argparse
import sys
import traceback
from collections.abc import Sequence
from typing import NoReturn

from controller import __version__
from controller.commands import COMMAND_MODULES
from controller.errors import TableError, UsageError

PROG = "mahjong-table"


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are a single line and exit 2."""

    def error(self, message: str) -> NoReturn:
        """Print `mahjong-table: error: <message>` and exit 2."""
        self.exit(2, f"{PROG}: error: {message} (see --help)\n")


def build_parser() -> argparse.ArgumentParser:
    """The full command-line parser, with every subcommand registered."""
    parser = OneLineParser(
        prog=PROG,
        description="Run an automatic mahjong table, its simulator, diagnostics and the venue hub.",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    commands = parser.add_subparsers(
        dest="command", metavar="COMMAND", parser_class=OneLineParser, required=True
    )
    for module in COMMAND_MODULES:
        module.register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the process exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args) or 0)
    except UsageError as exc:
        return _fail(args.debug, 2, str(exc))
    except KeyboardInterrupt:
        return _fail(args.debug, 130, "interrupted")
    except Exception as exc:
        return _fail(args.debug, 1, _describe(exc))


def _describe(exc: BaseException) -> str:
    if isinstance(exc, TableError | OSError):
        return str(exc)
    return f"internal error: {type(exc).__name__}: {exc} (run with --debug for the traceback)"


def _fail(debug: bool, status: int, message: str) -> int:
    if debug:
        traceback.print_exc()
    print(f"{PROG}: error: {message}", file=sys.stderr)
    return status
