"""`mahjong-table rules`: validate and score one hand, or list the waits of a 13-tile hand.

mahjong-table rules score --ruleset R HAND [--meld KIND:TILES ...] [--win-tile T] [--win W]
                          [--seat S] [--discarder S] [--flowers TILES] [--json]
                          [--draw-streak N] [--won SEATS] [--ruleset-file PATH]
mahjong-table rules waits --ruleset R HAND13 [--meld KIND:TILES ...] [--json]
An invalid hand is a normal answer (exit 0, valid false); malformed input exits 2.
"""

import argparse
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from controller.errors import UsageError
from controller.rules import (
    MODULES,
    Meld,
    RulesError,
    Ruleset,
    Score,
    Seat,
    Win,
    WinType,
    format_tiles,
    get_ruleset,
    parse_tile,
    parse_tiles,
    tile_str,
)

SEATS = [seat.name for seat in Seat]


def register(commands: Any) -> None:
    """Add the `rules` group to the CLI."""
    group = commands.add_parser("rules")
    actions = group.add_subparsers(dest="action", metavar="ACTION", required=True)
    score = actions.add_parser(
        "score",
        help="validate and score one declared win",
        description="Validate and score one hand. HAND is the concealed tiles in mpsz notation "
        "(123m456p789s11z; honours 1z-7z = E S W N White Green Red) including the winning tile, "
        "which is the last tile unless --win-tile names it.",
    )
    _common(score)
    score.add_argument("hand", metavar="HAND", help="concealed tiles with the winning tile")
    score.add_argument("--win-tile", metavar="T", help="the winning tile (default: last of HAND)")
    score.add_argument(
        "--win", choices=[w.value for w in WinType], default="discard", help="how the tile came"
    )
    score.add_argument("--seat", choices=SEATS, default="E", help="the winner's seat (default E)")
    score.add_argument(
        "--discarder", choices=SEATS, help="who discarded (default: the seat before the winner)"
    )
    score.add_argument("--flowers", default="", metavar="TILES", help="flowers held, e.g. 15f")
    score.add_argument(
        "--draw-streak", type=int, default=0, metavar="N", help="drawn hands in a row before this"
    )
    score.add_argument(
        "--won", default="", metavar="SEATS", help="seats that already won this hand, e.g. NW"
    )
    score.set_defaults(handler=run_score)
    waits = actions.add_parser(
        "waits",
        help="list the tiles that complete a 13-tile hand",
        description="List the tiles that would make HAND13 (plus its melds) a valid win.",
    )
    _common(waits)
    waits.add_argument("hand", metavar="HAND13", help="concealed tiles (13 less 3 per meld)")
    waits.set_defaults(handler=run_waits)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--ruleset", required=True, choices=list(MODULES), help="ruleset name")
    parser.add_argument(
        "--ruleset-file", type=Path, metavar="PATH", help="a venue's TOML laid over the ruleset"
    )
    parser.add_argument(
        "--meld",
        action="append",
        default=[],
        metavar="KIND:TILES",
        help="a declared set: chow, pung, kong or concealed-kong, e.g. pung:555z (repeatable)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")


@contextmanager
def _usage() -> Iterator[None]:
    """Turn the rules engine's input errors into one-line usage errors (exit 2)."""
    try:
        yield
    except RulesError as exc:
        raise UsageError(str(exc)) from None


def run_score(args: argparse.Namespace) -> int:
    """Score the hand and print the result."""
    with _usage():
        ruleset = get_ruleset(args.ruleset, args.ruleset_file)
        win = Win(
            concealed=tuple(parse_tiles(args.hand)),
            melds=tuple(Meld.parse(text) for text in args.meld),
            win_tile=parse_tile(args.win_tile) if args.win_tile else -1,
            win_type=WinType(args.win),
            seat=Seat[args.seat],
            discarder=Seat[args.discarder] if args.discarder else None,
            flowers=tuple(parse_tiles(args.flowers)),
            draw_streak=args.draw_streak,
            finished=frozenset(Seat.parse(letter) for letter in args.won),
        )
        ruleset.check_applies(win)
        result = ruleset.score(win)
    if args.json:
        import json  # only for --json: every import counts in a cold start

        print(json.dumps(result.as_json(), ensure_ascii=False))
    else:
        print(_readable(ruleset, win, result))
    return 0


def _readable(ruleset: Ruleset, win: Win, result: Score) -> str:
    lines = [f"{ruleset.name}: {win.describe()} ({win.win_type.value}, seat {win.seat.name})"]
    if not result.valid:
        lines.append(f"  INVALID: {result.reason}")
        return "\n".join(lines)
    lines.append(f"  reading: {result.arrangement}")
    width = max(_columns(p.name) for p in result.patterns) + 2
    lines += [f"  {_pad(p.name, width)}{p.value:>6}" for p in result.patterns]
    lines += [f"  {note}" for note in result.limits]
    lines.append(f"  {_pad('total', width)}{result.total:>6} {result.unit}")
    if result.score != result.total:
        lines.append(f"  {_pad('score', width)}{result.score:>6}")
    paid = "  ".join(f"{seat.name} {result.payments[seat]:+d}" for seat in Seat)
    lines.append(f"  payments: {paid}")
    return "\n".join(lines)


def _columns(text: str) -> int:
    """Terminal columns the text takes: wide characters (e.g. 清一色) take two each."""
    import unicodedata

    return sum(2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in text)


def _pad(text: str, width: int) -> str:
    """The text padded with spaces to `width` terminal columns."""
    return text + " " * (width - _columns(text))


def run_waits(args: argparse.Namespace) -> int:
    """Print the winning tiles of a 13-tile hand."""
    with _usage():
        ruleset = get_ruleset(args.ruleset, args.ruleset_file)
        melds = tuple(Meld.parse(text) for text in args.meld)
        tiles = ruleset.waits(parse_tiles(args.hand), melds)
    if args.json:
        import json

        print(json.dumps({"ruleset": ruleset.name, "waits": [tile_str(t) for t in tiles]}))
    elif tiles:
        print(f"{format_tiles(tiles)} ({', '.join(tile_str(t) for t in tiles)})")
    else:
        print("no waits: no tile completes this hand")
    return 0
