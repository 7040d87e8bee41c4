"""A dispute: the venue fetches a hand's black box from the table over the hub link
(`mahjong-table hub send TABLE blackbox --hand N`), and the file it writes replays to the
result the table recorded; a hand the table does not hold is refused in plain words."""

import asyncio
import json
import sys
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

from controller.cli import main
from controller.disk import DiskWorker
from controller.table.blackbox_files import BlackBoxFiles
from controller.table.cycle import Phase
from devsupport.mosquitto import Broker
from tests.hub.factories import KEY_TEXT, SessionBook
from tests.hub.helpers import eventually, make_link, running
from tests.sim.rig import Rig

ROOT = Path(__file__).parents[2]


async def _send(broker: Broker, tmp_path: Path, *args: str) -> tuple[int, str]:
    keys = tmp_path / "hub-keys.toml"
    keys.write_text(f'[tables]\nt1 = "{KEY_TEXT}"\n')
    keys.chmod(0o600)
    log = tmp_path / "send.log"
    with log.open("wb") as out:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "controller", "hub", "send", "--mqtt", broker.url,
            "--keys", str(keys), "--db", str(tmp_path / "hub.db"), "t1", "blackbox", *args,
            stdout=out, stderr=out, cwd=ROOT,
        )  # fmt: skip
        code = await asyncio.wait_for(process.wait(), 30)
    return code, log.read_text()


@pytest.mark.broker
async def test_the_venue_fetches_a_hands_black_box_and_it_replays_to_the_result(
    broker: Broker, tmp_path: Path, pins: MockFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    async with Rig(tmp_path, "sichuan", hands=2, seed=3) as rig:
        view = await rig.until_phase(Phase.SESSION_OVER)
    session = view.session
    assert session is not None
    disk = DiskWorker.single_thread()
    book = SessionBook(session=session, boxes=BlackBoxFiles(tmp_path / "blackbox", 7, disk))
    link = make_link(broker.url, tmp_path / "link-outbox.db", book)
    fetched = tmp_path / "dispute.jsonl"
    async with running(link.run()):
        await eventually(lambda: link.connected, "table connected")
        code, said = await _send(broker, tmp_path, "--hand", "2", "--out", str(fetched))
        assert code == 0, said
        missing, refusal = await _send(broker, tmp_path, "--hand", "9")
    disk.shutdown()
    assert f"t1: ok: black box {session}-hand-2" in said and f"wrote {fetched}" in said
    assert fetched.read_bytes() == (tmp_path / "blackbox" / f"{session}-hand-2.jsonl").read_bytes()
    capsys.readouterr()
    assert main(["replay", str(fetched), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    recorded = rig.sink.results[1]
    assert printed["payments"] == list(recorded.payments)
    assert len(printed["moves"]) == len(recorded.play.moves if recorded.play else ())
    assert missing == 1 and f"t1: refused: no black box {session}-hand-9" in refusal
