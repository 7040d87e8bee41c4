"""Sichuan blood battle: every fan pattern on a hand that has it and a near miss, how fan
combine (single highest base pattern, roots, extras), what may not win, and the CLI."""

import json
from pathlib import Path

import pytest

from controller.cli import main
from controller.rules import RulesError, Score, Seat, WinType, get_ruleset
from tests.rules.helpers import names, win

SD, KR = WinType.SELF_DRAW, WinType.KONG_REPLACEMENT
SC = get_ruleset("sichuan")


def sc(hand: str, *melds: str, **context: object) -> Score:
    """The sichuan score of a hand."""
    return SC.score(win(hand, *melds, **context))  # type: ignore[arg-type]


# pattern: (hand that has it, near miss); a hand is (concealed, melds, options)
Spec = tuple[str, tuple[str, ...], dict[str, object]]
PLAIN = "123m456m789m234p55p"
PATTERNS: dict[str, tuple[Spec, Spec]] = {
    "平胡": ((PLAIN, (), {}), ("111m444m777m222p55p", (), {})),
    "对对胡": (("111m444m777m222p55p", (), {}), ("111m444m789m222p55p", (), {})),
    "清一色": (("123m456m789m234m55m", (), {}), (PLAIN, (), {})),
    "带幺九": (("123m789m111p999p11m", (), {}), ("123m789m111p999p22m", (), {})),
    "七对": (("1133m5577m2288p99p", (), {}), ("1133m5555m2288p99p", (), {})),
    "清对": (("111m444m777m222m55m", (), {}), ("111m444m777m222p55p", (), {})),
    "将对": (("222m555m888m222p55p", (), {}), ("222m555m888m333p55p", (), {})),
    "龙七对": (("1133m5555m2288p99p", (), {}), ("1133m5577m2288p99p", (), {})),
    "清七对": (("11223355778899m", (), {}), ("1133m5577m2288p99p", (), {})),
    "清幺九": (("123m123m789m999m11m", (), {}), ("123m123m789m999m99p", (), {})),
    "天胡": ((PLAIN, (), {"how": WinType.HEAVENLY}), (PLAIN, (), {"how": SD})),
    "地胡": (
        (PLAIN, (), {"how": WinType.EARTHLY, "seat": Seat.S}),
        (PLAIN, (), {"how": SD, "seat": Seat.S}),
    ),
    "清龙七对": (("11224444557799m", (), {}), ("11224444m557799p", (), {})),
    "根": (("123m456m234p55p", ("kong:9999m",), {}), ("123m456m234p55p", ("pung:999m",), {})),
    "杠上花": (
        ("123m456m234p55p", ("kong:9999m",), {"how": KR}),
        ("123m456m234p55p", ("kong:9999m",), {"how": SD}),
    ),
    "杠上炮": (
        (PLAIN, (), {"how": WinType.AFTER_KONG_DISCARD}),
        (PLAIN, (), {}),
    ),
}


def test_every_pattern_of_the_data_file_is_tested() -> None:
    # 自摸 is off by default (value 0): test_self_drawn_fan_is_a_house_rule covers it
    assert sorted(spec.name for spec in SC.patterns) == sorted([*PATTERNS, "自摸"])


@pytest.mark.parametrize("pattern", list(PATTERNS))
def test_pattern_is_found(pattern: str) -> None:
    hand, melds, options = PATTERNS[pattern][0]
    score = sc(hand, *melds, **options)
    assert score.valid, score.reason
    assert pattern in names(score), (names(score), score.arrangement)


@pytest.mark.parametrize("pattern", list(PATTERNS))
def test_pattern_near_miss(pattern: str) -> None:
    hand, melds, options = PATTERNS[pattern][1]
    assert pattern not in names(sc(hand, *melds, **options))


def test_only_the_single_highest_base_pattern_counts() -> None:
    assert sc("111m444m777m222m55m").patterns == (("清对", 4),)  # not 清一色 3 + 对对胡 2
    assert sc("11223355778899m").patterns == (("清七对", 5),)  # not 清一色 + 七对
    assert sc("222m555m888m222p55p").total == 4  # 将对 alone, not also 对对胡


def test_points_double_per_fan() -> None:
    for hand, fan in ((PLAIN, 1), ("111m444m777m222p55p", 2), ("11224444557799m", 6)):
        score = sc(hand)
        assert (score.total, score.score, score.unit) == (fan, 2 ** (fan - 1), "fan")


def test_a_root_is_any_four_of_a_kind_held() -> None:
    concealed_four = sc("444m456m123p123p55p")  # 4444m held concealed, not as a kong
    assert ("根", 1) in concealed_four.patterns
    pung_plus_one = sc("123m456m456p55p", "pung:333m")  # 333m pung and a 3m in 123m
    assert names(pung_plus_one) == ["平胡", "根"]
    two = sc("123m456p55p", "kong:9999m", "concealed-kong:7777p")
    assert ("根 x2", 2) in two.patterns
    assert two.total == 3


def test_dragon_seven_pairs_absorb_one_root_and_keep_the_others() -> None:
    one = sc("1133m5555m2288p99p")
    assert one.patterns == (("龙七对", 5),)
    two = sc("1111m5555m2288p99p")
    assert two.patterns == (("龙七对", 5), ("根", 1))
    assert two.total == 6


def test_heavenly_and_earthly_count_no_roots() -> None:
    hand = "444m456m123p123p55p"  # a root held
    assert sc(hand, how=WinType.HEAVENLY).patterns == (("天胡", 6),)
    assert sc(hand, how=WinType.EARTHLY, seat=Seat.W).patterns == (("地胡", 6),)


def test_equal_base_patterns_resolve_to_the_one_worth_more_fan() -> None:
    # 清龙七对 (6) keeps its second root; 天胡 (6) would count none
    score = sc("11112222m335577m", how=WinType.HEAVENLY)
    assert score.patterns == (("清龙七对", 6), ("根", 1))
    assert score.total == 7
    assert sc("11223344m556677m", how=WinType.HEAVENLY).patterns == (("天胡", 6),)


def test_extras_add_to_the_base_pattern() -> None:
    score = sc("111m444m777m55p", "kong:2222p", how=KR)
    assert score.patterns == (("对对胡", 2), ("根", 1), ("杠上花", 1))
    assert (score.total, score.score) == (4, 8)


@pytest.mark.parametrize(
    ("hand", "melds", "reason"),
    [
        ("123m456p789s234m55p", (), "three suits: a Sichuan hand must be void in one suit"),
        ("123m456m789p55p", ("pung:111s",), "three suits"),
        ("456m789m234p55p", ("chow:123m",), "a chow: Sichuan has no chow"),
        ("123m456m789m234p56p", (), "not a winning hand"),
    ],
)
def test_what_may_not_win_says_why(hand: str, melds: tuple[str, ...], reason: str) -> None:
    score = sc(hand, *melds)
    assert not score.valid
    assert reason in score.reason
    assert score.patterns == () and set(score.payments.values()) == {0}


def test_tiles_sichuan_does_not_play_are_bad_input() -> None:
    with pytest.raises(RulesError, match="sichuan plays without 1z"):
        sc("123m456m789m234p11z")


def test_max_fan_caps_a_hand(tmp_path: Path) -> None:
    venue = tmp_path / "house.toml"
    venue.write_text("[scoring]\nmax_fan = 4\n")
    house = get_ruleset("sichuan", venue)
    score = house.score(win("11224444557799m"))
    assert (score.total, score.score) == (4, 8)
    assert score.limits == ("limit: 6 fan capped at 4",)
    assert house.score(win(PLAIN)).limits == ()
    assert SC.score(win("11224444557799m")).total == 6  # no cap by default


def test_self_drawn_fan_is_a_house_rule(tmp_path: Path) -> None:
    assert "自摸" not in names(sc(PLAIN, how=SD))
    venue = tmp_path / "house.toml"
    venue.write_text('[patterns."自摸"]\nvalue = 1\n')
    house = get_ruleset("sichuan", venue)
    assert house.score(win(PLAIN, how=SD)).patterns == (("平胡", 1), ("自摸", 1))
    assert "自摸" not in names(house.score(win(PLAIN)))


def test_a_bad_house_rule_is_named(tmp_path: Path) -> None:
    venue = tmp_path / "house.toml"
    venue.write_text("[scoring]\nmax_fan = -1\n")
    with pytest.raises(RulesError, match="max_fan >= 0"):
        get_ruleset("sichuan", venue)


def run(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, object]:
    assert main(["rules", "score", "--ruleset", "sichuan", *args, "--json"]) == 0
    result: dict[str, object] = json.loads(capsys.readouterr().out)
    return result


def test_cli_score_json(capsys: pytest.CaptureFixture[str]) -> None:
    result = run(capsys, "123m456m234p55p", "--meld", "kong:9999m", "--win", "kong-replacement")
    assert result == {
        "ruleset": "sichuan",
        "valid": True,
        "reason": "winning hand",
        "patterns": [
            {"name": "平胡", "value": 1},
            {"name": "根", "value": 1},
            {"name": "杠上花", "value": 1},
        ],
        "total": 3,
        "unit": "fan",
        "score": 4,
        "payments": {"E": 12, "S": -4, "W": -4, "N": -4},
    }


def test_cli_discard_and_seats_already_out(capsys: pytest.CaptureFixture[str]) -> None:
    result = run(capsys, "111m444m777m222p55p", "--seat", "S", "--discarder", "N")
    assert result["payments"] == {"E": 0, "S": 2, "W": 0, "N": -2}
    result = run(capsys, PLAIN, "--seat", "S", "--win", "self-draw", "--won", "EN")
    assert result["payments"] == {"E": 0, "S": 1, "W": -1, "N": 0}


def test_cli_three_suits_is_a_normal_answer(capsys: pytest.CaptureFixture[str]) -> None:
    result = run(capsys, "123m456p789s234m55p")
    assert result["valid"] is False
    assert result["reason"] == "three suits: a Sichuan hand must be void in one suit"


def test_cli_readable_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "score", "--ruleset", "sichuan", "11224444557799m"]) == 0
    out = capsys.readouterr().out
    assert "清龙七对" in out and "6 fan" in out and "payments: E +32" in out
