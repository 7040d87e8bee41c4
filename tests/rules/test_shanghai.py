"""Shanghai: every pattern and a near miss, plain hands refused, limits, draw bonus, payments."""

import pytest

from controller.rules import RulesError, Score, Seat, Win, WinType, get_ruleset

SH = get_ruleset("shanghai")
D, SD, KR = WinType.DISCARD, WinType.SELF_DRAW, WinType.KONG_REPLACEMENT
MIXED = "123m456m789m111z55m"  # Mixed One-Suit with a wind pung: (3 + 1) x 2^2 = 16
ALL_FLOWERS = "12345678f"


def sh(
    hand: str,
    *melds: str,
    how: WinType = D,
    seat: Seat = Seat.E,
    discarder: Seat | None = None,
    flowers: str = "",
    streak: int = 0,
    tile: str | None = None,
) -> Score:
    """The Shanghai score of a hand written in notation."""
    win = Win.of(hand, melds, tile, how, seat, discarder, flowers, streak)
    return SH.score(win)


def names(score: Score) -> list[str]:
    """The counted pattern names, without a count suffix."""
    return [pattern.name.split(" x")[0] for pattern in score.patterns]


# pattern: (hand that has it, near miss); a hand is (concealed, melds, options)
Spec = tuple[str, tuple[str, ...], dict[str, object]]
PATTERNS: dict[str, tuple[Spec, Spec]] = {
    "和牌": ((MIXED, (), {}), ("111m333m555m777m99m", (), {})),
    "花": ((MIXED, (), {"flowers": "25f"}), (MIXED, (), {})),
    "风碰": ((MIXED, (), {}), ("123m456m789m555z55m", (), {})),
    "字碰": (("123m456m789m555z55m", (), {}), (MIXED, (), {})),
    "明杠": (("123m456m111z55m", ("kong:9999m",), {}), ("123m456m111z55m", ("pung:999m",), {})),
    "暗杠": (
        ("123m456m111z55m", ("concealed-kong:9999m",), {}),
        ("123m456m111z55m", ("kong:9999m",), {}),
    ),
    "风明杠": (("123m456m789m55m", ("kong:1111z",), {}), ("123m456m789m55m", ("pung:111z",), {})),
    "风暗杠": (
        ("123m456m789m55m", ("concealed-kong:1111z",), {}),
        ("123m456m789m55m", ("kong:1111z",), {}),
    ),
    "字明杠": (("123m456m789m55m", ("kong:5555z",), {}), ("123m456m789m55m", ("pung:555z",), {})),
    "字暗杠": (
        ("123m456m789m55m", ("concealed-kong:5555z",), {}),
        ("123m456m789m55m", ("kong:5555z",), {}),
    ),
    "杠开": (
        ("123m456m789m55m", ("kong:1111z",), {"how": KR}),
        ("123m456m789m55m", ("kong:1111z",), {"how": SD}),
    ),
    "大吊车": (
        ("55m", ("chow:123m", "chow:456m", "chow:789m", "pung:111z"), {}),
        ("111z55m", ("chow:123m", "chow:456m", "chow:789m"), {}),
    ),
    "混一色": ((MIXED, (), {}), ("111m222p333s111z55m", (), {})),
    "碰碰胡": (("111m222p333s111z55m", (), {}), ("123m222m333m111z55m", (), {})),
    "天和": (("123m456p789s123p55s", (), {"how": WinType.HEAVENLY}), (MIXED, (), {"how": SD})),
    "地和": (
        ("123m456p789s123p55s", (), {"how": WinType.EARTHLY, "seat": Seat.S}),
        (MIXED, (), {"seat": Seat.S}),
    ),
    "八花": (
        (MIXED, (), {"flowers": ALL_FLOWERS, "how": WinType.SELF_DRAW}),
        (MIXED, (), {"flowers": "1234567f", "how": WinType.SELF_DRAW}),
    ),
    "字一色": (("111z222z333z555z66z", (), {}), ("111z222z333z555z67z", (), {})),
    "乱风向": (("11223344556677z", (), {}), ("1122334455667z1m", (), {})),
    "清碰": (("111m333m555m777m99m", (), {}), ("111m333m555m789m99m", (), {})),
    "清一色": (("123m456m789m123m99m", (), {}), ("123m456m789m123m11z", (), {})),
    "混碰": (("111m333m555m111z99m", (), {}), ("111m333m555m111z99p", (), {})),
}


def test_every_pattern_of_the_data_file_is_tested() -> None:
    assert sorted(spec.name for spec in SH.patterns) == sorted(PATTERNS)


@pytest.mark.parametrize("pattern", list(PATTERNS))
def test_pattern_is_found(pattern: str) -> None:
    hand, melds, options = PATTERNS[pattern][0]
    score = sh(hand, *melds, **options)  # type: ignore[arg-type]
    assert score.valid, score.reason
    assert pattern in names(score), (names(score), score.arrangement)


@pytest.mark.parametrize("pattern", list(PATTERNS))
def test_pattern_near_miss(pattern: str) -> None:
    hand, melds, options = PATTERNS[pattern][1]
    assert pattern not in names(sh(hand, *melds, **options))  # type: ignore[arg-type]


# --- which hands may win


@pytest.mark.parametrize(
    "hand", ["123m456p789s111z55m", "123m456p789s123p55s", "123m456m789m234p55p"]
)
def test_a_plain_hand_is_refused_in_plain_words(hand: str) -> None:
    score = sh(hand, how=SD, flowers="12f")
    assert not score.valid
    assert score.reason.startswith("a plain hand may not win")
    assert score.patterns == () and score.score == 0
    assert set(score.payments.values()) == {0}


def test_win_on_kong_and_big_crane_do_not_make_a_plain_hand_special() -> None:
    crane = sh("55p", "chow:123m", "chow:456p", "kong:7777s", "pung:111z", how=KR)
    assert not crane.valid and "plain hand" in crane.reason


def test_a_heavenly_or_earthly_plain_hand_wins() -> None:
    assert sh("123m456p789s123p55s", how=WinType.HEAVENLY).score == 500
    assert sh("123m456p789s123p55s", how=WinType.EARTHLY, seat=Seat.N).score == 400


def test_heavenly_needs_a_regular_shape() -> None:
    score = sh("1122m3344p5566s77z", how=WinType.HEAVENLY)
    assert not score.valid and score.reason.startswith("not a winning hand")


def test_jumbled_winds_needs_no_shape_but_all_honours() -> None:
    assert sh("11223344556677z").score == 100
    assert sh("12345677z", "pung:111z", "pung:555z").score == 100
    assert not sh("1234567z1234m", "pung:111z").valid


def test_freedom_of_count_reads_pungs_rather_than_chows() -> None:
    score = sh("111m222m333m111z99m")  # 123m x3 would be Mixed One-Suit; pungs are 混碰
    assert names(score) == ["混碰"]
    assert score.arrangement.startswith("111m 222m 333m")


# --- points


def test_base_points_times_two_to_the_fan() -> None:
    score = sh(MIXED)
    assert score.patterns == (("和牌", 3), ("风碰", 1), ("混一色", 2))
    assert score.total == score.score == 16
    assert "4 base points x 2^2 (fan) = 16" in score.reason


def test_a_kong_is_counted_as_a_kong_not_also_as_a_pung() -> None:
    score = sh("123m456m789m55m", "concealed-kong:1111z")
    assert names(score) == ["和牌", "风暗杠", "混一色"]
    assert score.score == (3 + 3) * 4


def test_each_flower_and_each_honour_pung_counts() -> None:
    score = sh("123m456m55m", "pung:111z", "pung:222z", flowers="147f")
    assert ("花 x3", 3) in score.patterns and ("风碰 x2", 2) in score.patterns
    assert score.score == (3 + 3 + 2) * 4


def test_fans_add_and_the_score_is_capped_at_the_limit() -> None:
    score = sh("55m", "chow:123m", "chow:456m", "kong:9999m", "pung:777z", how=KR)
    # base 3 + 1 + 2 = 6; fan: win on kong 1, big crane 1, mixed one-suit 2
    assert score.total == 6 * 2**4 == 96
    assert score.score == 50
    assert "capped at the limit (喇子) 50" in score.reason


def test_a_limit_hand_counts_alone_and_the_highest_one_counts() -> None:
    pure_pungs = sh("111m333m555m777m99m", flowers="123f")
    assert pure_pungs.patterns == (("清碰", 100),)  # not also 清一色, 碰碰胡 or flowers
    heavenly = sh("111m333m555m777m99m", how=WinType.HEAVENLY)
    assert heavenly.patterns == (("天和", 500),)


@pytest.mark.parametrize(
    ("hand", "melds", "multiple"),
    [
        ("111z222z333z555z66z", (), 4),
        ("11223344556677z", (), 2),
        ("123m456m789m123m99m", (), 1),
        ("111m333m555m111z99m", (), 1),
        ("11m", ("kong:2222m", "concealed-kong:3333m", "pung:555z", "kong:6666z"), 1),
    ],
)
def test_limit_hands_pay_multiples_of_the_limit(
    hand: str, melds: tuple[str, ...], multiple: int
) -> None:
    score = sh(hand, *melds)
    assert score.total == score.score == multiple * 50


def test_eight_flowers_wins_at_once_one_tile_short() -> None:
    score = sh("123m456p789s1234z", how=SD, seat=Seat.S, flowers=ALL_FLOWERS)
    assert score.valid and score.patterns == (("八花", 300),)
    assert score.arrangement == "special"
    assert score.payments == {Seat.E: -300, Seat.S: 900, Seat.W: -300, Seat.N: -300}


def test_eight_flowers_with_a_full_hand_of_any_shape() -> None:
    assert sh("123m456p789s1234z9m", how=SD, flowers=ALL_FLOWERS).score == 300
    assert sh("123m456p789s12z", "kong:5555z", how=KR, flowers=ALL_FLOWERS).score == 300
    assert sh("123m456p789s1z", "kong:5555z", how=KR, flowers=ALL_FLOWERS).score == 300


def test_a_short_hand_without_eight_flowers_is_an_input_error() -> None:
    with pytest.raises(RulesError, match="14 concealed tiles, got 13"):
        sh("123m456p789s1234z", how=SD, flowers="1234567f")


def test_a_win_on_a_flowers_replacement_is_win_on_kong() -> None:
    score = sh(MIXED, how=KR, flowers="3f")
    assert "杠开" in names(score)
    assert score.score == (3 + 1 + 1) * 2**3
    assert score.payments[Seat.E] == 3 * 40  # self-drawn: each other player pays


def test_a_replacement_win_needs_a_kong_or_a_flower() -> None:
    with pytest.raises(RulesError, match="kong or a flower"):
        sh(MIXED, how=KR)


def test_flowers_must_be_real_and_distinct() -> None:
    with pytest.raises(RulesError, match="listed twice"):
        sh(MIXED, flowers="11f")


# --- draw bonus (荒番)


def test_the_draw_bonus_doubles_per_drawn_hand_in_a_row() -> None:
    assert [sh(MIXED, streak=n).score for n in range(4)] == [16, 32, 64, 128]
    assert "draw bonus (荒番): after 2 drawn hands in a row, x4 = 64" in sh(MIXED, streak=2).reason


def test_the_draw_bonus_doubles_the_limit_too() -> None:
    capped = sh("55m", "chow:123m", "chow:456m", "kong:9999m", "pung:777z", how=KR, streak=1)
    assert capped.score == 100
    assert sh("111m333m555m777m99m", streak=1).score == 200
    assert sh("111m333m555m777m99m", streak=2).score == 400


# --- payments


def test_the_discarder_pays_a_discard_win() -> None:
    score = sh(MIXED, seat=Seat.W, discarder=Seat.E)
    assert score.payments == {Seat.E: -16, Seat.S: 0, Seat.W: 16, Seat.N: 0}
    default = sh(MIXED, seat=Seat.W)  # the seat before the winner
    assert default.payments[Seat.S] == -16


def test_each_other_player_pays_a_self_drawn_win() -> None:
    score = sh(MIXED, how=SD, seat=Seat.N)
    assert score.payments == {Seat.E: -16, Seat.S: -16, Seat.W: -16, Seat.N: 48}


def test_robbing_a_kong_is_paid_by_the_konger() -> None:
    score = sh(MIXED, tile="7m", how=WinType.ROBBING_KONG, seat=Seat.S, discarder=Seat.N)
    assert score.payments == {Seat.E: 0, Seat.S: 16, Seat.W: 0, Seat.N: -16}


def test_several_winners_on_one_discard_are_each_paid_by_the_discarder() -> None:
    first = sh(MIXED, seat=Seat.S, discarder=Seat.E)
    second = sh("111m333m555m777m99m", seat=Seat.N, discarder=Seat.E)
    assert first.payments[Seat.E] + second.payments[Seat.E] == -(16 + 100)
