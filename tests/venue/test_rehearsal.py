"""`hub rehearse`: a whole 16-player tournament (4 tables, qualifying, cut, final, prizes)
played by simulated tables over TLS with their own certificates to the shipped mosquitto
configuration and ACLs, recording to SQLite or PostgreSQL; the standings are checked against
a table worked out from the recorded hands alone (the export), not by the standings code."""

from collections import defaultdict
from csv import DictReader
from pathlib import Path

import pytest

from controller.cli import main
from tests.venue.test_tournament import PLAYERS

pytestmark = [pytest.mark.broker, pytest.mark.slow]
CUP = """\
[tournament]
name = "cup"
ruleset = "zung-jung"
tables = ["t1", "t2", "t3", "t4"]
seed = 7

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


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as f:
        return list(DictReader(f))


def test_a_whole_tournament_is_rehearsed_with_simulated_tables(
    store_spec: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cup = tmp_path / "cup.toml"
    cup.write_text(CUP)
    work = tmp_path / "rehearsal"
    assert main(["hub", "rehearse", str(cup), "--tables", "4", "--db", store_spec,
                 "--work", str(work)]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert "20 results" in out  # 2 rounds x 4 tables x 2 hands + 1 round x 2 tables x 2 hands

    # Worked out from the recorded hands: each player's hands and points per stage.
    hands: dict[tuple[str, str], int] = defaultdict(int)
    points: dict[tuple[str, str], int] = defaultdict(int)
    tables: dict[str, set[str]] = defaultdict(set)
    for r in _rows(work / "results.csv"):
        stage = r["session"].split(".")[1]
        tables[stage].add(r["table"])
        for wind in "ESWN":
            key = (stage, r[f"{wind}_player"])
            hands[key] += 1
            points[key] += int(r[f"{wind}_payment"]) + int(r[f"{wind}_penalty"])
    assert tables == {"qualifying": {"t1", "t2", "t3", "t4"}, "final": {"t1", "t2"}}
    standings = _rows(work / "tournament.csv")
    qualifying = [x for x in standings if x["stage"] == "qualifying"]
    assert {x["player"] for x in qualifying} == set(PLAYERS)
    for x in qualifying:
        assert int(x["hands"]) == hands["qualifying", x["player"]] == 4
        assert int(x["points"]) == points["qualifying", x["player"]]
    # Ranked by points (a tie shares the rank); the first 8 in that order play the final.
    ordered = [int(x["points"]) for x in qualifying]
    assert ordered == sorted(ordered, reverse=True)
    finalists = {x["player"] for x in qualifying[:8]}
    final = [x for x in standings if x["stage"] == "final"]
    assert {x["player"] for x in final} == finalists
    for x in final:
        assert int(x["points"]) == points["final", x["player"]] and int(x["hands"]) == 2
    order = [x for x in standings if x["stage"] == "final order"]
    assert [x["player"] for x in order[:8]] == [x["player"] for x in final]
    assert [x["prize"] for x in order] == ["1", "2", "3", "4", *["5-8"] * 4, *["9-16"] * 8]
