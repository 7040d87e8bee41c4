"""The recorder's store, the same suite against a SQLite file and a real PostgreSQL server:
each result kept once by id, transactions all or nothing, counters, gaps, notices, presence;
and two recorders sharing one database, each result delivered to both, stored once."""

from pathlib import Path

import pytest

from controller.clock import ManualClock
from controller.hub.contract.envelopes import ResultMessage, encode, new_header
from controller.hub.contract.signing import TableKey
from controller.venue.async_store import AsyncStore
from controller.venue.keyring import KeyRing
from controller.venue.recorder import Recorder, RecorderSettings
from controller.venue.store import ResultStore, open_store
from devsupport.mosquitto import Broker
from tests.hub.factories import KEY_TEXT, SessionBook, hand_result
from tests.hub.helpers import connector, eventually, make_link, running

OUTBOX = "ab" * 16


def _message(hand: int, seq: int | None = None, table: str = "t1") -> tuple[ResultMessage, bytes]:
    head = new_header(table, 1, seq or hand, ManualClock(), OUTBOX)
    message = TableKey(KEY_TEXT).sign(ResultMessage(result=hand_result(hand), **head))
    return message, encode(message)


def test_a_result_is_kept_once_by_its_id(store: ResultStore) -> None:
    message, payload = _message(1)
    with store:
        assert store.add_result(message, payload, "ok", 10.0)
    with store:
        assert not store.add_result(message, payload, "ok", 11.0)
    assert store.count() == 1
    kept = next(store.results())
    assert (kept.id, kept.table, kept.seq, kept.audit, kept.payload) == (
        message.id, "t1", 1, "ok", payload,
    )  # fmt: skip


def test_a_failed_transaction_leaves_nothing(store: ResultStore) -> None:
    message, payload = _message(1)
    with pytest.raises(RuntimeError), store:
        store.add_result(message, payload, "ok", 10.0)
        store.add_notice("t1", "outbox_reset", "new outbox", 10.0)
        raise RuntimeError("the recorder died mid-batch")
    assert store.count() == 0 and store.notices() == []


def test_a_batch_of_results_is_kept_once_each_even_when_a_result_comes_twice(
    store: ResultStore,
) -> None:
    (one, one_payload), (two, two_payload) = _message(1), _message(2)
    with store:
        assert store.add_result(one, one_payload, "ok", 1.0)
    with store:
        kept = store.add_results(
            [(one, one_payload, "ok"), (two, two_payload, "ok"), (two, two_payload, "ok")], 2.0
        )
    assert kept == [False, True, False]
    assert store.count() == 2


def test_a_statement_the_database_refuses_undoes_its_whole_batch(store: ResultStore) -> None:
    """On PostgreSQL a batch's writes are sent without waiting for each answer: a refusal
    that comes back late still undoes the batch, and the next batch is stored."""
    store.bump("boot")
    message, payload = _message(1)
    with pytest.raises(Exception, match=r"(?i)unique|duplicate"), store:
        store.add_result(message, payload, "ok", 10.0)
        store.add_notice("t1", "outbox_reset", "new outbox", 10.0)
        store.heard("t1", 10.0)
        store.engine.execute(store.dialect.sql("INSERT INTO meta (key, value) VALUES (?, 1)"),
                             ("boot",))  # fmt: skip
    assert store.count() == 0 and store.notices() == [] and store.presence() == []
    with store:
        assert store.add_result(message, payload, "ok", 11.0)
    assert store.count() == 1


def test_counters_hand_out_consecutive_numbers_that_survive_reopening(store_spec: str) -> None:
    store = open_store(store_spec)
    assert [store.bump("boot"), store.bump("boot")] == [1, 2]
    with store:
        assert store.reserve("seq", 5) == 1
        assert store.reserve("seq", 1) == 6
    store.close()
    again = open_store(store_spec)
    assert again.bump("boot") == 3 and again.bump("seq") == 7
    again.close()


def test_the_first_wall_commitment_of_a_hand_is_kept(store: ResultStore) -> None:
    assert store.add_commitment("t1", "s1", 1, "c" * 64, 1.0)
    assert not store.add_commitment("t1", "s1", 1, "d" * 64, 2.0)
    assert store.commitment("t1", "s1", 1) == "c" * 64
    assert store.commitment("t1", "s1", 2) is None
    store.add_commitment("t1", "s1", 3, "e" * 64, 3.0)
    hands = [("t1", "s1", 1), ("t1", "s1", 2), ("t1", "s1", 3), ("t2", "s1", 1)]
    assert store.commitments(hands) == {("t1", "s1", 1): "c" * 64, ("t1", "s1", 3): "e" * 64}


def test_hands_whose_commitment_has_no_result_are_named_in_the_order_they_began(
    store: ResultStore,
) -> None:
    for hand, seen in ((1, 1.0), (2, 2.0), (3, 3.0)):
        assert store.add_commitment("t1", "s1", hand, "c" * 64, seen)
    message, payload = _message(2)
    with store:
        store.add_result(message, payload, "ok", 4.0)
    assert store.hands_without_result("t1") == [("s1", 1), ("s1", 3)]
    assert store.hands_without_result("t2") == []


def test_holes_in_the_sequence_and_refused_results_fill_their_place(store: ResultStore) -> None:
    with store:
        for seq in (1, 2, 5):
            message, payload = _message(seq, seq)
            store.add_result(message, payload, "ok", 1.0)
        store.add_refusal("t1", None, "bad signature", 2.0, (OUTBOX, 3))
    assert store.first_gap("t1", OUTBOX, 0) == ((4, 4), 5)
    assert store.first_gap("t1", OUTBOX, 5) == (None, 5)
    assert store.top_seq("t1", OUTBOX) == 5
    assert store.refused_seqs("t1", OUTBOX) == [3]
    assert store.refusals() == [("t1", None, "bad signature")]


def test_notices_are_kept_once_oldest_first(store: ResultStore) -> None:
    assert store.add_notice("t2", "outbox_reset", "table t2 started a new outbox", 5.0)
    assert store.add_notice("t1", "missing_results", "seq 4 never came", 6.0)
    assert not store.add_notice("t2", "outbox_reset", "table t2 started a new outbox", 7.0)
    assert [(n.table, n.kind) for n in store.notices()] == [
        ("t2", "outbox_reset"), ("t1", "missing_results"),
    ]  # fmt: skip


def test_presence_says_when_a_table_was_heard_and_when_it_left(store: ResultStore) -> None:
    store.heard("t1", 100.0)
    store.set_status("t2", b"{}", 101.0)
    store.went_offline("t1", 150.0, by_will=True)
    first, second = store.presence()
    assert (first.table, first.heard, first.offline_at, first.by_will) == ("t1", 100.0, 150.0, True)
    assert (second.table, second.heard, second.status) == ("t2", None, b"{}")
    store.heard("t1", 200.0)
    assert store.presence()[0].offline_at is None


def test_within_a_batch_presence_follows_the_order_of_what_was_heard(store: ResultStore) -> None:
    """A batch writes each table's latest time heard once; a goodbye or a will in the batch
    still comes after what was heard before it, and before what was heard after it."""
    with store:
        store.heard("t1", 1.0)
        store.heard("t1", 2.0)
        store.went_offline("t1", 3.0, by_will=True)  # its will, after its last results
        store.heard("t2", 4.0)
        store.went_offline("t2", 5.0, by_will=False)
        store.heard("t2", 6.0)  # back on line in the same batch
        store.heard("t3", 7.0)
        store.heard("t3", 8.0)
    shown = {p.table: (p.heard, p.offline_at) for p in store.presence()}
    assert shown == {"t1": (2.0, 3.0), "t2": (6.0, None), "t3": (8.0, None)}
    with pytest.raises(RuntimeError), store:
        store.heard("t1", 9.0)
        raise RuntimeError("the batch failed")
    assert store.presence()[0].heard == 2.0


def test_sources_and_replies(store: ResultStore) -> None:
    store.add_source("t1", "a" * 32, 1.0)
    store.add_source("t1", "b" * 32, 2.0)
    store.add_source("t1", "a" * 32, 3.0)
    assert store.outboxes("t1") == ["a" * 32, "b" * 32]
    store.add_reply("t1", "c" * 32, b"reply", 1.0)
    assert store.replies("c" * 32) == [b"reply"]


@pytest.mark.broker
async def test_two_recorders_on_one_database_store_each_result_once(
    broker: Broker, store_spec: str, tmp_path: Path
) -> None:
    recorders = [
        Recorder(
            RecorderSettings(name=name),
            AsyncStore(open_store(store_spec)),
            KeyRing({"t1": TableKey(KEY_TEXT)}),
            connector(broker.url, f"hub-{name}", persistent=True),
        )
        for name in ("venue-a", "venue-b")
    ]
    link = make_link(broker.url, tmp_path / "outbox.db", SessionBook())
    async with running(recorders[0].run()), running(recorders[1].run()), running(link.run()):
        await eventually(lambda: all(r.connected.is_set() for r in recorders), "both online")
        ids = {link.record_result(hand_result(h)).id for h in range(1, 21)}
        await eventually(lambda: link.pending_results == 0, "every result acked")
        await eventually(
            lambda: sum(r.counters.recorded + r.counters.duplicates for r in recorders) >= 40,
            "each result delivered to both recorders",
        )
    assert sum(r.counters.recorded for r in recorders) == 20
    check = open_store(store_spec)
    assert check.count() == 20 and {s.id for s in check.results()} == ids
    check.close()
    for r in recorders:
        r.store.close()
