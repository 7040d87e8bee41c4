"""`mahjong-table replay FILE [--json] [--step]`: run a hand's black box through the referee
again and print its result (the same result the table recorded).

--json prints the result as JSON; --step prints the moves one by one first.
A file that is not a black box exits 2 with the line that is wrong. A last line cut short
(what a crash or a power cut leaves: the table writes every line whole, ending in a newline)
is left out and said so on stderr; the whole lines before it are replayed.
"""

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from controller.errors import UsageError
from controller.table.referee.blackbox import MAX_LINE, MAX_LINES, BlackBoxError, read, replay
from controller.table.referee.result import move_line, result_json
from controller.table.tiles import seat_name


def register(commands: Any) -> None:
    """Add `replay` to the CLI."""
    parser = commands.add_parser(
        "replay",
        help="re-run a hand's black box through the referee",
        description="Re-run a hand's black box (blackbox/*.jsonl beside the outbox) through the "
        "referee and print the hand's result.",
    )
    parser.add_argument("file", type=Path, metavar="FILE", help="the hand's black box")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("--step", action="store_true", help="print every move as it is made")
    parser.set_defaults(handler=run_replay)


def run_replay(args: argparse.Namespace) -> int:
    """Replay one black box."""
    try:
        lines = _lines(args.file)
    except OSError as error:
        raise UsageError(f"cannot read {args.file}: {error.strerror}") from None
    if lines and len(lines) <= MAX_LINES and not lines[-1].endswith(b"\n"):
        torn = lines.pop()
        print(
            f"mahjong-table: note: the last line ({len(lines) + 1}) of {args.file} is torn "
            f"({len(torn)} bytes, no end of line), as a crash leaves it: replaying the "
            f"{len(lines)} whole lines before it",
            file=sys.stderr,
        )
    try:
        setup, inputs = read(lines)
    except BlackBoxError as error:
        raise UsageError(f"{args.file} is not a black box that can be replayed: {error}") from None
    referee, result = replay(setup, inputs)
    if args.step:
        for move in referee.play.moves:
            print(move_line(move))
    if result is None:
        print(f"the hand in {args.file} did not end (the black box stops in play)")
        return 1
    if args.json:
        print(json.dumps(result_json(result), ensure_ascii=False, indent=2))
        return 0
    print(f"hand over: {result.reason}")
    for win in result.wins:
        print(f"  seat {seat_name(win.place)} wins ({win.win_type.value}): {win.total} {win.unit}")
    payments = "  ".join(f"{seat_name(p)} {a:+d}" for p, a in enumerate(result.totals))
    print(f"  payments: {payments}")
    for incident in result.incidents:
        ruling = f" [{incident.ruling}]" if incident.ruling else ""
        print(f"  incident{ruling}: {incident.detail}")
    print(f"  {len(result.moves)} moves")
    return 0


def _lines(path: Path) -> list[bytes]:
    """The file's lines, each cut at one byte over the longest a black box may hold."""
    lines: list[bytes] = []
    with path.open("rb") as file:
        while len(lines) <= MAX_LINES:
            line = file.readline(MAX_LINE + 1)
            if not line:
                break
            lines.append(line)
    return lines
