"""`hub rehearse`: a whole 16-player tournament (4 tables, qualifying, cut, final, prizes)
played by simulated tables over TLS with their own certificates to the shipped mosquitto
configuration and ACLs, recording to SQLite or PostgreSQL.

The rehearsal is deterministic: the draw comes from the tournament's seed (7) and each
simulated table plays on virtual time from its own seed (t1 = 1 ... t4 = 4), so the same
twenty hands are recorded on both engines. HANDS below is what they are; STANDINGS is the
standings worked out by hand from HANDS with the tournament rules (docs/tournament-day.md),
so the test checks the standings code against arithmetic anyone can redo on paper.
"""

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

# The draw (seed 7): each session's players in seat order E S W N at its first hand.
DRAW = {
    "qualifying.r1.t1": ("p08", "p07", "p03", "p11"),
    "qualifying.r1.t2": ("p12", "p06", "p15", "p13"),
    "qualifying.r1.t3": ("p10", "p09", "p01", "p04"),
    "qualifying.r1.t4": ("p16", "p14", "p05", "p02"),
    "qualifying.r2.t1": ("p12", "p04", "p08", "p02"),
    "qualifying.r2.t2": ("p05", "p03", "p06", "p09"),
    "qualifying.r2.t3": ("p16", "p01", "p13", "p11"),
    "qualifying.r2.t4": ("p14", "p15", "p07", "p10"),
    # The cut's eight (qualifying places 1-8: p06 p02 p16 p10 p12 p05 p01 p11), drawn again.
    "final.r1.t1": ("p10", "p02", "p11", "p12"),
    "final.r1.t2": ("p06", "p05", "p01", "p16"),
}

# Every hand: (session, hand, winner, patterns, how, payments). Zung Jung v3.3 values: Chicken
# Hand 1; All Sequences, No Terminals, One Kong 5; Value Honor 10 a set; Two Identical
# Sequences, Win on Kong 10; All Triplets 30; the value V is their sum. Payment (docs/rules.md):
# self-drawn, each opponent pays V; on a discard each pays V if V <= 25, else the two others
# pay 25 and the discarder 3V - 50. No hand had a penalty or a draw.
HANDS = [
    # V = 10 + 5 = 15, self-drawn: three pay 15, p03 gets 45.
    ("qualifying.r1.t1", 1, "p03", "Value Honor+One Kong", "self-draw",
     {"p03": 45, "p08": -15, "p07": -15, "p11": -15}),
    ("qualifying.r1.t1", 2, "p11", "One Kong", "self-draw",  # V = 5
     {"p11": 15, "p08": -5, "p07": -5, "p03": -5}),
    ("qualifying.r1.t2", 1, "p12", "Value Honor", "discard",  # V = 10 <= 25: each pays 10
     {"p12": 30, "p06": -10, "p15": -10, "p13": -10}),
    ("qualifying.r1.t2", 2, "p06", "Chicken Hand", "discard",  # V = 1
     {"p06": 3, "p12": -1, "p15": -1, "p13": -1}),
    ("qualifying.r1.t3", 1, "p04", "Chicken Hand", "discard",
     {"p04": 3, "p10": -1, "p09": -1, "p01": -1}),
    ("qualifying.r1.t3", 2, "p01", "Chicken Hand", "discard",
     {"p01": 3, "p10": -1, "p09": -1, "p04": -1}),
    ("qualifying.r1.t4", 1, "p16", "Value Honor", "discard",
     {"p16": 30, "p14": -10, "p05": -10, "p02": -10}),
    ("qualifying.r1.t4", 2, "p16", "Chicken Hand", "self-draw",
     {"p16": 3, "p14": -1, "p05": -1, "p02": -1}),
    ("qualifying.r2.t1", 1, "p02", "No Terminals", "after-kong-discard",  # V = 5, a discard
     {"p02": 15, "p12": -5, "p04": -5, "p08": -5}),
    ("qualifying.r2.t1", 2, "p02", "Value Honor+One Kong", "discard",  # V = 15
     {"p02": 45, "p12": -15, "p04": -15, "p08": -15}),
    ("qualifying.r2.t2", 1, "p05", "One Kong+Win on Kong", "kong-replacement",  # 15, self-drawn
     {"p05": 45, "p03": -15, "p06": -15, "p09": -15}),
    # V = 30 > 25 on p03's discard: p03 pays 3 x 30 - 50 = 40, p05 and p09 pay 25; p06 gets 90.
    ("qualifying.r2.t2", 2, "p06", "All Triplets", "discard",
     {"p06": 90, "p03": -40, "p05": -25, "p09": -25}),
    ("qualifying.r2.t3", 1, "p01", "Chicken Hand", "self-draw",
     {"p01": 3, "p16": -1, "p13": -1, "p11": -1}),
    ("qualifying.r2.t3", 2, "p16", "Chicken Hand", "discard",
     {"p16": 3, "p01": -1, "p13": -1, "p11": -1}),
    ("qualifying.r2.t4", 1, "p10", "Value Honor", "discard",
     {"p10": 30, "p14": -10, "p15": -10, "p07": -10}),
    ("qualifying.r2.t4", 2, "p10", "Chicken Hand", "after-kong-discard",
     {"p10": 3, "p14": -1, "p15": -1, "p07": -1}),
    ("final.r1.t1", 1, "p02", "Value Honor", "discard",
     {"p02": 30, "p10": -10, "p11": -10, "p12": -10}),
    ("final.r1.t1", 2, "p11", "All Sequences+Two Identical Sequences", "discard",  # 5 + 10
     {"p11": 45, "p10": -15, "p02": -15, "p12": -15}),
    ("final.r1.t2", 1, "p06", "All Sequences", "discard",
     {"p06": 15, "p05": -5, "p01": -5, "p16": -5}),
    ("final.r1.t2", 2, "p06", "No Terminals", "discard",
     {"p06": 15, "p05": -5, "p01": -5, "p16": -5}),
]  # fmt: skip

# The standings, by hand from HANDS: a player's points in a stage are the sum of their
# payments in that stage's hands (q = qualifying; r1.t2#1 is round 1, table t2, hand 1).
# Ranked by points, then more wins, then fewer hands; players level on all three share a rank
# and are ordered by the drawn lot, sha256("7:" + player id) in hex, smallest first.
# (stage, rank, player, hands, points, wins, prize)
STANDINGS = [
    ("qualifying", 1, "p06", 4, 68, 2, ""),  # r1.t2: -10 +3; r2.t2: -15 +90
    ("qualifying", 2, "p02", 4, 49, 2, ""),  # r1.t4: -10 -1; r2.t1: +15 +45
    ("qualifying", 3, "p16", 4, 35, 3, ""),  # r1.t4: +30 +3; r2.t3: -1 +3
    ("qualifying", 4, "p10", 4, 31, 2, ""),  # r1.t3: -1 -1; r2.t4: +30 +3
    # p12 and p05: 9 points, 1 win, 4 hands each; lots 9e5ddb9f... < c6d81117...
    ("qualifying", 5, "p12", 4, 9, 1, ""),  # r1.t2: +30 -1; r2.t1: -5 -15
    ("qualifying", 5, "p05", 4, 9, 1, ""),  # r1.t4: -10 -1; r2.t2: +45 -25
    ("qualifying", 7, "p01", 4, 4, 2, ""),  # r1.t3: -1 +3; r2.t3: +3 -1
    ("qualifying", 8, "p11", 4, -2, 1, ""),  # r1.t1: -15 +15; r2.t3: -1 -1   (the cut: 8)
    ("qualifying", 9, "p13", 4, -13, 0, ""),  # r1.t2: -10 -1; r2.t3: -1 -1
    ("qualifying", 10, "p03", 4, -15, 1, ""),  # r1.t1: +45 -5; r2.t2: -15 -40
    ("qualifying", 11, "p04", 4, -18, 1, ""),  # r1.t3: +3 -1; r2.t1: -5 -15
    # p15 and p14: -22 points, no win, 4 hands each; lots 639cf14b... < e3173a33...
    ("qualifying", 12, "p15", 4, -22, 0, ""),  # r1.t2: -10 -1; r2.t4: -10 -1
    ("qualifying", 12, "p14", 4, -22, 0, ""),  # r1.t4: -10 -1; r2.t4: -10 -1
    ("qualifying", 14, "p07", 4, -31, 0, ""),  # r1.t1: -15 -5; r2.t4: -10 -1
    ("qualifying", 15, "p08", 4, -40, 0, ""),  # r1.t1: -15 -5; r2.t1: -5 -15
    ("qualifying", 16, "p09", 4, -42, 0, ""),  # r1.t3: -1 -1; r2.t2: -15 -25
    ("final", 1, "p11", 2, 35, 1, ""),  # t1: -10 +45
    ("final", 2, "p06", 2, 30, 2, ""),  # t2: +15 +15
    ("final", 3, "p02", 2, 15, 1, ""),  # t1: +30 -15
    # p01, p16, p05: -10, no win, 2 hands; lots 05f61aa9... < 4e318a9d... < c6d81117...
    ("final", 4, "p01", 2, -10, 0, ""),  # t2: -5 -5
    ("final", 4, "p16", 2, -10, 0, ""),
    ("final", 4, "p05", 2, -10, 0, ""),
    # p10, p12: -25, no win, 2 hands; lots 35000681... < 9e5ddb9f...
    ("final", 7, "p10", 2, -25, 0, ""),  # t1: -10 -15
    ("final", 7, "p12", 2, -25, 0, ""),
    # The final order: the final's eight in its order, then the other eight in their
    # qualifying order. Prizes go by place in that order (bands 1, 2, 3, 4, 5-8, 9-16): of the
    # three level at rank 4, the first by the lot (p01) takes prize 4, the others 5-8.
    ("final order", 1, "p11", 2, 35, 1, "1"),
    ("final order", 2, "p06", 2, 30, 2, "2"),
    ("final order", 3, "p02", 2, 15, 1, "3"),
    ("final order", 4, "p01", 2, -10, 0, "4"),
    ("final order", 4, "p16", 2, -10, 0, "5-8"),
    ("final order", 4, "p05", 2, -10, 0, "5-8"),
    ("final order", 7, "p10", 2, -25, 0, "5-8"),
    ("final order", 7, "p12", 2, -25, 0, "5-8"),
    ("final order", 9, "p13", 4, -13, 0, "9-16"),
    ("final order", 10, "p03", 4, -15, 1, "9-16"),
    ("final order", 11, "p04", 4, -18, 1, "9-16"),
    ("final order", 12, "p15", 4, -22, 0, "9-16"),
    ("final order", 12, "p14", 4, -22, 0, "9-16"),
    ("final order", 14, "p07", 4, -31, 0, "9-16"),
    ("final order", 15, "p08", 4, -40, 0, "9-16"),
    ("final order", 16, "p09", 4, -42, 0, "9-16"),
]


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as f:
        return list(DictReader(f))


def _first_seats(seating: str) -> tuple[str, ...]:
    """'p11:N;p07:S;p08:E;p03:W dice 1+2+5+1' -> the players in seat order E S W N."""
    wind_of = dict(x.split(":") for x in seating.split(" ")[0].split(";"))
    by_wind = {wind: player for player, wind in wind_of.items()}
    return tuple(by_wind[w] for w in "ESWN")


def test_the_hand_tables_add_up() -> None:
    """The tables above are consistent on their own: every hand is zero-sum among the four
    players its session drew, and each stage's points and hands are the sums of HANDS."""
    points: dict[tuple[str, str], int] = {}
    hands: dict[tuple[str, str], int] = {}
    for session, _, winner, _, _, paid in HANDS:
        assert sum(paid.values()) == 0 and set(paid) == set(DRAW[session])
        assert paid[winner] == max(paid.values())
        for player, amount in paid.items():
            key = (session.split(".")[0], player)
            points[key] = points.get(key, 0) + amount
            hands[key] = hands.get(key, 0) + 1
    for stage, _, player, n, total, _, _ in STANDINGS:
        if stage != "final order":
            assert (hands[stage, player], points[stage, player]) == (n, total), player


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

    recorded = sorted(_rows(work / "results.csv"), key=lambda r: (r["session"], int(r["hand"])))
    seats = {r["session"][4:]: _first_seats(r["seating"]) for r in recorded if r["hand"] == "1"}
    assert seats == DRAW
    played = [
        (
            r["session"][4:],
            int(r["hand"]),
            r["winners"],
            r["patterns"].removeprefix(r["winners"] + ":"),
            r["win_types"],
            {r[f"{w}_player"]: int(r[f"{w}_payment"]) + int(r[f"{w}_penalty"]) for w in "ESWN"},
        )
        for r in recorded
    ]
    assert played == sorted(HANDS, key=lambda h: (h[0], h[1]))

    standings = [
        (x["stage"], int(x["rank"]), x["player"], int(x["hands"]), int(x["points"]),
         int(x["wins"]), x["prize"])
        for x in _rows(work / "tournament.csv")
    ]  # fmt: skip
    assert standings == STANDINGS
