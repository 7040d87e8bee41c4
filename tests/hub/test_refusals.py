"""Results the hub refuses: set aside in plain words, kept on disk, never re-sent on their own,
never holding up the other results, and sent again when someone asks (a key fixed, a restart,
a resend command)."""

import dataclasses
import sqlite3
from pathlib import Path

import pytest

from controller.clock import ManualClock
from controller.hub.contract.envelopes import (
    ResultMessage,
    StatusMessage,
    decode,
    encode,
    new_header,
)
from controller.hub.contract.signing import TableKey
from controller.hub.table_side.hub_link import KEY_DOUBT
from controller.hub.table_side.outbox import Outbox, Reopened
from controller.venue.recorder import Recorder
from devsupport.mosquitto import Broker
from tests.hub.factories import FAST, KEY_TEXT, OTHER_KEY_TEXT, SessionBook, hand_result
from tests.hub.helpers import (
    eventually,
    let_pass,
    looked_again,
    make_link,
    make_recorder,
    opened,
    retained_status,
    running,
)

pytestmark = pytest.mark.broker
NEWER = "malformed: result version 2 is newer than this software (1)"


def _stored_status(recorder: Recorder) -> StatusMessage | None:
    payload = recorder.store.sync.status("t1")
    return None if payload is None else decode(payload, StatusMessage)


def _refused_on_disk(path: Path) -> list[tuple[int, str]]:
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT seq, refused FROM results WHERE refused IS NOT NULL ORDER BY seq")
        return [(int(s), str(r)) for s, r in rows]


async def test_refused_results_are_set_aside_not_resent_and_do_not_hold_up_the_others(
    broker: Broker, tmp_path: Path
) -> None:
    path = tmp_path / "outbox.db"
    newer = opened(path)
    [_result(newer, KEY_TEXT, version=2) for _ in (1, 2)]  # a schema the hub cannot read yet
    newer.close()
    clock = ManualClock()
    narrow = dataclasses.replace(FAST, window=2)  # two refused results could fill the window
    link = make_link(broker.url, path, SessionBook(), clock=clock, timing=narrow)
    recorder = make_recorder(broker.url, tmp_path / "hub.db")
    async with running(recorder.run()), running(link.run()):
        good = [link.record_result(hand_result(h)).id for h in range(3, 7)]
        await eventually(
            lambda: link.pending_results == 0 and len(link.refused_results) == 2,
            "four results acked, two set aside",
        )
        for _ in range(20):  # a minute on the table's clock: many resend intervals
            await let_pass(clock, 3.0, link)
        await eventually(
            lambda: (s := _stored_status(recorder)) is not None and s.link.refused_results == 2,
            "the status the venue sees counts the refused results",
        )
        status = _stored_status(recorder)
        link.outbox.flush()
    assert recorder.counters.refused == 2, "each refused result was sent once, not again"
    assert {s.id for s in recorder.store.sync.results()} == set(good)
    assert [(r.seq, r.reason) for r in link.refused_results] == [
        (1, NEWER),
        (2, NEWER),
    ]
    assert status is not None and status.link.attention.startswith(
        f"result seq 1 and 1 more refused by hub: {NEWER}; kept in the outbox"
    )
    assert _refused_on_disk(path) == [(1, NEWER), (2, NEWER)]
    assert link.stats.results_refused == 2


async def test_a_hub_without_the_tables_key_gets_nothing_until_it_has_it(
    broker: Broker, tmp_path: Path
) -> None:
    db = tmp_path / "hub.db"
    link = make_link(broker.url, tmp_path / "outbox.db", SessionBook())
    keyless = make_recorder(broker.url, db, tables=())
    async with running(link.run()):
        async with running(keyless.run()):
            receipt = link.record_result(hand_result(1))
            await eventually(lambda: link.stats.unsigned_ignored > 0, "its state is ignored")
            await looked_again(link)
            assert not link.hub_online and link.pending_results == 1
            assert link.attention == KEY_DOUBT
        keyless.store.close()
        recorder = make_recorder(broker.url, db)  # the venue added the key and restarted it
        async with running(recorder.run()):
            await eventually(lambda: recorder.store.sync.count() == 1, "recorded once the hub can")
            await eventually(lambda: link.pending_results == 0, "acked")
    assert next(recorder.store.sync.results()).id == receipt.id
    assert keyless.counters.refused == 0, "nothing was sent to a hub the table cannot trust"
    assert link.attention == ""


async def test_a_table_whose_key_is_wrong_holds_its_results_until_restarted_with_the_right_one(
    broker: Broker, tmp_path: Path
) -> None:
    path = tmp_path / "outbox.db"
    recorder = make_recorder(broker.url, tmp_path / "hub.db")
    async with running(recorder.run()):
        wrong = make_link(broker.url, path, SessionBook(), key=OTHER_KEY_TEXT)
        async with running(wrong.run()):
            ids = [wrong.record_result(hand_result(h)).id for h in (1, 2)]
            await eventually(lambda: wrong.attention == KEY_DOUBT, "the key is doubted")
            assert wrong.pending_results == 2
            await eventually(lambda: not wrong.outbox.feed_head(1), "the status is out")
            await looked_again(wrong)
            said = await retained_status(broker.url)
            assert said.link.attention == KEY_DOUBT, "the venue's dashboard reads why"
        wrong.outbox.close()
        # The technician puts the right mqtt.result_key in the config and restarts the table.
        fixed = make_link(broker.url, path, SessionBook())
        async with running(fixed.run()):
            await eventually(lambda: recorder.store.sync.count() == 2, "both recorded")
            await eventually(lambda: fixed.pending_results == 0, "both acked")
    assert {s.id for s in recorder.store.sync.results()} == set(ids)
    assert fixed.refused_results == [], "re-signed with the right key on the way out"


def _result(outbox: Outbox, key: str, version: int = 1) -> tuple[int, str]:
    """Store one result signed with `key`; (seq, id)."""
    ids: list[str] = []

    def build(seq: int) -> tuple[str, bytes]:
        head = new_header("t1", outbox.boot, seq, ManualClock(), outbox=outbox.id)
        message = TableKey(key).sign(ResultMessage(v=version, result=hand_result(seq), **head))
        ids.append(message.id)
        return message.id, encode(message)

    return outbox.add_result(build, 0.0), ids[0]


def test_a_refusal_stays_on_disk_until_someone_asks_and_the_result_goes_out_re_signed(
    tmp_path: Path,
) -> None:
    outbox = Outbox(tmp_path / "o.db").open()
    seq, result_id = _result(outbox, OTHER_KEY_TEXT)
    _result(outbox, KEY_TEXT)
    assert outbox.mark_refused(result_id, "bad signature", 5.0) is not None
    assert outbox.mark_refused(result_id, "bad signature", 6.0) is None, "only once"
    assert [r.seq for r in outbox.pending_results(10)] == [2]
    outbox.close()
    again = Outbox(tmp_path / "o.db").open()
    assert [(r.seq, r.reason) for r in again.refused] == [(1, "bad signature")]
    key = TableKey(KEY_TEXT)
    reopened = again.reopen(1, None, lambda p: key.resigned(p, ResultMessage), acked=False)
    assert reopened == Reopened(acked=0, refused=1, oldest=1)
    [first, _] = again.pending_results(10)
    assert (first.seq, first.id) == (seq, result_id) and key.verify(first.payload)
    again.close()
    with sqlite3.connect(tmp_path / "o.db") as db:
        history = db.execute("SELECT seq, reason FROM refusals").fetchall()
    assert history == [(1, "bad signature")], "the refusal is still on record"


async def test_waiting_results_are_signed_anew_once_when_the_key_changes_not_at_every_start(
    tmp_path: Path,
) -> None:
    outbox = Outbox(tmp_path / "o.db").open()
    _result(outbox, OTHER_KEY_TEXT)
    key = TableKey(KEY_TEXT)
    looked: list[bytes] = []

    def resign(payload: bytes) -> bytes:
        looked.append(payload)
        return key.resigned(payload, ResultMessage)

    assert await outbox.resign_pending_async(resign, key.fingerprint()) == 1
    [waiting] = outbox.pending_results(10)
    assert key.verify(waiting.payload) and len(looked) == 1
    _result(outbox, KEY_TEXT)
    outbox.close()
    again = Outbox(tmp_path / "o.db").open()  # the table restarts with the same key
    assert await again.resign_pending_async(resign, key.fingerprint()) == 0
    assert len(looked) == 1, "nothing to look at: every waiting result is signed with this key"
    other = TableKey(OTHER_KEY_TEXT)  # the technician changes the key
    assert (
        await again.resign_pending_async(
            lambda p: other.resigned(p, ResultMessage), other.fingerprint()
        )
        == 2
    )
    assert all(other.verify(r.payload) for r in again.pending_results(10))
    again.close()
