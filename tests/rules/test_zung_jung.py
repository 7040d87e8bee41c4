"""Zung Jung v3.3: every pattern on a hand that has it and a near miss, adding, limits, payments."""

import pytest

from controller.rules import RulesError, Seat, WinType, get_ruleset
from controller.rules.zung_jung import ZungJung
from tests.rules.helpers import names, zj

D, SD = WinType.DISCARD, WinType.SELF_DRAW

# pattern: (hand that has it, near miss); a hand is (concealed, melds, options)
Spec = tuple[str, tuple[str, ...], dict[str, object]]
PATTERNS: dict[str, tuple[Spec, Spec]] = {
    "All Sequences": (("123m456p789s234p55s", (), {}), ("123m456p789s222p55s", (), {})),
    "Concealed Hand": (("123m456p789s234p55s", (), {}), ("456p789s234p55s", ("chow:123m",), {})),
    "No Terminals": (("234m456p678s345p55s", (), {}), ("234m456p678s345p99s", (), {})),
    "Mixed One-Suit": (("123m345m567m111z99m", (), {}), ("123m345m567m111z99p", (), {})),
    "Pure One-Suit": (("123m345m567m789m99m", (), {}), ("123m345m567m789m11z", (), {})),
    "Nine Gates": (
        ("11123455678999m", (), {"tile": "5m"}),
        ("11123455678999m", (), {"tile": "1m"}),
    ),
    "Value Honor": (("123m456p789s555z11s", (), {}), ("123m456p789s222z11s", (), {})),
    "Small Three Dragons": (("555z666z77z123m456m", (), {}), ("555z666z11z123m456m", (), {})),
    "Big Three Dragons": (("555z666z777z123m11m", (), {}), ("555z666z77z123m111m", (), {})),
    "Small Three Winds": (("111z222z33z123m456m", (), {}), ("111z222z55z123m456m", (), {})),
    "Big Three Winds": (("111z222z333z123m11m", (), {}), ("111z222z33z123m111m", (), {})),
    "Small Four Winds": (("111z222z333z44z123m", (), {}), ("111z222z333z55z123m", (), {})),
    "Big Four Winds": (("111z222z333z444z11m", (), {}), ("111z222z333z44z111m", (), {})),
    "All Honors": (("111z222z333z555z66z", (), {}), ("111z222z333z555z11m", (), {})),
    "All Triplets": (("111m222p333s444m55s", (), {}), ("123m222p333s444m55s", (), {})),
    "Two Concealed Triplets": (
        ("111m222p345s678s99s", (), {"how": SD}),
        ("111m222p345s678s99s", (), {"tile": "2p"}),
    ),
    "Three Concealed Triplets": (
        ("111m222p333s456s99s", (), {"how": SD}),
        ("111m222p333s456s99s", (), {"tile": "3s"}),
    ),
    "Four Concealed Triplets": (
        ("111m222p333s444s99s", (), {"how": SD}),
        ("111m222p333s444s99s", (), {"tile": "4s"}),
    ),
    "One Kong": (("123m456p789s11z", ("kong:2222p",), {}), ("123m456p789s11z", ("pung:222p",), {})),
    "Two Kongs": (
        ("123m456p11z", ("kong:2222p", "concealed-kong:3333s"), {}),
        ("123m456p11z", ("kong:2222p", "pung:333s"), {}),
    ),
    "Three Kongs": (
        ("123m11z", ("kong:2222p", "kong:3333s", "kong:4444s"), {}),
        ("123m11z", ("kong:2222p", "kong:3333s", "pung:444s"), {}),
    ),
    "Four Kongs": (
        ("11z", ("kong:2222p", "kong:3333s", "kong:4444s", "concealed-kong:5555m"), {}),
        ("11z", ("kong:2222p", "kong:3333s", "kong:4444s", "pung:555m"), {}),
    ),
    "Two Identical Sequences": (("123m123m456p789s11z", (), {}), ("123m234m456p789s11z", (), {})),
    "Two Identical Sequences Twice": (
        ("123m123m456p456p11z", (), {}),
        ("123m123m456p567p11z", (), {}),
    ),
    "Three Identical Sequences": (
        ("234m234m567p11z", ("chow:234m",), {}),
        ("234m345m567p11z", ("chow:234m",), {}),
    ),
    "Four Identical Sequences": (("234m234m234m234m11z", (), {}), ("234m234m234m345m11z", (), {})),
    "Three Similar Sequences": (("123m123p123s456m11z", (), {}), ("123m123p234s456m11z", (), {})),
    "Small Three Similar Triplets": (
        ("222m222p22s456m789p", (), {}),
        ("222m222p33s456m789p", (), {}),
    ),
    "Three Similar Triplets": (("222m222p222s456m11z", (), {}), ("222m222p333s456m11z", (), {})),
    "Nine-Tile Straight": (("123m456m789m123p11z", (), {}), ("123m456m678m123p11z", (), {})),
    "Three Consecutive Triplets": (
        ("444m567p11z", ("pung:222m", "pung:333m"), {}),
        ("555m567p11z", ("pung:222m", "pung:333m"), {}),
    ),
    "Four Consecutive Triplets": (
        ("555m11z", ("pung:222m", "pung:333m", "pung:444m"), {}),
        ("666m11z", ("pung:222m", "pung:333m", "pung:444m"), {}),
    ),
    "Mixed Lesser Terminals": (("123m789p111z999s11s", (), {}), ("123m789p111z999s22s", (), {})),
    "Pure Lesser Terminals": (("123m789p123s999s11s", (), {}), ("123m789p123s999s11z", (), {})),
    "Mixed Greater Terminals": (("111m999p111s111z99s", (), {}), ("111m999p111s111z88s", (), {})),
    "Pure Greater Terminals": (("111m999m111p999p11s", (), {}), ("111m999m111p999p11z", (), {})),
    "Final Draw": (
        ("123m456p789s234p55s", (), {"how": WinType.LAST_TILE}),
        ("123m456p789s234p55s", (), {"how": SD}),
    ),
    "Final Discard": (
        ("123m456p789s234p55s", (), {"how": WinType.LAST_DISCARD}),
        ("123m456p789s234p55s", (), {}),
    ),
    "Win on Kong": (
        ("123m456p789s55s", ("kong:1111z",), {"how": WinType.KONG_REPLACEMENT}),
        ("123m456p789s55s", ("kong:1111z",), {"how": SD}),
    ),
    "Robbing a Kong": (
        ("123m456p789s234p55s", (), {"how": WinType.ROBBING_KONG}),
        ("123m456p789s234p55s", (), {}),
    ),
    "Blessing of Heaven": (
        ("123m456p789s234p55s", (), {"how": WinType.HEAVENLY}),
        ("123m456p789s234p55s", (), {"how": SD}),
    ),
    "Blessing of Earth": (
        ("123m456p789s234p55s", (), {"how": WinType.EARTHLY, "seat": Seat.S}),
        ("123m456p789s234p55s", (), {"seat": Seat.S}),
    ),
    "Thirteen Terminals": (("19m19p19s12345677z", (), {}), ("119m19p19s1234566z", (), {})),
    "Seven Pairs": (("1122m3344p5566s77z", (), {}), ("112233m445566p77z", (), {})),
}


def test_every_pattern_of_the_data_file_is_tested() -> None:
    ruleset = get_ruleset("zung-jung")
    assert sorted(spec.name for spec in ruleset.patterns) == sorted(PATTERNS)


@pytest.mark.parametrize("pattern", list(PATTERNS))
def test_pattern_is_found(pattern: str) -> None:
    hand, melds, options = PATTERNS[pattern][0]
    score = zj(hand, *melds, **options)
    assert score.valid, score.reason
    assert pattern in names(score), (names(score), score.arrangement)


@pytest.mark.parametrize("pattern", list(PATTERNS))
def test_pattern_near_miss(pattern: str) -> None:
    hand, melds, options = PATTERNS[pattern][1]
    assert pattern not in names(zj(hand, *melds, **options))


def test_a_hand_without_patterns_is_a_chicken_hand() -> None:
    score = zj("234m567p789s55s", "pung:111z", seat=Seat.S)
    assert score.patterns == (("Chicken Hand", 1),)
    assert score.total == score.score == 1


def test_value_honor_counts_per_set() -> None:
    score = zj("555z666z123m456p11s")
    assert ("Value Honor x2", 20) in score.patterns


def test_seat_wind_is_a_value_honor_but_the_prevailing_wind_is_not() -> None:
    hand = "123m456p789s222z11s"
    assert "Value Honor" in names(zj(hand, seat=Seat.S))
    assert "Value Honor" not in names(zj(hand, seat=Seat.E))


def test_value_honor_adds_to_small_three_dragons() -> None:
    score = zj("555z666z77z123m456m")
    # dragons, two value honors, mixed one-suit, concealed hand, two concealed triplets
    assert score.total == 40 + 20 + 40 + 5 + 5


def test_only_the_highest_of_a_group_counts() -> None:
    score = zj("123m345m567m789m99m")
    assert "Pure One-Suit" in names(score) and "Mixed One-Suit" not in names(score)


def test_a_pattern_worth_the_limit_counts_alone() -> None:
    score = zj("111z222z333z444z11m")
    assert names(score) == ["Big Four Winds"]
    assert score.total == 400
    assert "counts alone" in score.reason


def test_a_total_over_the_limit_is_capped() -> None:
    score = zj("111m222m333m444m55m", how=SD)
    assert score.total == 320
    assert sum(p.value for p in score.patterns) > 320
    assert "capped at 320" in score.reason


def test_freedom_of_count_keeps_the_best_reading() -> None:
    score = zj("223344m667788p55s")
    assert "Seven Pairs" not in names(score)
    assert score.total == 75


def test_seven_pairs_adds_only_tile_patterns() -> None:
    score = zj("1122m4455m7788m99m")
    assert sorted(names(score)) == ["Pure One-Suit", "Seven Pairs"]


def test_seven_pairs_may_hold_four_of_a_kind() -> None:
    assert "Seven Pairs" in names(zj("1111m3344p5566s77z"))


def test_thirteen_terminals_does_not_add_mixed_greater_terminals() -> None:
    # ZJ 8.1.3: Mixed Greater Terminals is "not applicable to a Thirteen Terminals hand".
    score = zj("19m19p19s12345677z")
    assert names(score) == ["Thirteen Terminals"]
    assert score.total == 160


def test_heavenly_nine_gates_is_only_the_blessing() -> None:
    score = zj("11123455678999m", tile="5m", how=WinType.HEAVENLY)
    assert "Nine Gates" not in names(score)
    assert "Blessing of Heaven" in names(score)


def test_a_pung_won_on_a_discard_is_not_concealed_unless_the_tile_fits_elsewhere() -> None:
    # 3s completes either 333s or 345s: the referee reads it in the sequence.
    score = zj("111m222p333s345s99s", tile="3s")
    assert "Three Concealed Triplets" in names(score)


def test_pattern_values_come_from_the_data(tmp_path: pytest.TempPathFactory) -> None:
    venue = tmp_path / "venue.toml"  # type: ignore[operator]
    venue.write_text('[patterns."Seven Pairs"]\nvalue = 25\n')
    ruleset = get_ruleset("zung-jung", venue)
    from tests.rules.helpers import win

    assert ruleset.score(win("1122m3344p5566s77z")).total == 25 + 0


def test_payments_on_a_discard_up_to_25() -> None:
    score = zj("123m456p789s234p55s", seat=Seat.S)  # 10 points, discarder E (before S)
    assert score.payments == {Seat.E: -10, Seat.S: 30, Seat.W: -10, Seat.N: -10}


def test_payments_on_a_discard_over_25() -> None:
    score = zj("123m345m567m555z99m", seat=Seat.W, discarder=Seat.E)  # 40 + 10 + 5 = 55
    assert score.total == 55
    assert score.payments == {Seat.E: -115, Seat.S: -25, Seat.W: 165, Seat.N: -25}


def test_payments_on_a_self_draw() -> None:
    score = zj("123m345m567m555z99m", how=SD, seat=Seat.N)
    assert score.payments == {Seat.E: -55, Seat.S: -55, Seat.W: -55, Seat.N: 165}


def test_robbing_a_kong_is_paid_by_the_konger() -> None:
    score = zj("123m345m567m111z99m", how=WinType.ROBBING_KONG, discarder=Seat.W)
    assert score.payments[Seat.W] == -(3 * 65 - 50)


def test_an_earthly_win_is_paid_by_the_dealer() -> None:
    score = zj("123m456p789s234p55s", how=WinType.EARTHLY, seat=Seat.W)
    assert score.payments[Seat.E] == -(3 * score.total - 50)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"how": WinType.HEAVENLY, "seat": Seat.S}, "dealer"),
        ({"how": WinType.EARTHLY}, "non-dealer"),
        ({"seat": Seat.S, "discarder": Seat.S}, "own discard"),
        ({"how": WinType.KONG_REPLACEMENT}, "kong"),
    ],
)
def test_impossible_win_context_is_an_input_error(options: dict[str, object], message: str) -> None:
    with pytest.raises(RulesError, match=message):
        zj("123m456p789s234p55s", **options)


def test_invalid_hand_says_why() -> None:
    score = zj("11z22z33z44z77z666z5z")
    assert not score.valid
    assert score.reason.startswith("not a winning hand")
    assert score.total == 0 and all(v == 0 for v in score.payments.values())


def test_time_penalties_per_started_15_seconds() -> None:
    rules = get_ruleset("zung-jung")
    assert isinstance(rules, ZungJung)
    assert rules.time_penalty([10, 15, 12]).points == 0
    assert rules.time_penalty([10, 16]).points == 5  # 1 s over the turn limit: one step
    assert rules.time_penalty([10, 31]).points == 10  # 16 s over: two steps
    assert rules.time_penalty([30]).points == 0  # the first 15 s after dealing are free


def test_hand_time_limit_adds_to_turn_penalties_and_a_forfeit_over_80() -> None:
    rules = get_ruleset("zung-jung")
    assert isinstance(rules, ZungJung)
    steady = [30.0] + [15.0] * 12  # 195 s after the grace: 15 s over the hand limit
    assert rules.time_penalty(steady).points == 5
    slow = [0.0, 100.0, 100.0]  # 6 + 6 turn steps, 200 s total: 2 hand steps
    penalty = rules.time_penalty(slow)
    assert penalty.points == 70 and not penalty.forfeit
    assert rules.time_penalty([0.0, 100.0, 100.0, 35.0]).forfeit  # 90 points
