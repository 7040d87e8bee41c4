"""When a table vanishes, the venue learns when it was last alive as closely as MQTT allows: the
will says when the connection began (labelled as such), the recorder notes when the will
reached it and when it last heard the table itself; `hub tables` says it in plain words."""

import time
from pathlib import Path

import pytest

from controller.cli import main
from controller.clock import ManualClock
from controller.hub.contract.envelopes import StatusMessage, decode
from controller.venue.overview import clock_time
from controller.venue.recorder import Recorder
from controller.venue.store import Presence
from devsupport.mosquitto import Broker
from tests.hub.factories import SessionBook
from tests.hub.helpers import eventually, make_link, make_recorder, retained_status, running
from tests.hub.proxy import PausingProxy

pytestmark = pytest.mark.broker


def _presence(recorder: Recorder) -> Presence | None:
    return next(iter(recorder.store.sync.presence()), None)


def _heard(recorder: Recorder) -> bool:
    seen = _presence(recorder)
    return seen is not None and seen.heard is not None


def _gone(recorder: Recorder) -> bool:
    seen = _presence(recorder)
    return seen is not None and seen.offline_at is not None


async def test_the_recorder_notes_when_a_table_went_silent(
    broker: Broker, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    proxy = PausingProxy(broker.host, broker.port)
    await proxy.start()
    clock = ManualClock(wall_start=time.time())
    db = tmp_path / "hub.db"
    recorder = make_recorder(broker.url, db, tables=(), clock=clock)
    link = make_link(proxy.url, tmp_path / "outbox.db", SessionBook())
    try:
        async with running(recorder.run()):
            await eventually(recorder.connected.is_set, "recorder online")
            async with running(link.run()):
                await eventually(lambda: _heard(recorder), "table heard")
                heard = clock.wall()
                clock.advance(40.0)
                proxy.pause()  # the table cannot come back ...
                proxy.cut()  # ... and loses power: no goodbye, the broker gives its will
                await eventually(lambda: _gone(recorder), "will seen")
            will = await retained_status(broker.url)
    finally:
        await proxy.stop()
    seen = _presence(recorder)
    assert seen is not None and (seen.heard, seen.offline_at, seen.by_will) == (
        heard,
        heard + 40.0,
        True,
    )
    assert (will.online, will.will, will.status.state, will.keepalive_s) == (
        False,
        True,
        "offline",
        5,
    )
    assert will.connected_at is not None and will.connected_at <= will.ts
    assert seen.status is not None and decode(seen.status, StatusMessage) == will
    assert main(["hub", "tables", "--db", str(db)]) == 0
    assert capsys.readouterr().out.splitlines()[0] == (
        f"t1: offline since {clock_time(heard + 40.0)} (its last will; silent at most 7.5 s "
        f"before), last heard {clock_time(heard)}"
    )


async def test_a_table_that_says_goodbye_is_not_taken_for_dead(
    broker: Broker, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    clock = ManualClock(wall_start=time.time())
    db = tmp_path / "hub.db"
    recorder = make_recorder(broker.url, db, clock=clock)
    link = make_link(broker.url, tmp_path / "outbox.db", SessionBook())
    async with running(recorder.run()):
        async with running(link.run()):
            await eventually(lambda: _heard(recorder), "table heard")
            assert main(["hub", "tables", "--db", str(db)]) == 0
            clock.advance(5.0)
        await eventually(lambda: _gone(recorder), "goodbye seen")
    seen = _presence(recorder)
    assert seen is not None and not seen.by_will and seen.offline_at == seen.heard
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("t1: online, last heard ")
    assert out[1] == "  idle; results waiting 0, refused 0, messages dropped 0"
