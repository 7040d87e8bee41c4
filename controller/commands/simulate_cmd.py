"""`mahjong-table simulate`: a whole session with four simulated players on the simulated table,
watched live (or as plain log lines), with a summary at the end; the demo and soak tool.

With `--mqtt URL` the results travel as on a real table: signed, into a durable outbox, to the
venue broker, and the command waits (bounded) until the recorder has acked every one.
"""

import argparse
import asyncio
import contextlib
import importlib.util
import logging
import math
import signal
import tempfile
import tomllib
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from controller.config import RULESETS
from controller.errors import RuntimeFailure, UsageError
from controller.hub.mqtt.transport import BrokerAddress
from controller.ids import is_table_id
from controller.logs import RedactingFilter, setup_logging
from controller.sim.demo import DEMO_KEY, FAST, REAL, DemoPlan, DemoSession, Outcome
from controller.sim.fault_profiles import FaultProfile
from controller.sim.mistakes import SLOPPY, Sloppiness
from controller.sim.view import EventFeed, hand_line, summary_lines
from controller.sim.virtual_time import run_virtual
from controller.table.records import FinishedHand
from controller.venue.keyring import KeyRing

if TYPE_CHECKING:
    from rich.console import Console

INTERRUPTED = "interrupted"


def register(commands: Any) -> None:
    """Add the `simulate` command to the CLI."""
    sim = commands.add_parser(
        "simulate",
        description="Power on the simulated table with four simulated players and play one "
        "session of N hands under the daemon, showing the table live; print a summary at the "
        "end. Exits 1 with one line if a fault stops the session or the hub does not ack "
        "every result.",
    )
    sim.add_argument("--ruleset", choices=RULESETS, default="zung-jung", help="(zung-jung)")
    sim.add_argument("--hands", type=int, default=8, help="hands in the session (8)")
    sim.add_argument("--seed", type=int, default=0, help="tile tags, shuffles and dice (0)")
    sim.add_argument(
        "--fast",
        action="store_true",
        help="machine and players at full speed, on virtual time (a session costs its CPU time)",
    )
    sim.add_argument(
        "--faults",
        choices=[p.value for p in FaultProfile],
        default=FaultProfile.NONE.value,
        help="none; noisy (line loss and corruption, RFID misses); hostile (noisy, plus a jam "
        "and an MCU reset; a technician clears faults) (none)",
    )
    sim.add_argument(
        "--json-results", type=Path, metavar="PATH", help="write each hand's result as a JSON line"
    )
    sim.add_argument("--plain", action="store_true", help="log lines, even on a terminal")
    sim.add_argument(
        "--habits",
        choices=["clean", "sloppy"],
        default="clean",
        help="sloppy: the players make mistakes at seeded rates, slow turns too (on virtual "
        "time with --fast, so they cost no real time)",
    )
    sim.add_argument(
        "--ground-truth",
        type=Path,
        metavar="FILE",
        help="write every move and mistake of the players to FILE (JSON lines)",
    )
    sim.add_argument(
        "--socket",
        type=Path,
        metavar="PATH",
        help="serve diag on this control socket (default: one in the session's temp folder)",
    )
    hub = sim.add_argument_group("hub link")
    hub.add_argument("--mqtt", metavar="URL", help="send results to this broker's recorder")
    hub.add_argument("--db", type=Path, help="the table's outbox file (default: a temp file)")
    hub.add_argument(
        "--keys", type=Path, help="the recorder's keys file: sign with this table's key in it"
    )
    hub.add_argument("--table", default="sim-table", help="table id (sim-table)")
    hub.add_argument(
        "--hub-sessions",
        type=int,
        default=0,
        help="wait for the hub's start commands and play this many sessions (0: play the "
        "session of --hands at power-on)",
    )
    hub.add_argument("--ca-file", type=Path, help="the venue CA certificate (mqtts://)")
    hub.add_argument(
        "--cert-file", type=Path, help="this table's client certificate (its name is the table id)"
    )
    hub.add_argument("--key-file", type=Path, help="this table's client key")
    hub.add_argument(
        "--ack-wait", type=float, default=30.0, help="seconds to wait for the hub's acks (30)"
    )
    sim.set_defaults(handler=run_simulate)


def run_simulate(args: argparse.Namespace) -> int:
    """Play the session, print the summary; exit 0 only if it played out and reached the hub."""
    plan = session_plan(args)
    if plan.ground_truth is not None:
        try:
            plan.ground_truth.write_text("", encoding="utf-8")  # this session's records only
        except OSError as error:
            raise UsageError(f"--ground-truth {plan.ground_truth}: {error.strerror}") from None
    console = None if args.plain else live_console()
    with (
        _logging(plan, console is not None) as feed,
        tempfile.TemporaryDirectory(prefix="mahjong-sim-") as tmp,
    ):
        play = _play(plan, Path(tmp), console, feed)
        outcome = run_virtual(lambda: play) if args.fast else asyncio.run(play)
    for line in summary_lines(outcome):
        print(line)
    if outcome.stopped == INTERRUPTED:
        raise KeyboardInterrupt
    if not outcome.ok:
        raise RuntimeFailure(outcome.stopped or outcome.problems[0])
    return 0


def live_console() -> "Console | None":
    """A console for the live board: on a terminal, with `rich` installed (the `board`
    extra); else None, and the session is shown as plain lines."""
    if importlib.util.find_spec("rich") is None:
        return None
    from rich.console import Console

    console = Console()
    return console if console.is_terminal else None


def session_plan(args: argparse.Namespace) -> DemoPlan:
    """The arguments checked and turned into a plan; UsageError names the bad one."""
    if not 1 <= args.hands <= 1000:
        raise UsageError("--hands must be between 1 and 1000")
    if not is_table_id(args.table):
        raise UsageError(f"--table {args.table!r}: lower-case letters, digits, - and _")
    if not math.isfinite(args.ack_wait) or args.ack_wait < 0:
        raise UsageError(f"--ack-wait must be a number of seconds, 0 or more, not {args.ack_wait}")
    tls = {"ca_file": args.ca_file, "cert_file": args.cert_file, "key_file": args.key_file}
    if args.mqtt is None and (args.db or args.keys or any(tls.values())):
        raise UsageError(
            "--db, --keys and the TLS files belong to the hub link: give --mqtt URL too"
        )
    if (args.cert_file is None) != (args.key_file is None):
        raise UsageError("--cert-file and --key-file go together")
    if not 0 <= args.hub_sessions <= 1000 or (args.hub_sessions and args.mqtt is None):
        raise UsageError("--hub-sessions: 0 to 1000 sessions, and only with --mqtt URL")
    if args.mqtt is not None:
        BrokerAddress.from_url(args.mqtt)
    return DemoPlan(
        ruleset=args.ruleset,
        hands=args.hands,
        seed=args.seed,
        pace=FAST if args.fast else REAL,
        table=args.table,
        mqtt_url=args.mqtt,
        key=table_key(args.keys, args.table) if args.keys else DEMO_KEY,
        outbox=args.db,
        ack_wait_s=args.ack_wait,
        sloppy=sloppiness(args.habits, args.seed),
        ground_truth=args.ground_truth,
        faults=FaultProfile(args.faults),
        json_results=args.json_results,
        control_socket=args.socket,
        tls=tls if any(tls.values()) else None,
        hub_sessions=args.hub_sessions,
    )


def sloppiness(habits: str, seed: int) -> Sloppiness | None:
    """The players' mistakes for `--habits` (slow turns too: at `--fast` they pass on
    virtual time, so the turn and hand clocks are exercised at no real cost)."""
    if habits != "sloppy":
        return None
    return replace(SLOPPY, seed=seed)


def table_key(path: Path, table: str) -> str:
    """The key of `table` in a recorder's keys file (`[tables]` then `id = "key"`)."""
    if KeyRing.load(path).get(table) is None:
        raise UsageError(f'keys file {path}: no key for table {table} (add: {table} = "...")')
    key = tomllib.loads(path.read_text(encoding="utf-8"))["tables"][table]
    assert isinstance(key, str)
    return key


@contextlib.contextmanager
def _logging(plan: DemoPlan, live: bool) -> Iterator[EventFeed]:
    """Log lines to stderr, or into the live board's event lines; restored afterwards."""
    root = logging.getLogger()
    saved = (list(root.handlers), root.level)
    feed = EventFeed()
    if live:
        feed.addFilter(RedactingFilter([plan.key]))
        feed.setFormatter(logging.Formatter("%(message)s"))
        for old in list(root.handlers):
            root.removeHandler(old)
        root.addHandler(feed)
        root.setLevel(logging.INFO)
    else:
        setup_logging("info", secrets=[plan.key])
    try:
        yield feed
    finally:
        for handler in list(root.handlers):
            root.removeHandler(handler)
        for handler in saved[0]:
            root.addHandler(handler)
        root.setLevel(saved[1])


async def _play(
    plan: DemoPlan, scratch: Path, console: "Console | None", feed: EventFeed
) -> Outcome:
    session = DemoSession(plan, scratch, on_result=None if console else _print_hand)
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, session.stop, INTERRUPTED)
    try:
        if console is None:
            return await session.run()
        return await _watch_live(session, console, feed)
    finally:
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(signum)


async def _watch_live(session: DemoSession, console: "Console", feed: EventFeed) -> Outcome:
    """Run the session under a live board, repainted eight times a second."""
    from rich.live import Live

    from controller.sim.board import board

    plan = session.plan
    with Live(console=console, auto_refresh=False) as live:
        task = asyncio.create_task(session.run())
        while not task.done():
            snap = session.snapshot()
            if snap is not None:
                live.update(board(snap, plan, list(feed.lines)), refresh=True)
            await asyncio.wait({task}, timeout=0.125)
        outcome = task.result()
        live.update(board(outcome.last, plan, list(feed.lines)), refresh=True)
    return outcome


def _print_hand(hand: FinishedHand) -> None:
    print(hand_line(hand), flush=True)
