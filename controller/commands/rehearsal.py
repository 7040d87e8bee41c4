"""`mahjong-table hub rehearse TOURNAMENT.toml`: a whole tournament played by simulated
tables before the day, through the venue's real parts.

In a work folder it makes a venue CA and certificates (the shipped make-certs.sh), runs a
mosquitto with the shipped configuration and ACLs, a recorder with the hub's certificate
(recording to SQLite, or to PostgreSQL with --db postgresql://...), and one `simulate` per
table with its own certificate and key, idle until the hub starts its sessions. Then, stage
by stage and round by round, it draws the round, sends each table its start command, and
waits until every hand of the round is recorded; the standings decide each cut. It ends with
the standings and the CSV export. It runs from the installed package; it needs mosquitto,
bash and openssl.
"""

import argparse
import asyncio
import contextlib
import functools
import secrets
import sys
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.errors import RuntimeFailure, UsageError
from controller.hub.contract.envelopes import ReplyMessage, decode
from controller.hub.contract.hub_commands import StartSession
from controller.hub.mqtt.aiomqtt_transport import AiomqttConnector
from controller.hub.mqtt.transport import BrokerAddress
from controller.venue.async_store import AsyncStore
from controller.venue.export import decoded
from controller.venue.keyring import KeyRing
from controller.venue.recorder import Recorder, RecorderSettings
from controller.venue.rehearsal_broker import (
    BrokerFailed,
    CertificatesFailed,
    MosquittoMissing,
    make_certs,
    venue_broker,
)
from controller.venue.store import ResultStore, open_store
from controller.venue.tournament.commands import (
    entries_of,
    line_text,
    report_of,
    round_starts,
    write_audit,
    write_csv,
)
from controller.venue.tournament.definition import Tournament, load_tournament
from controller.venue.tournament.standings import FINAL_ORDER, Report

ROUND_LIMIT_S = 600.0
"""The longest one round may take before the rehearsal gives up (it names the tables)."""


@dataclass
class Venue:
    """The rehearsal's broker and certificates."""

    url: str
    certs: Path

    def tls(self, name: str) -> dict[str, Path]:
        """The CA and `name`'s client certificate and key."""
        return {
            "ca_file": self.certs / "venue-ca.crt",
            "cert_file": self.certs / f"{name}.crt",
            "key_file": self.certs / f"{name}.key",
        }


def _certs(certs: Path, tables: list[str]) -> None:
    for args in (["ca"], ["broker", "127.0.0.1", "localhost"], ["table", *tables], ["hub"]):
        try:
            make_certs(certs, *args)
        except CertificatesFailed as e:
            raise RuntimeFailure(str(e)) from None


@contextlib.contextmanager
def _broker(work: Path, certs: Path) -> Iterator[Venue]:
    try:
        broker = venue_broker(work / "broker", certs)
    except MosquittoMissing as e:
        raise UsageError(f"hub rehearse needs mosquitto: {e}") from None
    try:
        broker.start()
    except BrokerFailed as e:
        broker.kill()
        raise RuntimeFailure(str(e)) from None
    try:
        yield Venue(f"mqtts://127.0.0.1:{broker.port}", certs)
    finally:
        broker.kill()


def sessions_per_table(t: Tournament, tables: list[str]) -> dict[str, int]:
    """How many sessions each table plays in the scheduled rounds of every stage."""
    count = dict.fromkeys(tables, 0)
    field = len(t.players)
    for stage in t.stages:
        for table in tables[: field // 4]:
            count[table] += stage.rounds
        field = stage.cut or field
    return count


@contextlib.asynccontextmanager
async def _tables(
    venue: Venue, work: Path, keys: Path, plays: dict[str, int]
) -> AsyncIterator[list[asyncio.subprocess.Process]]:
    processes = []
    for seed, (table, sessions) in enumerate(plays.items(), start=1):
        tls = venue.tls(table)
        log = (work / f"{table}.log").open("wb")
        processes.append(
            await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "controller",
                "simulate",
                "--fast",
                "--plain",
                "--mqtt",
                venue.url,
                "--table",
                table,
                "--keys",
                str(keys),
                "--ca-file",
                str(tls["ca_file"]),
                "--cert-file",
                str(tls["cert_file"]),
                "--key-file",
                str(tls["key_file"]),
                "--seed",
                str(seed),
                "--hub-sessions",
                str(sessions),
                "--db",
                str(work / f"{table}-outbox.sqlite3"),
                "--ack-wait",
                "60",
                stdout=log,
                stderr=log,
                cwd=work,
            )
        )
    try:
        yield processes
    finally:
        for process in processes:
            if process.returncode is None:
                process.kill()
            await process.wait()


def _replies(command: str, store: ResultStore) -> list[bytes]:
    return store.replies(command)


def _ready(store: ResultStore, tables: list[str]) -> bool:
    """Every table is online with no session in play (ready for a start command)."""
    quiet = set()
    for presence in store.presence():
        status = presence.last_status()
        if status is not None and status.online and status.status.state in _QUIET:
            quiet.add(presence.table)
    return set(tables) <= quiet


_QUIET = ("idle", "session_over")


async def _play_round(recorder: Recorder, starts: list[StartSession], tables: list[str]) -> None:
    store = recorder.store
    wanted = {s.session: s.hands for s in starts}
    seated = tables[: len(starts)]
    try:
        async with asyncio.timeout(120):
            while not await store.call(lambda s: _ready(s, seated)):
                await recorder.changes.next_change()
    except TimeoutError:
        raise RuntimeFailure("the simulated tables did not come online (see their logs)") from None

    def count(results: ResultStore) -> dict[str, int]:
        counts = dict.fromkeys(wanted, 0)
        for _, message in decoded(results.results()):
            if message.result.session in counts:
                counts[message.result.session] += 1
        return counts

    async def recorded() -> dict[str, int]:
        return await store.call(count)

    for table, start in zip(tables, starts, strict=False):
        assert recorder.live is not None
        command = await recorder.send_command(recorder.live, table, start)
        async with asyncio.timeout(60):
            while not (replies := await store.call(functools.partial(_replies, command))):
                await recorder.changes.next_change()
        reply = decode(replies[0], ReplyMessage)
        if not reply.ok:
            raise RuntimeFailure(f"table {table} refused {start.session}: {reply.message}")
    try:
        async with asyncio.timeout(ROUND_LIMIT_S):
            while await recorded() != wanted:
                await recorder.changes.next_change()
    except TimeoutError:
        late = [s for s, n in (await recorded()).items() if n < wanted[s]]
        raise RuntimeFailure(f"these sessions did not finish: {', '.join(late)}") from None


async def rehearse(t: Tournament, tables: int, db: str, work: Path) -> Report:
    """Play the whole tournament; returns the final standings."""
    names = list(t.tournament.tables[:tables])
    if len(names) < tables or 4 * tables < len(t.players):
        raise UsageError(
            f"--tables {tables}: the tournament names {len(t.tournament.tables)} tables and "
            f"its {len(t.players)} players need {len(t.players) // 4}"
        )
    certs, keys = work / "certs", work / "hub-keys.toml"
    _certs(certs, names)
    keys.write_text("[tables]\n" + "".join(f'{n} = "{secrets.token_hex(16)}"\n' for n in names))
    keys.chmod(0o600)
    with _broker(work, certs) as venue:
        address = BrokerAddress.from_url(
            venue.url, client_id="mahjong-hub-rehearsal", persistent=True, **venue.tls("hub")
        )
        store = AsyncStore(open_store(db, "mahjong-table rehearsal"))
        recorder = Recorder(
            RecorderSettings(), store, KeyRing.load(keys), AiomqttConnector(address)
        )
        task = asyncio.ensure_future(recorder.run())
        try:
            async with asyncio.timeout(30):
                await recorder.connected.wait()
            async with _tables(venue, work, keys, sessions_per_table(t, names)) as processes:
                for stage in t.stages:
                    for round_ in range(1, stage.rounds + 1):
                        report = await store.call(lambda s: report_of(t, s))
                        starts = round_starts(t, report, stage.name, round_)
                        sys.stdout.write(f"{stage.name} round {round_}: {len(starts)} tables\n")
                        sys.stdout.flush()
                        await _play_round(recorder, starts, names)
                for process in processes:
                    await asyncio.wait_for(process.wait(), 120)
            return await store.call(lambda s: report_of(t, s))
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            store.close()


def _run_rehearse(args: argparse.Namespace) -> int:
    import tempfile

    from controller.venue import export

    t = load_tournament(args.tournament)
    # Absolute: the simulated tables run in it and are given paths into it.
    work = (args.work or Path(tempfile.mkdtemp(prefix="mahjong-rehearsal-"))).absolute()
    work.mkdir(parents=True, exist_ok=True)
    db = args.db or str(work / "rehearsal.sqlite3")
    report = asyncio.run(rehearse(t, args.tables or len(t.tournament.tables), db, work))
    for name, lines in [*report.stages.items(), (FINAL_ORDER, report.final)]:
        sys.stdout.write(f"{t.tournament.name} {name}\n")
        sys.stdout.writelines(line_text(x) + "\n" for x in lines)
    store = open_store(db)
    try:
        rows = export.decoded(store.results())
        entries = entries_of(store)
    finally:
        store.close()
    with (work / "results.csv").open("w", newline="", encoding="utf-8") as out:
        export.write_results(rows, out)
    with (work / "standings.csv").open("w", newline="", encoding="utf-8") as out:
        export.write_standings(export.standings(rows), out)
    with (work / "tournament.csv").open("w", newline="", encoding="utf-8") as out:
        write_csv(report, out)
    with (work / "audit.csv").open("w", newline="", encoding="utf-8") as out:
        write_audit(entries, out)
    sys.stdout.write(f"{len(rows)} results; store {db}; export and logs in {work}\n")
    return 0


def register(actions: Any) -> None:
    """Add `rehearse` to the `hub` group."""
    re_ = actions.add_parser(
        "rehearse",
        help="play a whole tournament with simulated tables (TLS, ACLs) before the day",
        description="Make a venue CA and certificates, run mosquitto with the shipped ACLs, "
        "a recorder and one simulated table per table (each with its own certificate), draw "
        "and start every round, cut, and end with the standings and the CSV export "
        "(needs mosquitto installed).",
    )
    re_.add_argument("tournament", type=Path, help="tournament definition file (TOML)")
    re_.add_argument("--tables", type=int, help="simulated tables (default: all the file names)")
    re_.add_argument(
        "--db", help="results store (default: WORK/rehearsal.sqlite3; or a postgresql:// URL)"
    )
    re_.add_argument("--work", type=Path, help="where certificates, logs and CSVs go (a new dir)")
    re_.set_defaults(handler=_run_rehearse)
