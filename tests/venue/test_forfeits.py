"""Forfeits, penalties, corrections, substitutes and overrides reach the standings under the
Shanghai qualifying rule: the rows F1-F12 of the acceptance table in docs/tournament-day.md."""

from pathlib import Path

import msgspec
import pytest

from controller.cli import main
from controller.clock import ManualClock
from controller.errors import ConfigError
from controller.hub.contract.envelopes import (
    MalformedMessage,
    ResultMessage,
    decode,
    encode,
    new_header,
)
from controller.hub.contract.incidents import IncidentKind
from controller.hub.contract.result import HandResult, Incident
from controller.hub.contract.signing import TableKey
from controller.venue.store import open_store
from controller.venue.tournament.commands import entries_of
from controller.venue.tournament.definition import Tournament, load_tournament
from controller.venue.tournament.entries import (
    BadEntry,
    Entry,
    decode_entry,
    describe,
    encode_entry,
)
from controller.venue.tournament.standings import Line, standings
from tests.hub.factories import KEY_TEXT, START, hand_result
from tests.venue.test_tournament import DEFINITION

SEATS = ("p01", "p02", "p03", "p04")
SESSION = "cup.qualifying.r1.t1"
POINTS = 30  # the definition's [forfeit] points


@pytest.fixture
def cup(tmp_path: Path) -> Tournament:
    path = tmp_path / "cup.toml"
    path.write_text(
        DEFINITION.replace('["left_hand", "no_start"]', '["left_hand", "no_start", "time_forfeit"]')
    )
    return load_tournament(path)


def _lines(t: Tournament, results: list[HandResult], entries: list[Entry] = ()) -> dict[str, Line]:  # type: ignore[assignment]
    report = standings(t, results, entries)
    return {x.player: x for x in report.stages["qualifying"]}


def _forfeit_hand(*kinds_seats: tuple[IncidentKind, int]) -> HandResult:
    """Hand 2: East wins 24 off West, with forfeit incidents against seats."""
    incidents = tuple(Incident(at=START, seat=s, kind=k, detail="") for k, s in kinds_seats)
    return hand_result(2, SESSION, SEATS, winner=0, discarder=2, incidents=incidents)


FIRST = hand_result(1, SESSION, SEATS, winner=1, discarder=3)  # p02 +24, p04 -24


def _entry(kind: str, player: str, **fields: object) -> Entry:
    return msgspec.convert(
        {"kind": kind, "by": "referee", "at": 1000.0, "reason": "seen by the floor judge",
         "player": player, **fields}, Entry)  # fmt: skip


def _summary(lines: dict[str, Line]) -> dict[str, tuple[int, int, int]]:
    return {p: (x.hands, x.points, x.forfeits) for p, x in lines.items() if p in SEATS}


@pytest.mark.parametrize("kind", [IncidentKind.TIME_FORFEIT, IncidentKind.NO_START])
def test_f1_f2_a_forfeit_recorded_by_the_table_counts_for_the_forfeiting_player_only(
    cup: Tournament, kind: IncidentKind
) -> None:
    lines = _lines(cup, [FIRST, _forfeit_hand((kind, 3))])
    assert _summary(lines) == {
        "p01": (1, 0, 0), "p02": (1, 24, 0), "p03": (1, 0, 0), "p04": (2, -24 - POINTS, 1),
    }  # fmt: skip


def test_f3_the_director_marks_a_leaver_in_a_recorded_hand(cup: Tournament) -> None:
    played = hand_result(2, SESSION, SEATS, winner=0, discarder=2)
    marked = _entry("forfeit", "p03", session=SESSION, hand=2, forfeit="left_hand")
    lines = _lines(cup, [FIRST, played], [marked])
    assert _summary(lines) == {
        "p01": (1, 0, 0), "p02": (1, 24, 0), "p03": (2, -POINTS, 1), "p04": (1, -24, 0),
    }  # fmt: skip


@pytest.mark.parametrize("kind", ["left_hand", "no_start"])
def test_f4_f5_a_forfeit_of_a_hand_no_table_recorded(cup: Tournament, kind: str) -> None:
    ended = _entry("forfeit", "p01", session=SESSION, hand=2, forfeit=kind)
    lines = _lines(cup, [FIRST], [ended])
    assert _summary(lines) == {
        "p01": (2, -POINTS, 1), "p02": (1, 24, 0), "p03": (1, 0, 0), "p04": (1, -24, 0),
    }  # fmt: skip


def test_f6_two_seats_forfeit_the_same_hand(cup: Tournament) -> None:
    both = _forfeit_hand((IncidentKind.LEFT_HAND, 0), (IncidentKind.TIME_FORFEIT, 1))
    lines = _lines(cup, [FIRST, both])
    assert _summary(lines) == {
        "p01": (2, -POINTS, 1), "p02": (2, 24 - POINTS, 1), "p03": (1, 0, 0), "p04": (1, -24, 0),
    }  # fmt: skip


def test_f7_a_result_with_an_unknown_incident_kind_is_refused() -> None:
    key, clock = TableKey(KEY_TEXT), ManualClock()
    message = key.sign(ResultMessage(result=FIRST, **new_header("t1", 1, 1, clock, "cd" * 16)))
    payload = encode(message).replace(
        b'"incidents":[]', b'"incidents":[{"at":"2026-01-01T00:00:00Z","seat":1,"kind":"forfeit"}]'
    )
    assert b'"kind":"forfeit"' in payload
    with pytest.raises(MalformedMessage, match="kind"):
        decode(payload, ResultMessage)


def test_f8_a_tournament_naming_an_unknown_forfeit_kind_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "cup.toml"
    path.write_text(DEFINITION.replace('["left_hand", "no_start"]', '["forfeit", "no_start"]'))
    with pytest.raises(ConfigError) as caught:
        load_tournament(path)
    assert caught.value.line == 9
    assert "'forfeit' is not a forfeit kind" in str(caught.value) and "time_forfeit" in str(
        caught.value
    )


def test_f9_f10_penalties_and_corrections_change_the_points_and_are_audited(
    cup: Tournament,
) -> None:
    penalty = _entry("penalty", "p02", stage="qualifying", points=10)
    correction = _entry("correction", "p04", stage="qualifying", points=24)
    lines = _lines(cup, [FIRST], [penalty, correction])
    assert (lines["p02"].points, lines["p02"].adjusted) == (14, -10)
    assert (lines["p04"].points, lines["p04"].adjusted) == (0, 24)
    assert describe(correction) == (
        "p04: correction of +24 points in qualifying; by referee: seen by the floor judge"
    )


def test_f11_a_substitute_plays_for_nobody_in_the_field(cup: Tournament) -> None:
    seats = ("p01", "p02", "p03", "guest")
    played = hand_result(2, SESSION, seats, winner=3, discarder=0)
    sub = _entry("substitute", "p04", session=SESSION, substitute="guest")
    lines = _lines(cup, [FIRST, played], [sub])
    assert _summary(lines)["p04"] == (1, -24, 0)  # charged nothing for hand 2
    assert _summary(lines)["p01"] == (2, -24, 0)
    assert "guest" not in lines


def test_f12_an_override_ranks_a_player_under_the_minimum(cup: Tournament) -> None:
    override = _entry("override", "p02", stage="qualifying", reason="table t1 broke down")
    lines = _lines(cup, [FIRST], [override])
    assert lines["p02"].rank == 1 and lines["p02"].override == "table t1 broke down"
    assert lines["p01"].rank is None  # 1 hand of 4, no override


def test_an_entry_of_an_unknown_kind_or_without_a_reason_is_refused() -> None:
    with pytest.raises(BadEntry):
        decode_entry(b'{"kind":"bonus","by":"r","at":1,"reason":"x","player":"p01"}')
    with pytest.raises(BadEntry):
        decode_entry(b'{"kind":"penalty","by":"r","at":1,"reason":"","player":"p01",'
                     b'"stage":"qualifying","points":5}')  # fmt: skip
    with pytest.raises(BadEntry, match="forfeit names its kind"):
        decode_entry(b'{"kind":"forfeit","by":"r","at":1,"reason":"x","player":"p01",'
                     b'"session":"s","hand":2,"forfeit":"turn_time"}')  # fmt: skip


def test_entries_are_kept_in_either_store_and_exported_as_the_audit_trail(
    store_spec: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    definition = tmp_path / "cup.toml"
    definition.write_text(DEFINITION)
    store = open_store(store_spec)
    penalty = _entry("penalty", "p02", stage="qualifying", points=10)
    store.add_director_entry(encode_entry(penalty), penalty.by, penalty.at)
    store.close()
    reopened = open_store(store_spec)
    assert entries_of(reopened) == [penalty]
    reopened.close()
    files = {name: tmp_path / f"{name}.csv" for name in ("results", "standings", "cup", "audit")}
    assert main(["hub", "export", "--db", store_spec, "--tournament", str(definition),
                 "--results", str(files["results"]), "--standings", str(files["standings"]),
                 "--tournament-standings", str(files["cup"]),
                 "--audit", str(files["audit"])]) == 0  # fmt: skip
    audit = files["audit"].read_text().splitlines()
    assert audit == [
        "at,by,kind,player,stage,session,hand,points,forfeit,substitute,reason",
        "1970-01-01T00:16:40+00:00,referee,penalty,p02,qualifying,,,10,,,seen by the floor judge",
    ]
    p02 = next(r for r in files["cup"].read_text().splitlines() if r.startswith("qualifying,,p02"))
    assert p02 == "qualifying,,p02,Player 02,0,-10,0,0,0,,-10,"  # -10 points, all entered
