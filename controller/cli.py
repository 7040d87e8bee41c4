"""The `mahjong-table` command: one console script, one module per subcommand group.

Errors become one line on stderr, `mahjong-table: error: ...`, with exit 2 for bad usage or
input and exit 1 for run-time failures; `--debug` adds the traceback. Only the module of the
command being run is imported (see `controller.commands`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from importlib import import_module

from controller import __version__
from controller.commands import COMMANDS
from controller.errors import TableError, UsageError

# `typing` costs a tenth of `--version`; mypy reads this name as true.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NoReturn

PROG = "mahjong-table"


class _Formatter(argparse.HelpFormatter):
    """argparse's help formatter, sized without `shutil` (whose import, with its compression
    modules, every command would pay: argparse makes a formatter for each subcommand group)."""

    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
    ) -> None:
        width = _columns() - 2 if width is None else width
        super().__init__(prog, indent_increment, max_help_position, width)


def _columns() -> int:
    import os

    try:
        return int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        pass
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        return 80


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are a single line and exit 2."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]

    def error(self, message: str) -> NoReturn:
        """Print `mahjong-table: error: <message>` and exit 2."""
        self.exit(2, f"{PROG}: error: {message} (see --help)\n")


class _Version(argparse.Action):
    """`--version`: one line, without loading argparse's help formatter (shutil, textwrap)."""

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        sys.stdout.write(f"{PROG} {__version__}\n")
        parser.exit()


class _Subcommands(argparse._SubParsersAction):  # type: ignore[type-arg]
    """Fills in each command's --help line from the command table."""

    def add_parser(self, name: str, **kwargs: object) -> argparse.ArgumentParser:
        command = COMMANDS.get(name)
        if command is not None:
            kwargs.setdefault("help", command.help)
        parser: argparse.ArgumentParser = super().add_parser(name, **kwargs)  # type: ignore[arg-type]
        return parser


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The command-line parser; the command named in `argv` is registered in full (all of
    them when `argv` is None), the others only by name and help line."""
    parser = OneLineParser(
        prog=PROG,
        description="Run an automatic mahjong table, its simulator, diagnostics and the venue hub.",
    )
    parser.add_argument("--version", action=_Version, nargs=0, help="show the version and exit")
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    parser.register("action", "commands", _Subcommands)
    commands = parser.add_subparsers(
        dest="command",
        metavar="COMMAND",
        parser_class=OneLineParser,
        required=True,
        action="commands",
    )
    chosen = _command_in(argv)
    for name, command in COMMANDS.items():
        if argv is None or name == chosen:
            import_module(command.module).register(commands)
        else:
            commands.add_parser(name)
    return parser


def _command_in(argv: Sequence[str] | None) -> str | None:
    """The subcommand named in argv: its first word that is not an option."""
    return next((word for word in argv or () if not word.startswith("-")), None)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the process exit status."""
    words = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(words)
    args = parser.parse_args(words)
    try:
        return int(args.handler(args) or 0)
    except UsageError as exc:
        return _fail(args.debug, 2, str(exc))
    except KeyboardInterrupt:
        return _fail(args.debug, 130, "interrupted")
    except Exception as exc:
        return _fail(args.debug, 1, _describe(exc))


def _describe(exc: BaseException) -> str:
    if isinstance(exc, TableError):
        return str(exc)
    if isinstance(exc, OSError):
        from controller.errors import describe_os_error

        return describe_os_error(exc)
    return f"internal error: {type(exc).__name__}: {exc} (run with --debug for the traceback)"


def _fail(debug: bool, status: int, message: str) -> int:
    if debug:
        import traceback  # only with --debug: it costs every cold start otherwise

        traceback.print_exc()
    print(f"{PROG}: error: {message}", file=sys.stderr)
    return status
