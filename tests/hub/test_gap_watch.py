"""What the recorder asks a table for when it meets it: results it refused before (its keys
file may have been fixed since) and everything after what it holds; never what it holds."""

from pathlib import Path

from controller.clock import ManualClock
from controller.hub.contract.envelopes import ResultMessage, new_header
from controller.hub.contract.hub_commands import ResendResults
from controller.hub.contract.signing import TableKey
from controller.venue.gaps import GapWatch
from controller.venue.store import ResultStore, open_store
from tests.hub.factories import KEY_TEXT, hand_result

OUTBOX = "ab" * 16


def _record(store: ResultStore, seq: int) -> None:
    head = new_header("t1", 1, seq, ManualClock(), outbox=OUTBOX)
    message = TableKey(KEY_TEXT).sign(ResultMessage(result=hand_result(seq), **head))
    with store:
        store.add_result(message, b"{}", "ok", 0.0)


def test_a_table_met_anew_is_asked_for_what_was_refused_and_what_follows(tmp_path: Path) -> None:
    store = open_store(str(tmp_path / "hub.db"))
    for seq in (4, 5, 6):
        _record(store, seq)
    for seq in (1, 2, 3, 8):
        store.add_refusal("t1", None, "bad signature", 0.0, (OUTBOX, seq))
    _record(store, 3)  # refused once, recorded since
    watch = GapWatch(store, grace_s=1.0, max_asks=5, notify=lambda *_: None)
    assert watch.meet("t1", OUTBOX, boot=2, now=0.0)
    assert not watch.meet("t1", OUTBOX, boot=2, now=1.0), "once per boot"
    assert watch.on_meeting(("t1", OUTBOX)) == [
        ResendResults(since_seq=1, until_seq=2),
        ResendResults(since_seq=8, until_seq=8),
        ResendResults(since_seq=7),
    ]
    store.close()
