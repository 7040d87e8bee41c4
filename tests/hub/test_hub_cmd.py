"""`mahjong-table hub`: the recorder as a venue runs it, its will, the CSV export, sending a
command to a table, and the schema files CI keeps current."""

import ast
import asyncio
import csv
import sys
from pathlib import Path

import pytest

from controller.cli import main
from controller.hub.contract.incidents import IncidentKind
from controller.hub.contract.result import Incident
from devsupport.mosquitto import Broker
from tests.hub.factories import KEY_TEXT, START, SessionBook, hand_result
from tests.hub.helpers import eventually, make_link, running

ROOT = Path(__file__).parents[2]


def _keys_file(tmp_path: Path) -> Path:
    keys = tmp_path / "hub-keys.toml"
    keys.write_text(f'[tables]\nt1 = "{KEY_TEXT}"\n')
    keys.chmod(0o600)
    return keys


async def _cli(*args: str, log: Path) -> asyncio.subprocess.Process:
    with log.open("wb") as out:
        return await asyncio.create_subprocess_exec(
            sys.executable, "-m", "controller", *args, stdout=out, stderr=out, cwd=ROOT
        )


@pytest.mark.broker
async def test_the_recorder_command_records_and_its_will_stops_the_tables_sending(
    broker: Broker, tmp_path: Path
) -> None:
    db, keys = tmp_path / "hub.db", _keys_file(tmp_path)
    link = make_link(broker.url, tmp_path / "outbox.db", SessionBook())
    hub_args = ("hub", "--mqtt", broker.url, "--db", str(db), "--keys", str(keys))
    recorder = await _cli(*hub_args, log=tmp_path / "hub.log")
    try:
        async with running(link.run()):
            await eventually(lambda: link.hub_online, "the table sees the hub online")
            link.record_result(hand_result(1))
            link.record_result(hand_result(2, winner=1, discarder=None))
            incident = Incident(at=START, seat=3, kind=IncidentKind.TURN_TIME, penalty=5)
            link.record_result(hand_result(3, winner=None, incidents=(incident,)))
            await eventually(lambda: link.pending_results == 0, "three results acked")
            recorder.kill()
            await recorder.wait()
            await eventually(lambda: not link.hub_online, "the hub's will reaches the table")
    finally:
        if recorder.returncode is None:
            recorder.kill()
            await recorder.wait()
    out = tmp_path / "out"
    out.mkdir()
    results, standings = out / "results.csv", out / "standings.csv"
    assert main(["hub", "export", "--db", str(db), "--results", str(results),
                 "--standings", str(standings)]) == 0  # fmt: skip
    rows = list(csv.DictReader(results.open()))
    assert [(r["hand"], r["winners"], r["draw"]) for r in rows] == [
        ("1", "ann", "0"), ("2", "bo", "0"), ("3", "", "1")
    ]  # fmt: skip
    assert rows[2]["N_penalty"] == "-5" and rows[0]["audit"] == "unverified"
    table = [
        (r["rank"], r["player"], r["total"], r["dealt_in"])
        for r in csv.DictReader(standings.open())
    ]
    assert table == [("1", "bo", "24", "0"), ("2", "ann", "16", "0"), ("3", "dee", "-13", "0"),
                     ("4", "cy", "-32", "1")]  # fmt: skip


@pytest.mark.broker
async def test_a_venue_operator_can_start_a_session_on_a_table(
    broker: Broker, tmp_path: Path
) -> None:
    book = SessionBook()
    link = make_link(broker.url, tmp_path / "outbox.db", book)
    keys = _keys_file(tmp_path)
    log = tmp_path / "send.log"
    async with running(link.run()):
        await eventually(lambda: link.connected, "table connected")
        send = await _cli("hub", "send", "--mqtt", broker.url, "--keys", str(keys), "--db",
                          str(tmp_path / "hub.db"), "t1", "start", "--session", "final",
                          "--players", "ann,bo,cy,dee", log=log)  # fmt: skip
        assert await asyncio.wait_for(send.wait(), 20) == 0, log.read_text()
    assert book.session == "final" and book.players == ["ann", "bo", "cy", "dee"]


def test_an_unknown_database_url_is_refused_in_plain_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["hub", "export", "--db", "mysql://hub@db/venue"]) == 2
    assert "mysql:// is not supported" in capsys.readouterr().err


def test_an_unreachable_postgresql_server_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["hub", "export", "--db", "postgresql://hub@127.0.0.1:1/venue"]) != 0
    assert "PostgreSQL postgresql://127.0.0.1:1/venue out of reach" in capsys.readouterr().err


def test_a_missing_keys_file_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["hub", "--keys", str(tmp_path / "nope.toml"), "--db", str(tmp_path / "h.db")]) == 2
    assert f"keys file {tmp_path / 'nope.toml'}: cannot read" in capsys.readouterr().err


def test_a_short_key_in_the_keys_file_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    keys = tmp_path / "k.toml"
    keys.write_text('[tables]\nt1 = "short"\n')
    assert main(["hub", "--keys", str(keys), "--db", str(tmp_path / "h.db")]) == 2
    assert "t1: a table key needs at least 16 characters" in capsys.readouterr().err


def test_the_schema_files_in_the_repository_are_current() -> None:
    assert main(["hub", "schemas", "--check"]) == 0, "run: mahjong-table hub schemas"


def test_schemas_check_names_a_stale_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["hub", "schemas", "--dir", str(tmp_path)]) == 0
    (tmp_path / "result.schema.json").write_text("{}\n")
    assert main(["hub", "schemas", "--check", "--dir", str(tmp_path)]) == 1
    assert "result.schema.json: out of date" in capsys.readouterr().out


def test_export_of_a_missing_store_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["hub", "export", "--db", str(tmp_path / "none.db")]) == 2
    assert "no such results store" in capsys.readouterr().err
    assert not (tmp_path / "none.db").exists()
    assert list(tmp_path.iterdir()) == []


def test_the_hub_bench_stands_on_its_own() -> None:
    for path in (ROOT / "bench").glob("hub*.py"):
        tree = ast.parse(path.read_text())
        imported = [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
        imported += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
        assert not [m for m in imported if m.split(".")[0] == "tests"], path.name
