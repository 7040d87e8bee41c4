"""The draw and the tournament engine's edge cases: rows D1-D9 of the acceptance table in
docs/tournament-day.md."""

import asyncio
import contextlib
import hashlib
from collections import Counter
from pathlib import Path

import pytest

from controller.cli import main
from controller.venue.store import open_store
from controller.venue.tournament.commands import report_of, round_starts
from controller.venue.tournament.definition import load_tournament
from controller.venue.tournament.draw import draw_stage, meetings
from controller.venue.tournament.standings import FINAL_ORDER, standings
from devsupport.mosquitto import Broker
from tests.hub.factories import KEY_TEXT, SessionBook, hand_result
from tests.hub.helpers import eventually, make_link, running
from tests.venue.test_tournament import DEFINITION, PLAYERS, _play, _record


def _repeated_pairs(rounds: list[list[tuple[str, str, str, str]]]) -> int:
    return sum(n - 1 for n in meetings(rounds).values() if n > 1)


@pytest.mark.parametrize("seed", [1, 2, 7, 11])
def test_d1_d2_sixteen_players_four_rounds_no_repeats_and_every_seat_once(seed: int) -> None:
    rounds = draw_stage(PLAYERS, 4, "avoid_repeats", seed)
    for tables in rounds:
        assert sorted(p for seating in tables for p in seating) == PLAYERS
    assert _repeated_pairs(rounds) == 0
    seats = Counter((player, seat) for r in rounds for s in r for seat, player in enumerate(s))
    assert set(seats.values()) == {1} and len(seats) == 16 * 4


def test_d1_more_rounds_than_can_avoid_repeats_have_no_more_than_needed() -> None:
    # 6 rounds x 3 opponents = 18 > 15 others: at least 3 repeats each, 24 pairs in all.
    assert _repeated_pairs(draw_stage(PLAYERS, 6, "avoid_repeats", 3)) == 24
    # 32 players: 6 rounds without a repeated pair, and no seat more than twice.
    field = [f"q{n:02d}" for n in range(32)]
    rounds = draw_stage(field, 6, "avoid_repeats", 3)
    assert _repeated_pairs(rounds) == 0
    seats = Counter((player, seat) for r in rounds for s in r for seat, player in enumerate(s))
    assert max(seats.values()) == 2


def test_d3_the_same_seed_gives_the_same_draw() -> None:
    assert draw_stage(PLAYERS, 4, "avoid_repeats", 5) == draw_stage(PLAYERS, 4, "avoid_repeats", 5)
    assert draw_stage(PLAYERS, 4, "avoid_repeats", 5) != draw_stage(PLAYERS, 4, "avoid_repeats", 6)


@pytest.fixture
def definition(tmp_path: Path) -> Path:
    path = tmp_path / "cup.toml"
    path.write_text(DEFINITION)
    return path


def test_d4_level_players_share_a_rank_ordered_by_the_lot(definition: Path) -> None:
    t = load_tournament(definition)
    session = "cup.qualifying.r1.t1"
    # p02 and p01 both win 24 once in 4 hands; p03 and p04 pay.
    results = [
        hand_result(1, session, ("p01", "p02", "p03", "p04"), winner=0, discarder=2),
        hand_result(2, session, ("p01", "p02", "p03", "p04"), winner=1, discarder=3),
        hand_result(3, session, ("p01", "p02", "p03", "p04"), winner=None),
        hand_result(4, session, ("p01", "p02", "p03", "p04"), winner=None),
    ]
    lines = standings(t, results).stages["qualifying"]
    top = [(x.player, x.rank, x.tie) for x in lines[:2]]

    def lot(p: str) -> str:
        return hashlib.sha256(f"7:{p}".encode()).hexdigest()

    assert sorted(["p01", "p02"], key=lot) == ["p02", "p01"]  # not the id order
    assert top == [("p02", 1, True), ("p01", 1, True)]
    assert (lines[2].player, lines[2].rank, lines[2].tie) == ("p03", 3, True)


def test_d5_a_stage_named_final_and_the_final_order_are_apart(
    definition: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "hub.sqlite3"
    store, t = open_store(str(db)), load_tournament(definition)
    for stage, round_ in (("qualifying", 1), ("qualifying", 2), ("final", 1)):
        _play(t, store, stage, round_)
    store.close()
    assert main(["hub", "standings", "--db", str(db), "--tournament", str(definition)]) == 0
    heads = [x for x in capsys.readouterr().out.splitlines() if x.startswith("cup ")]
    assert heads == ["cup qualifying (ranked from 4 hands)", "cup final", f"cup {FINAL_ORDER}"]
    out = tmp_path / "t.csv"
    assert main(["hub", "export", "--db", str(db), "--tournament", str(definition),
                 "--results", str(tmp_path / "r.csv"), "--standings", str(tmp_path / "s.csv"),
                 "--tournament-standings", str(out), "--audit", "-"]) == 0  # fmt: skip
    stages = Counter(row.split(",")[0] for row in out.read_text().splitlines()[1:])
    assert stages == {"qualifying": 16, "final": 8, FINAL_ORDER: 16}


def test_d6_d7_a_draw_without_enough_ranked_players_is_refused(
    definition: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "hub.sqlite3"
    store = open_store(str(db))
    args = ["hub", "draw", "--db", str(db), "--tournament", str(definition), "--stage", "final",
            "--round", "1"]  # fmt: skip
    store.close()
    assert main(args) == 2
    assert "only 0 are ranked in qualifying" in capsys.readouterr().err
    store = open_store(str(db))
    t = load_tournament(definition)
    _play(t, store, "qualifying", 1)
    t1 = round_starts(t, report_of(t, store), "qualifying", 2)[0]
    _record(store, [hand_result(h, t1.session, tuple(t1.players)) for h in (1, 2)])
    store.close()
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "needs the 8 players of qualifying's cut, but only 4 are ranked" in err


@pytest.mark.broker
async def test_d8_d9_draw_send_starts_every_table_that_answers(
    broker: Broker, definition: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    keys = tmp_path / "keys.toml"
    keys.write_text("[tables]\n" + "".join(f't{n} = "{KEY_TEXT}"\n' for n in range(1, 5)))
    keys.chmod(0o600)
    books = {f"t{n}": SessionBook() for n in (1, 3, 4)}  # t2 is switched off
    links = [make_link(broker.url, tmp_path / f"{t}.db", b, table=t) for t, b in books.items()]
    db = tmp_path / "hub.sqlite3"
    open_store(str(db)).close()
    # The options before the action are used (D9).
    command = ["hub", "--mqtt", broker.url, "--keys", str(keys), "--db", str(db), "draw",
               "--tournament", str(definition), "--stage", "qualifying", "--round", "1",
               "--send", "--wait", "1"]  # fmt: skip
    async with contextlib.AsyncExitStack() as stack:
        for link in links:
            await stack.enter_async_context(running(link.run()))
        await eventually(lambda: all(link.connected for link in links), "tables connected")
        assert await asyncio.to_thread(main, command) == 1
    out = capsys.readouterr().out
    assert "t2 did not reply" in out and "not started: t2 (send those again)" in out
    assert {t: b.session for t, b in books.items()} == {
        "t1": "cup.qualifying.r1.t1", "t3": "cup.qualifying.r1.t3", "t4": "cup.qualifying.r1.t4"
    }  # fmt: skip
