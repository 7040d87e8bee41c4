"""`simulate --hub-sessions N`: the simulated table powers on idle, like a venue table waiting
for the director, accepts the hub's signed start command, plays the session it names with the
players it names, and exits once N such sessions are over."""

import asyncio
import sys
from pathlib import Path

import pytest

from controller.hub.contract.envelopes import ReplyMessage, decode
from controller.hub.contract.hub_commands import StartSession
from controller.venue.store import ResultStore
from devsupport.mosquitto import Broker
from tests.hub.factories import KEY_TEXT
from tests.hub.helpers import eventually, make_recorder, running

pytestmark = pytest.mark.broker
ROOT = Path(__file__).parents[2]


def _waiting(store: ResultStore, table: str) -> bool:
    """The table is online with no session in play: it waits for the hub's start."""
    for presence in store.presence():
        status = presence.last_status()
        if presence.table == table and status is not None and status.online:
            return status.status.state in ("idle", "session_over")
    return False


async def test_a_simulated_table_plays_the_sessions_the_hub_starts(
    broker: Broker, tmp_path: Path
) -> None:
    keys = tmp_path / "keys.toml"
    keys.write_text(f'[tables]\nsim-table = "{KEY_TEXT}"\n')
    keys.chmod(0o600)
    recorder = make_recorder(broker.url, tmp_path / "hub.db", ("sim-table",))
    async with running(recorder.run()):
        await eventually(recorder.connected.is_set, "recorder online")
        table = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "controller", "simulate", "--fast", "--plain",
            "--mqtt", broker.url, "--keys", str(keys), "--hub-sessions", "2", "--seed", "4",
            cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
        )  # fmt: skip
        try:
            for n, players in enumerate((["ann", "bo", "cy", "dee"], ["eve", "fay", "gus", "hal"])):
                await eventually(lambda: _waiting(recorder.store.sync, "sim-table"),
                                 "the table waiting for the hub", 60)  # fmt: skip
                start = StartSession(session=f"cup.q.r{n + 1}.sim-table", ruleset="zung-jung",
                                     players=players, hands=2)  # fmt: skip
                assert recorder.live is not None
                command = await recorder.send_command(recorder.live, "sim-table", start)
                await eventually(lambda c=command: bool(recorder.store.sync.replies(c)),  # type: ignore[misc]
                                 "the table's reply", 30)  # fmt: skip
                reply = decode(recorder.store.sync.replies(command)[0], ReplyMessage)
                assert reply.ok, reply.message
                await eventually(lambda k=n: recorder.store.sync.count() == 2 * (k + 1),  # type: ignore[misc]
                                 "the session's two hands recorded", 90)  # fmt: skip
            out, _ = await asyncio.wait_for(table.communicate(), 60)
        finally:
            if table.returncode is None:
                table.kill()
                await table.wait()
    assert table.returncode == 0, out.decode()
    sessions = {s.table for s in recorder.store.sync.results()}
    assert sessions == {"sim-table"}
