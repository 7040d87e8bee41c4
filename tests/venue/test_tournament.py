"""A 16-player, 4-table, 2-stage tournament: the definition file checked line by line, seat
draws that avoid repeated opponents, results recorded as the tables send them (one forfeit),
standings with the qualifying minimum, the cut to the final and the prizes, checked against
standings worked out by hand; `hub standings` and `hub export` print and write them."""

import asyncio
import contextlib
from pathlib import Path

import pytest

from controller.cli import main
from controller.clock import ManualClock
from controller.errors import ConfigError
from controller.hub.contract.envelopes import ResultMessage, encode, new_header
from controller.hub.contract.incidents import IncidentKind
from controller.hub.contract.result import HandResult, Incident
from controller.hub.contract.signing import TableKey
from controller.venue.store import ResultStore, open_store
from controller.venue.tournament.commands import report_of, round_starts
from controller.venue.tournament.definition import Tournament, load_tournament
from controller.venue.tournament.draw import draw_stage, meetings, repeats
from devsupport.mosquitto import Broker
from tests.hub.factories import KEY_TEXT, START, SessionBook, hand_result
from tests.hub.helpers import eventually, make_link, running

PLAYERS = [f"p{n:02d}" for n in range(1, 17)]
DEFINITION = """\
[tournament]
name = "cup"
ruleset = "zung-jung"
tables = ["t1", "t2", "t3", "t4"]
seat_draw = "avoid_repeats"
seed = 7

[forfeit]
incidents = ["left_hand", "no_start"]
points = 30

[[stages]]
name = "qualifying"
rounds = 2
hands = 2
qualifying_minimum = 4
cut = 8

[[stages]]
name = "final"
rounds = 1
hands = 2

[prizes]
bands = ["1", "2", "3", "4", "5-8", "9-16"]
""" + "".join(f'\n[[players]]\nid = "{p}"\nname = "Player {p[1:]}"\n' for p in PLAYERS)


@pytest.fixture
def definition(tmp_path: Path) -> Path:
    path = tmp_path / "cup.toml"
    path.write_text(DEFINITION)
    return path


def _session(players: list[str], session: str, forfeit_seat: int | None = None) -> list[HandResult]:
    """Hand 1: East wins 24 off West. Hand 2: South draws its own win (+24, -8 each), unless
    `forfeit_seat` left that hand."""
    leaves: tuple[Incident, ...] = ()
    if forfeit_seat is not None:
        left = Incident(
            at=START, seat=forfeit_seat, kind=IncidentKind.LEFT_HAND, detail="walked away"
        )
        leaves = (left,)
    seats = tuple(players)
    return [
        hand_result(1, session, seats, winner=0, discarder=2),
        hand_result(2, session, seats, winner=1, discarder=None, incidents=leaves),
    ]


def _record(store: ResultStore, results: list[HandResult]) -> None:
    key, clock = TableKey(KEY_TEXT), ManualClock()
    with store:
        for seq, result in enumerate(results, start=1):
            table = result.session.rsplit(".", 1)[1]
            head = new_header(table, 1, seq, clock, "cd" * 16)
            message = key.sign(ResultMessage(result=result, **head))
            assert store.add_result(message, encode(message), "ok", 1.0)


def _play(t: Tournament, store: ResultStore, stage: str, round_: int, forfeit_at: str = "") -> None:
    results = []
    for start in round_starts(t, report_of(t, store), stage, round_):
        table = start.session.rsplit(".", 1)[1]
        results += _session(start.players, start.session, 3 if table == forfeit_at else None)
    _record(store, results)


def test_the_draw_seats_everyone_once_a_round_and_avoids_repeated_opponents() -> None:
    rounds = draw_stage(PLAYERS, 3, "avoid_repeats", seed=7)
    for tables in rounds:
        assert sorted(p for seating in tables for p in seating) == PLAYERS
    assert repeats(rounds[1], meetings(rounds[:1])) == 0
    assert draw_stage(PLAYERS, 3, "avoid_repeats", seed=7) == rounds  # reproducible


def test_a_whole_tournament_standings_cut_and_prizes(definition: Path, tmp_path: Path) -> None:
    t = load_tournament(definition)
    store = open_store(str(tmp_path / "hub.sqlite3"))
    draws = [[s.players for s in round_starts(t, report_of(t, store), "qualifying", r)]
             for r in (1, 2)]  # fmt: skip
    assert draws == EXPECTED_DRAWS
    _play(t, store, "qualifying", 1, forfeit_at="t1")
    _play(t, store, "qualifying", 2)
    report = report_of(t, store)
    got = [(x.player, x.hands, x.points, x.rank) for x in report.stages["qualifying"]]
    assert got == EXPECTED_QUALIFYING
    assert report.fields["final"] == [p for p, _, _, _ in got[:8]]
    _play(t, store, "final", 1)
    report = report_of(t, store)
    final = [(x.player, x.points, x.rank, x.prize) for x in report.final]
    assert final == EXPECTED_FINAL
    store.close()


def test_hub_standings_prints_a_stage_and_hub_export_writes_the_tournament(
    definition: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    t = load_tournament(definition)
    db = tmp_path / "hub.sqlite3"
    store = open_store(str(db))
    _play(t, store, "qualifying", 1, forfeit_at="t1")
    store.close()
    args = ["--db", str(db), "--tournament", str(definition)]
    assert main(["hub", "standings", *args, "--stage", "qualifying"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "cup qualifying (ranked from 4 hands)"
    p03 = next(line for line in lines if " p03 " in line)
    assert "-30 pts" in p03 and "2 hands" in p03 and "1 forfeits" in p03
    assert all("under the qualifying minimum" in line for line in lines[1:])
    out = tmp_path / "tournament.csv"
    files = ["--results", str(tmp_path / "r.csv"), "--standings", str(tmp_path / "s.csv"),
             "--audit", str(tmp_path / "audit.csv")]  # fmt: skip
    assert main(["hub", "export", *args, *files, "--tournament-standings", str(out)]) == 0
    rows = out.read_text().splitlines()
    assert (
        rows[0]
        == "stage,rank,player,name,hands,points,wins,forfeits,qualified,prize,adjusted,override"
    )
    assert "qualifying,,p03,Player 03,2,-30,0,1,0,,0," in rows


@pytest.mark.parametrize(
    ("change", "line", "message"),
    [
        (('seat_draw = "avoid_repeats"', 'seat_draw = "swiss"'), 5, "must be one of random"),
        (("cut = 8", "cut = 9"), 0, "stage 'final' has 9 players: it needs a multiple of 4"),
        (("hands = 2\nqualifying", "hands = 0\nqualifying"), 15, "must be at least 1"),
        (("points = 30", "points = 30\nbonus = 1"), 11, "unknown key 'bonus' in [forfeit]"),
        (('"5-8", "9-16"', '"6-8"'), 25, "prize band '6-8' must follow rank 4"),
        (('id = "p02"', 'id = "p01"'), 32, "player id 'p01' is registered twice"),
        (("hands = 2\n\n[prizes]", "hands = -1\n\n[prizes]"), 22, "must be at least 1"),
        (('name = "final"', 'name = "Final!"'), 20, "'name' is 'Final!'; it must match"),
    ],
)
def test_a_mistake_in_the_definition_names_its_line(
    tmp_path: Path, change: tuple[str, str], line: int, message: str
) -> None:
    path = tmp_path / "cup.toml"
    path.write_text(DEFINITION.replace(*change, 1))
    with pytest.raises(ConfigError) as caught:
        load_tournament(path)
    assert message in caught.value.message
    if line:
        assert caught.value.line == line


EXPECTED_DRAWS = [
    [["p11", "p07", "p08", "p03"], ["p15", "p12", "p13", "p06"],
     ["p10", "p09", "p01", "p04"], ["p14", "p16", "p02", "p05"]],
    [["p04", "p02", "p12", "p08"], ["p06", "p05", "p03", "p09"],
     ["p13", "p01", "p16", "p11"], ["p07", "p14", "p10", "p15"]],
]  # fmt: skip
# Each session: E +24 -8 = 16 (1 win), S 0 + 24 = 24 (1 win), W -24 -8 = -32, N 0 - 8 = -8.
# In round 1 on t1, p03 (North) left hand 2: -30 and a hand for p03 only; p11, p07 and p08
# have one hand fewer (3 < 4: not ranked). Level on points, wins and hands: the same rank,
# ordered by the lot (sha256 of "7:" + id, seed 7): p09 p05; p06 p15 p04; p02 p01 p16 p12;
# p10 p13.
EXPECTED_QUALIFYING = [
    ("p14", 4, 40, 1),  # E + S
    ("p09", 4, 16, 2),  # S + N
    ("p05", 4, 16, 2),  # N + S
    ("p06", 4, 8, 4),  # N + E
    ("p15", 4, 8, 4),  # E + N
    ("p04", 4, 8, 4),  # N + E
    ("p02", 4, -8, 7),  # W + S
    ("p01", 4, -8, 7),  # W + S
    ("p16", 4, -8, 7),  # S + W
    ("p12", 4, -8, 7),  # S + W
    ("p10", 4, -16, 11),  # E + W
    ("p13", 4, -16, 11),  # W + E
    ("p03", 4, -62, 13),  # 0 - 30 (forfeit) + W -32
    ("p07", 3, 16, None),  # 0 + E 16
    ("p08", 3, -32, None),  # -24 + N -8
    ("p11", 3, 16, None),  # 24 + N -8
]
# The cut takes the first 8 in that order (the lot splits rank 7). The final: t1 p02 p14 p06
# p09, t2 p05 p01 p15 p04 (E S W N); level pairs share a rank, the lot orders them (p01 p14,
# p02 p05, p09 p04, p06 p15) and so the prizes; then the players cut, by their qualifying
# order; the unranked get no prize.
EXPECTED_FINAL = [
    ("p01", 24, 1, "1"),
    ("p14", 24, 1, "2"),
    ("p02", 16, 3, "3"),
    ("p05", 16, 3, "4"),
    ("p09", -8, 5, "5-8"),
    ("p04", -8, 5, "5-8"),
    ("p06", -32, 7, "5-8"),
    ("p15", -32, 7, "5-8"),
    ("p16", -8, 9, "9-16"),
    ("p12", -8, 9, "9-16"),
    ("p10", -16, 11, "9-16"),
    ("p13", -16, 11, "9-16"),
    ("p03", -62, 13, "9-16"),
    ("p07", 16, None, ""),
    ("p08", -32, None, ""),
    ("p11", 16, None, ""),
]


@pytest.mark.broker
async def test_hub_draw_send_starts_each_table_with_its_drawn_players(
    broker: Broker, definition: Path, tmp_path: Path
) -> None:
    keys = tmp_path / "keys.toml"
    keys.write_text("[tables]\n" + "".join(f't{n} = "{KEY_TEXT}"\n' for n in range(1, 5)))
    keys.chmod(0o600)
    books = {f"t{n}": SessionBook() for n in range(1, 5)}
    links = [
        make_link(broker.url, tmp_path / f"{t}.db", book, table=t) for t, book in books.items()
    ]
    db = tmp_path / "hub.sqlite3"
    open_store(str(db)).close()
    command = ["hub", "draw", "--mqtt", broker.url, "--keys", str(keys), "--db", str(db),
               "--tournament", str(definition), "--stage", "qualifying", "--round", "2",
               "--send"]  # fmt: skip
    async with contextlib.AsyncExitStack() as stack:
        for link in links:
            await stack.enter_async_context(running(link.run()))
        await eventually(lambda: all(link.connected for link in links), "tables connected")
        assert await asyncio.to_thread(main, command) == 0
    assert {t: (b.session, b.players) for t, b in books.items()} == {
        f"t{n}": (f"cup.qualifying.r2.t{n}", players)
        for n, players in enumerate(EXPECTED_DRAWS[1], start=1)
    }
