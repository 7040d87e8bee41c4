"""Open-ended qualifying: make-up rounds re-match the players who still need hands, and a
director's override ranks a player under the minimum (rows Q1-Q5 of the acceptance table in
docs/tournament-day.md)."""

import hashlib
from pathlib import Path

import msgspec
import pytest

from controller.errors import UsageError
from controller.hub.contract.result import HandResult
from controller.venue.export import decoded
from controller.venue.store import ResultStore, open_store
from controller.venue.tournament.commands import entries_of, report_of, round_starts
from controller.venue.tournament.definition import load_tournament
from controller.venue.tournament.entries import Entry, encode_entry
from controller.venue.tournament.plan import planned_hands
from tests.venue.test_tournament import DEFINITION, _play, _record, _session


def _played(store: ResultStore) -> list[HandResult]:
    return [m.result for _, m in decoded(store.results())]


def test_q1_to_q4_make_up_rounds_bring_everyone_to_the_minimum(tmp_path: Path) -> None:
    path = tmp_path / "cup.toml"
    path.write_text(DEFINITION)
    t = load_tournament(path)
    store = open_store(str(tmp_path / "hub.sqlite3"))
    _play(t, store, "qualifying", 1, forfeit_at="t1")  # p03 (North at t1) leaves hand 2
    _play(t, store, "qualifying", 2)
    under = [x.player for x in report_of(t, store).stages["qualifying"] if x.rank is None]
    assert under == ["p07", "p08", "p11"]  # Q1: 3 of 4 hands, through no fault of theirs

    (start,) = round_starts(t, report_of(t, store), "qualifying", 3, _played(store))
    # Q2: the three, and the filler: 4 hands, first by the lot among those with 4.
    fillers = sorted((f"p{n:02d}" for n in range(1, 17) if f"p{n:02d}" not in under),
                     key=lambda p: hashlib.sha256(f"7:{p}".encode()).hexdigest())  # fmt: skip
    assert sorted(start.players) == sorted([*under, fillers[0]])
    assert (start.session, start.hands) == ("cup.qualifying.r3.t1", 1)

    _record(store, _session(start.players, start.session)[:1])
    report = report_of(t, store)
    assert all(x.rank is not None for x in report.stages["qualifying"])  # Q3
    with pytest.raises(UsageError, match="no make-up round is needed"):  # Q4
        round_starts(t, report, "qualifying", 4, _played(store))
    store.close()


def test_q5_an_override_ranks_a_player_and_keeps_them_out_of_make_up(tmp_path: Path) -> None:
    path = tmp_path / "cup.toml"
    path.write_text(DEFINITION)
    t = load_tournament(path)
    store = open_store(str(tmp_path / "hub.sqlite3"))
    _play(t, store, "qualifying", 1, forfeit_at="t1")
    _play(t, store, "qualifying", 2)
    override = msgspec.convert({"kind": "override", "by": "referee", "at": 1.0,
                                "reason": "went to hospital", "player": "p08",
                                "stage": "qualifying"}, Entry)  # fmt: skip
    store.add_director_entry(encode_entry(override), "referee", 1.0)
    assert entries_of(store) == [override]
    report = report_of(t, store)
    p08 = next(x for x in report.stages["qualifying"] if x.player == "p08")
    assert p08.rank is not None and p08.override == "went to hospital"
    (start,) = round_starts(t, report, "qualifying", 3, _played(store))
    assert "p08" not in start.players and {"p07", "p11"} <= set(start.players)
    store.close()


def test_a_make_up_session_is_planned_with_the_hands_it_was_drawn_with(tmp_path: Path) -> None:
    """The floor's "hand N of M": a scheduled session plays the stage's hands; a make-up
    session the hands its round was drawn with, also once its own hands are recorded."""
    path = tmp_path / "cup.toml"
    path.write_text(DEFINITION)
    t = load_tournament(path)
    store = open_store(str(tmp_path / "hub.sqlite3"))
    _play(t, store, "qualifying", 1, forfeit_at="t1")
    _play(t, store, "qualifying", 2)
    (start,) = round_starts(t, report_of(t, store), "qualifying", 3, _played(store))
    assert planned_hands(t, start.session, _played(store), entries_of(store)) == start.hands == 1
    _record(store, _session(start.players, start.session)[:1])
    assert planned_hands(t, start.session, _played(store), entries_of(store)) == 1
    assert planned_hands(t, "cup.qualifying.r2.t4", _played(store), []) == 2
    assert planned_hands(t, "cup.final.r1.t1", _played(store), []) == 2
    # Nobody needs hands after round 3: a round 4 was never drawn, so it has no plan.
    assert planned_hands(t, "cup.qualifying.r4.t1", _played(store), []) is None
    assert planned_hands(t, "friendly.r1.t1", _played(store), []) is None
    store.close()
