"""`mahjong-table rules` as a referee or another tool uses it."""

import json
import unicodedata

import pytest

from controller.cli import main


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["rules", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_score_json_is_the_contract(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys,
        "score",
        "--ruleset",
        "zung-jung",
        "666z999p44p",
        "--meld",
        "pung:222p",
        "--meld",
        "pung:777p",
        "--win-tile",
        "4p",
        "--json",
    )
    assert code == 0
    result = json.loads(out)
    assert set(result) == {
        "ruleset",
        "valid",
        "reason",
        "patterns",
        "total",
        "unit",
        "score",
        "payments",
    }
    assert result["valid"] is True
    assert result["total"] == result["score"] == 85
    assert result["unit"] == "points"
    assert {"name": "All Triplets", "value": 30} in result["patterns"]
    assert result["payments"] == {"E": 255, "S": -25, "W": -25, "N": -205}


def test_score_readable_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "score", "--ruleset", "zung-jung", "234m345p567s678s55p", "--win-tile", "8s"
    )
    assert code == 0
    assert "All Sequences" in out and "total" in out and "15 points" in out
    assert "payments: E +45" in out


def test_readable_table_lines_up_chinese_pattern_names(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["score", "--ruleset", "sichuan", "11112222333344p", "--win", "self-draw"]
    code, out, _ = run(capsys, *args, "--win-tile", "4p")
    assert code == 0
    rows = [line.removesuffix(" fan") for line in out.splitlines()[2:-1]]
    assert [row.split()[0] for row in rows] == ["清龙七对", "根", "total", "score"]
    # every value ends in the same terminal column (a Chinese character takes two)
    columns = {len(row) + sum(unicodedata.east_asian_width(c) == "W" for c in row) for row in rows}
    assert len(columns) == 1


def test_self_draw_seat_and_discarder(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["score", "--ruleset", "zung-jung", "123m345m567m555z99m", "--json", "--seat", "W"]
    _, out, _ = run(capsys, *args, "--discarder", "E")
    assert json.loads(out)["payments"] == {"E": -115, "S": -25, "W": 165, "N": -25}
    _, out, _ = run(capsys, *args, "--win", "self-draw")
    assert json.loads(out)["payments"] == {"E": -55, "S": -55, "W": 165, "N": -55}


def test_an_invalid_hand_is_a_normal_answer(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "score", "--ruleset", "zung-jung", "11z22z33z44z77z666z5z", "--json")
    assert code == 0
    result = json.loads(out)
    assert result["valid"] is False
    assert result["reason"].startswith("not a winning hand")
    assert result["patterns"] == [] and result["score"] == 0
    code, out, _ = run(capsys, "score", "--ruleset", "zung-jung", "11z22z33z44z77z666z5z")
    assert "INVALID" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["123m45x6p"], "unknown suit 'x' at position 7"),
        (["123m456p789s123p55s", "--meld", "pong:555z"], "unknown meld kind 'pong'"),
        (["123m456p789s123p5s"], "holds 14 concealed tiles, got 13"),
        (["123m456p789s123p55s", "--win-tile", "9m"], "winning tile must be one of"),
        (["11111m456p789s123p"], "more than 4 tiles 1m"),
        (["123m456p789s123p55s", "--flowers", "1f"], "without flower tiles"),
        (["123m456p789s123p55s", "--won", "EX"], "unknown seat 'X'"),
        (["123m456p789s123p55s", "--won", "N"], "no seat has won yet"),
        (["123m456p789s123p55s", "--draw-streak", "2"], "a draw streak does not apply"),
        (["123m456p789s123p55s", "--win", "self-draw", "--discarder", "S"], "no discarder"),
        (["123m456p789s123p55s", "--win", "last-tile", "--discarder", "S"], "no discarder"),
        (["345m456m789m22p333p", "--win-tile", "5m", "--win", "robbing-kong"], "would be five"),
        (["345m678m789m22p", "--meld", "pung:333p", "--win", "heavenly"], "no exposed sets"),
        (["345m678m789m22p", "--meld", "concealed-kong:3333p", "--win", "heavenly"], "9.4.1"),
        (["119m19p19s1234567z", "--win", "earthly", "--seat", "S", "--discarder", "W"], "(E)"),
    ],
)
def test_malformed_input_exits_2_with_one_line(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    code, out, err = run(capsys, "score", "--ruleset", "zung-jung", *args)
    assert code == 2
    assert out == ""
    assert len(err.splitlines()) == 1
    assert message in err


@pytest.mark.parametrize(
    ("ruleset", "args", "message"),
    [
        ("sichuan", ["123m456p789m123p55m", "--seat", "S", "--won", "E"], "already won"),
        ("sichuan", ["123m456p789m123p55m", "--draw-streak", "1"], "no draw bonus"),
        ("shanghai", ["123m456p789s123p55s", "--won", "S"], "ends a hand at its first win"),
        ("shanghai", ["1112345678999m", "--flowers", "12345678f"], "never on a discard"),
        ("zung-jung", ["123m456p789s123p55s", "--win", "earthly", "--seat", "N"], "E) first"),
    ],
)
def test_options_that_do_not_apply_are_refused(
    capsys: pytest.CaptureFixture[str], ruleset: str, args: list[str], message: str
) -> None:
    if ruleset == "zung-jung":
        args = [*args, "--discarder", "W"]
    code, out, err = run(capsys, "score", "--ruleset", ruleset, *args)
    assert (code, out, len(err.splitlines())) == (2, "", 1)
    assert message in err


def test_shanghai_draw_streak_and_sichuan_winners_are_used(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["score", "--ruleset", "shanghai", "111222333z444z55z", "--json", "--draw-streak", "1"]
    code, out, _ = run(capsys, *args)
    assert code == 0 and json.loads(out)["valid"]
    args = ["score", "--ruleset", "sichuan", "123m456p789m123p55m", "--won", "W", "--json"]
    code, out, _ = run(capsys, *args, "--seat", "S", "--win", "self-draw")
    assert code == 0 and json.loads(out)["payments"]["W"] == 0


def test_an_unknown_ruleset_is_refused_naming_the_known_ones(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as stopped:
        run(capsys, "score", "--ruleset", "riichi", "123m456p789s123p55s")
    out, err = capsys.readouterr()
    assert stopped.value.code == 2 and out == "" and len(err.splitlines()) == 1
    assert "riichi" in err and all(name in err for name in ("zung-jung", "sichuan", "shanghai"))


def test_ruleset_file_changes_house_rules(
    capsys: pytest.CaptureFixture[str], tmp_path: object
) -> None:
    from pathlib import Path

    venue = Path(str(tmp_path)) / "house.toml"
    venue.write_text('[patterns."All Sequences"]\nvalue = 7\n')
    args = ["score", "--ruleset", "zung-jung", "--ruleset-file", str(venue), "123m456p789s123p55s"]
    _, out, _ = run(capsys, *args, "--json")
    assert {"name": "All Sequences", "value": 7} in json.loads(out)["patterns"]


def test_waits(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "waits", "--ruleset", "zung-jung", "1112345678999m")
    assert code == 0
    assert out.startswith("123456789m")
    _, out, _ = run(capsys, "waits", "--ruleset", "zung-jung", "1112345678999m", "--json")
    assert json.loads(out) == {"ruleset": "zung-jung", "waits": [f"{n}m" for n in range(1, 10)]}
    _, out, _ = run(capsys, "waits", "--ruleset", "zung-jung", "159m159p159s1234z")
    assert out.startswith("no waits")


def test_waits_with_melds_and_a_wrong_count(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(
        capsys, "waits", "--ruleset", "zung-jung", "23m456p789s11z", "--meld", "pung:777s", "--json"
    )
    assert json.loads(out)["waits"] == ["1m", "4m"]
    code, _, err = run(capsys, "waits", "--ruleset", "zung-jung", "23m456p789s11z")
    assert code == 2 and "holds 13 concealed tiles" in err
