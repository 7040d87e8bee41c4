"""`mahjong-table hub`: the venue recorder, its CSV export, commands to tables, and the schemas.

mahjong-table hub [--mqtt URL] [--db PATH] [--keys PATH]     record results (runs until stopped)
    [--http HOST:PORT [--http-users F] [--tournament F]]     ... and serve the floor dashboard
mahjong-table hub export [--db PATH] [--results F] [--standings F] [--session ID]
mahjong-table hub send TABLE ACTION [...]                    send one command and show the reply
mahjong-table hub send TABLE blackbox --hand N [--session S] [--out FILE]   a hand's black box
mahjong-table hub tables [--db PATH]                         every table: online, last heard, ...
mahjong-table hub notices [--db PATH]                        outbox resets, results never come
mahjong-table hub status [--name N] [--run-dir D]            recorder active/standby, store down?
mahjong-table hub schemas [--check]                          write or check the JSON Schemas
mahjong-table hub standings --tournament F [--stage S]       tournament standings, cut, prizes
mahjong-table hub draw --tournament F --stage S --round N    seat draw (--send: start sessions)
mahjong-table hub dashboard-user FILE NAME                   add a dashboard operator
"""

import argparse
import asyncio
import contextlib
import re
import sys
import time
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

import msgspec

from controller.clock import SystemClock
from controller.commands import rehearsal
from controller.errors import RuntimeFailure, UsageError
from controller.hub.contract import schemas
from controller.hub.contract.envelopes import ReplyMessage
from controller.hub.contract.hub_commands import (
    Action,
    EndSession,
    FetchBlackBox,
    PauseSession,
    ReportStatus,
    ResendResults,
    ResumeSession,
    StartSession,
)
from controller.hub.contract.topics import Topics
from controller.hub.mqtt.aiomqtt_transport import AiomqttConnector
from controller.hub.mqtt.transport import BrokerAddress
from controller.logs import setup_logging
from controller.rules.names import RULESET_NAMES
from controller.table.blackbox_files import MAX_FILE
from controller.venue import export, overview
from controller.venue.command_client import request_reply, signed_command
from controller.venue.dashboard import options as dashboard_options
from controller.venue.program import RecorderPlan, open_recorder, run_until_signal
from controller.venue.recorder_lock import lock_for, run_as_active
from controller.venue.run_state import (
    DEFAULT_RUN_DIR,
    Role,
    RunState,
    RunStateFile,
    is_running,
    read_state,
    state_path,
)
from controller.venue.store import ResultStore, open_store
from controller.venue.store_engines import StoreUnavailable
from controller.venue.tournament import commands as tournament_cmd
from controller.venue.tournament.definition import load_tournament
from controller.venue.tournament.standings import standings

_SAFE_NAME = re.compile(r"[^A-Za-z0-9_.-]")
DEFAULT_DB = "/var/lib/mahjong-table/hub.sqlite3"
DEFAULT_KEYS = Path("/etc/mahjong-table/hub-keys.toml")


def register(commands: Any) -> None:
    """Add the `hub` group to the CLI."""
    hub = commands.add_parser(
        "hub",
        help="the venue recorder: record, ack and export hand results",
        description="Run the venue recorder: subscribe to every table, verify signed results, "
        "record each once (SQLite, or PostgreSQL for a league), ack them, ask for resends "
        "when sequence numbers show a hole, and publish the retained hub/state. Table keys "
        "come from --keys, never from the database.",
    )
    _connection_options(hub, top=True)
    _db_option(hub, top=True)
    hub.add_argument("--name", default="hub", help="the hub's name in hub/state")
    _run_dir_option(hub)
    hub.add_argument(
        "--standby",
        action="store_true",
        help="if a recorder of this name already records on this store, wait as its hot "
        "standby and take over when it stops (without: exit 2 naming it)",
    )
    dashboard_options.add_options(hub)
    hub.set_defaults(handler=run_recorder)
    actions = hub.add_subparsers(dest="action", metavar="ACTION")
    _register_export(actions)
    _register_send(actions)
    _register_views(actions)
    _register_schemas(actions)
    tournament_cmd.register(actions, _connection_options, _db_option, _existing_store, send_action)
    rehearsal.register(actions)
    dashboard_options.register_user_command(actions)


def _connection_options(parser: argparse.ArgumentParser, top: bool = False) -> None:
    """The broker options, on `hub` itself (top) and again on each action. An action's copy
    has no default of its own, so `hub --db X draw` and `hub draw --db X` both use X."""

    def default(value: object) -> object:
        return value if top else argparse.SUPPRESS

    parser.add_argument(
        "--mqtt", default=default("mqtt://localhost:1883"), help="broker URL (mqtts:// for TLS)"
    )
    parser.add_argument(
        "--keys", type=Path, default=default(DEFAULT_KEYS), help="table keys file (TOML)"
    )
    parser.add_argument("--topic-root", default=default("mahjong/"), help="prefix of every topic")
    parser.add_argument(
        "--ca-file", type=Path, default=default(None), help="venue CA certificate (TLS)"
    )
    parser.add_argument(
        "--cert-file", type=Path, default=default(None), help="the hub's client certificate (TLS)"
    )
    parser.add_argument(
        "--key-file", type=Path, default=default(None), help="the hub's client key (TLS)"
    )
    parser.add_argument(
        "--username", default=default(""), help="broker user (without client certificates)"
    )
    parser.add_argument(
        "--password-file", type=Path, default=default(None),
        help="file holding the broker password (kept out of ps)",
    )  # fmt: skip


def _run_dir_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--run-dir",
        type=Path,
        default=DEFAULT_RUN_DIR,
        help="where the recorder tells `hub status` how it is (best on a tmpfs)",
    )


def _db_option(parser: argparse.ArgumentParser, top: bool = False) -> None:
    parser.add_argument(
        "--db",
        default=DEFAULT_DB if top else argparse.SUPPRESS,
        help="results store: a SQLite file, or a postgresql:// URL (league database)",
    )


def _register_export(actions: Any) -> None:
    ex = actions.add_parser(
        "export",
        help="write results and standings as CSV",
        description="Write every recorded result (one line per hand) and per-player standings "
        "as CSV files; '-' writes to standard output.",
    )
    _db_option(ex)
    ex.add_argument("--results", default="results.csv", help="results CSV file ('-': stdout)")
    ex.add_argument("--standings", default="standings.csv", help="standings CSV file ('-': stdout)")
    ex.add_argument("--session", help="only this session")
    ex.add_argument("--tournament", help="also write this tournament's standings (TOML file)")
    ex.add_argument(
        "--tournament-standings", default="tournament.csv", help="tournament standings CSV"
    )
    ex.add_argument(
        "--audit", default="audit.csv",
        help="with --tournament: the director's entries (who, when, why) as CSV",
    )  # fmt: skip
    ex.set_defaults(handler=run_export)


def _register_send(actions: Any) -> None:
    send = actions.add_parser(
        "send",
        help="send one command to a table and show its reply",
        description="Sign and send one command to a table, then wait for its reply.",
    )
    _connection_options(send)
    _db_option(send)
    send.add_argument("table", help="table id")
    send.add_argument(
        "command",
        choices=("start", "pause", "resume", "end", "status", "resend", "blackbox"),
        help="what to do",
    )
    send.add_argument(
        "--session", help="start: session id; blackbox: its session (default: current or last)"
    )
    send.add_argument(
        "--ruleset", choices=RULESET_NAMES, default="zung-jung", help="start: ruleset"
    )
    send.add_argument("--players", help="start: four player ids, E,S,W,N")
    send.add_argument("--hands", type=int, default=16, help="start: hands to play (0: no limit)")
    send.add_argument("--deadline", type=int, default=0, help="start: minutes (0: none)")
    send.add_argument("--reason", default="", help="pause/end: why, shown to players")
    send.add_argument("--since", type=int, default=1, help="resend: first sequence number")
    send.add_argument("--until", type=int, help="resend: last sequence number (default: all)")
    send.add_argument("--hand", type=int, help="blackbox: the hand's number in its session")
    send.add_argument(
        "--out", type=Path, help="blackbox: file to write (default: SESSION-hand-N.jsonl)"
    )
    send.add_argument("--wait", type=float, default=10.0, help="seconds to wait for the reply")
    send.set_defaults(handler=run_send)


def _register_views(actions: Any) -> None:
    tables = actions.add_parser(
        "tables",
        help="show every table: online or gone since when, activity, results waiting or refused",
        description="What the recorder knows of each table: online, or offline since when "
        "(its goodbye, or its last will as the recorder received it), the last time the table "
        "itself was heard, what it is doing, and anything a technician must act on.",
    )
    _db_option(tables)
    tables.set_defaults(handler=run_tables)
    status = actions.add_parser(
        "status",
        help="show whether the recorder runs, active or standby, and whether its store is down",
        description="What the running recorder of this name says of itself: active or standby "
        "and since when, and since when and why its results store is down. Exit 1 when it "
        "does not run or its store is down.",
    )
    status.add_argument("--name", default="hub", help="the recorder's --name")
    _run_dir_option(status)
    status.set_defaults(handler=run_status)
    notices = actions.add_parser(
        "notices",
        help="show what the venue must know: outbox resets, results that never came",
        description="Notices the recorder wrote down: a table that started a new outbox (its "
        "numbers began again), and results asked for several times that never arrived.",
    )
    _db_option(notices)
    notices.set_defaults(handler=run_notices)


def _register_schemas(actions: Any) -> None:
    sch = actions.add_parser(
        "schemas",
        help="write (or --check) the JSON Schemas and AsyncAPI document",
        description=f"Generate the JSON Schema of every message and the AsyncAPI document "
        f"into {schemas.SCHEMA_DIR} from the payload types.",
    )
    sch.add_argument("--check", action="store_true", help="exit 1 if any file is out of date")
    sch.add_argument("--dir", type=Path, default=schemas.SCHEMA_DIR, help="output folder")
    sch.set_defaults(handler=run_schemas)


def _address(args: argparse.Namespace, client_id: str, persistent: bool) -> BrokerAddress:
    password = ""
    if args.password_file is not None:
        try:
            password = args.password_file.read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise UsageError(f"--password-file {args.password_file}: {exc.strerror}") from exc
    return BrokerAddress.from_url(
        args.mqtt,
        ca_file=args.ca_file,
        cert_file=args.cert_file,
        key_file=args.key_file,
        username=args.username,
        password=password,
        client_id=client_id,
        persistent=persistent,
    )


def run_recorder(args: argparse.Namespace) -> int:
    """Record results until SIGINT or SIGTERM (as the venue's one active recorder)."""
    setup_logging("info")
    plan = RecorderPlan(name=args.name, keys_path=args.keys, db=args.db, topic_root=args.topic_root)
    connector = AiomqttConnector(_address(args, f"mahjong-hub-{args.name}", persistent=True))
    lock = lock_for(args.db, args.name)
    try:
        holder = lock.try_take()
    except StoreUnavailable as exc:
        raise RuntimeFailure(f"cannot open the results store: {exc.fault.text}") from exc
    if holder is not None and not args.standby:
        raise UsageError(
            f"{holder} already records for this venue on this store: stop it first, or start "
            "this one with --standby to take over when it stops"
        )
    recorder, store = open_recorder(plan, connector)
    where = f"{store.where} from {args.mqtt} ({len(recorder.keys.tables)} table keys)"
    role: Role = "active" if holder is None else "standby"
    state = RunStateFile(args.run_dir, args.name, store, role, time.time())
    state.write_now()
    if holder is None:
        print(f"recording to {where}", flush=True)
    else:
        print(f"standby: {holder} records for this venue; waiting to take over", flush=True)
    if args.http:
        dashboard_options.http_address(args.http)  # a bad address stops us before connecting
        from controller.venue.dashboard.serve import record_and_serve  # only with --http

        job = record_and_serve(args, recorder, store)
    else:
        job = recorder.run()

    async def active() -> None:
        state.follow()
        if holder is not None:
            await state.become("active", time.time())
            print(f"took over: this is now the venue's active recorder, recording to {where}")
            sys.stdout.flush()

    try:
        asyncio.run(run_until_signal(run_as_active(lock, holder is not None, job, active)))
    finally:
        store.close()
        lock.release()
        state.remove()
    c = recorder.counters
    print(
        f"stopped: {c.recorded} results recorded, {c.duplicates} duplicates, "
        f"{c.refused} refused, {c.resend_requests} resend requests"
    )
    return 0


def _existing_store(spec: str) -> ResultStore:
    if "://" not in spec and not Path(spec).exists():
        raise UsageError(f"--db {spec}: no such results store")
    return open_store(spec)


def run_tables(args: argparse.Namespace) -> int:
    """Print what the recorder knows of every table."""
    store = _existing_store(args.db)
    try:
        seen = store.presence()
        refusals = store.refusals()
    finally:
        store.close()
    for presence in seen:
        print("\n".join(overview.table_lines(presence)))
    if refusals:
        print(f"{len(refusals)} results refused by this recorder: see `hub notices` and the log")
    if not seen:
        print("no table has been heard yet")
    return 0


def run_status(args: argparse.Namespace) -> int:
    """Print the recorder's own account of its state (and its standby's)."""
    path = state_path(args.run_dir, args.name, "active")
    state = read_state(path)
    standby = read_state(state_path(args.run_dir, args.name, "standby"))
    if standby is not None and is_running(standby.pid):
        print(f"standby: {_recorder_line(standby)}")
    if state is None:
        print(f"recorder {args.name}: not running (nothing in {path}; is --run-dir the same?)")
        return 1
    if not is_running(state.pid):
        print(f"recorder {args.name}: not running (pid {state.pid} has ended)")
        return 1
    print(_recorder_line(state))
    if state.store_down_since is not None:
        print(
            f"results store down since {overview.clock_time(state.store_down_since)}: "
            f"{state.store_fault}; nothing is acked until it returns (the tables keep their "
            "results)"
        )
        return 1
    print("results store up")
    return 0


def _recorder_line(state: RunState) -> str:
    return (
        f"recorder {state.name}: {state.role} since {overview.clock_time(state.since)} "
        f"(pid {state.pid}), results store {state.store}"
    )


def run_notices(args: argparse.Namespace) -> int:
    """Print the notices, oldest first."""
    store = _existing_store(args.db)
    try:
        notices = store.notices()
        refusals = store.refusals()
    finally:
        store.close()
    for notice in notices:
        print(overview.notice_line(notice))
    for table, result_id, reason in refusals:
        print(f"refused  {table}  result {result_id or '(no id)'}: {reason}")
    if not notices and not refusals:
        print("nothing to report")
    return 0


def run_export(args: argparse.Namespace) -> int:
    """Write results.csv and standings.csv."""
    store = _existing_store(args.db)
    try:
        rows = export.decoded(store.results(), args.session)
        entries = tournament_cmd.entries_of(store)
    finally:
        store.close()
    with _output(args.results) as out:
        n_results = export.write_results(rows, out)
    with _output(args.standings) as out:
        n_players = export.write_standings(export.standings(rows), out)
    print(
        f"{n_results} results -> {args.results}, {n_players} players -> {args.standings}",
        file=sys.stderr,
    )
    if args.session is not None and not rows:  # a mistyped id must not pass for an empty day
        print(f"mahjong-table: no session matched --session {args.session}", file=sys.stderr)
        return 2
    if args.tournament:
        definition = load_tournament(Path(args.tournament))
        report = standings(definition, (m.result for _, m in rows), entries)
        with _output(args.tournament_standings) as out:
            n_lines = tournament_cmd.write_csv(report, out)
        print(f"{n_lines} tournament lines -> {args.tournament_standings}", file=sys.stderr)
        with _output(args.audit) as out:
            n_entries = tournament_cmd.write_audit(entries, out)
        print(f"{n_entries} director's entries -> {args.audit}", file=sys.stderr)
    return 0


@contextlib.contextmanager
def _output(name: str) -> Iterator[TextIO]:
    if name == "-":
        yield sys.stdout
        return
    with Path(name).open("w", newline="", encoding="utf-8") as out:
        yield out


def run_send(args: argparse.Namespace) -> int:
    """Send one command and print the table's reply."""
    action = _action(args)
    reply = send_action(args, args.table, action)
    print(f"{args.table}: {reply.code}: {reply.message}")
    if reply.ok and isinstance(action, FetchBlackBox):
        default = f"{args.session or args.table}-hand-{action.hand}.jsonl"
        _write_box(reply, args.out or Path(_SAFE_NAME.sub("_", default)))
    return 0 if reply.ok else 1


def send_action(args: argparse.Namespace, table: str, action: Action) -> ReplyMessage:
    """Sign one command to `table` (numbered from the store), send it and wait for the reply."""
    command = signed_command(args.keys, args.db, table, action, SystemClock(), max(args.wait, 60))
    connector = AiomqttConnector(_address(args, "", persistent=False))
    return asyncio.run(request_reply(connector, Topics(args.topic_root), command, args.wait))


def _write_box(reply: ReplyMessage, path: Path) -> None:
    """Unpack a fetched black box (bounded) and write it where asked."""
    unpack = zlib.decompressobj()
    try:
        content = unpack.decompress(reply.data, MAX_FILE)
    except zlib.error as error:
        raise RuntimeFailure(f"the table sent a black box that does not unpack: {error}") from None
    if unpack.unconsumed_tail or not unpack.eof:
        raise RuntimeFailure("the table sent a black box that is cut short or too large")
    try:
        path.write_bytes(content)
    except OSError as error:
        raise UsageError(f"--out {path}: {error.strerror}") from None
    print(f"wrote {path} ({len(content)} bytes): mahjong-table replay {path}")


def _action(args: argparse.Namespace) -> Action:
    match args.command:
        case "start":
            return _start(args)
        case "pause":
            return PauseSession(reason=args.reason)
        case "resume":
            return ResumeSession()
        case "end":
            return EndSession(reason=args.reason)
        case "status":
            return ReportStatus()
        case "blackbox":
            if args.hand is None or args.hand < 1:
                raise UsageError("blackbox needs --hand N (1 or more)")
            return FetchBlackBox(hand=args.hand, session=args.session)
        case _:
            if args.since < 1 or (args.until is not None and args.until < args.since):
                raise UsageError("--since must be 1 or more, and --until not below it")
            return ResendResults(since_seq=args.since, until_seq=args.until)


def _start(args: argparse.Namespace) -> StartSession:
    if not args.session or not args.players:
        raise UsageError("start needs --session ID and --players E,S,W,N")
    fields = {
        "session": args.session,
        "ruleset": args.ruleset,
        "players": args.players.split(","),
        "hands": args.hands,
        "deadline_minutes": args.deadline,
    }
    for name, option in _START_OPTIONS.items():  # field by field, to name the option
        try:
            msgspec.convert(fields[name], _START_TYPES[name])
        except msgspec.ValidationError:
            raise UsageError(f"start: {option} {fields[name]!r} {_START_RULES[name]}") from None
    try:
        return msgspec.convert(fields, StartSession)
    except msgspec.ValidationError:
        raise UsageError("start: --players must name four different players") from None


_START_OPTIONS = {
    "session": "--session",
    "ruleset": "--ruleset",
    "players": "--players",
    "hands": "--hands",
    "deadline_minutes": "--deadline",
}
_START_TYPES = {f.name: f.type for f in msgspec.structs.fields(StartSession)}
_START_RULES = {
    "session": "is not a session id (1-64 letters, digits, '.', ':', '-', '_')",
    "ruleset": f"is not a ruleset of this version ({', '.join(RULESET_NAMES)})",
    "players": "are not player ids (1-64 letters, digits, '.', '@', '-', '_' each)",
    "hands": "must be 0 to 1000",
    "deadline_minutes": "must be 0 to 1440 minutes",
}


def run_schemas(args: argparse.Namespace) -> int:
    """Write the schema files, or with --check list the stale ones and exit 1."""
    if args.check:
        stale = schemas.stale(args.dir)
        for name in stale:
            print(f"{args.dir / name}: out of date (run: mahjong-table hub schemas)")
        return 1 if stale else 0
    changed = schemas.write(args.dir)
    print(f"{len(changed)} of {len(schemas.rendered())} files updated in {args.dir}")
    return 0
