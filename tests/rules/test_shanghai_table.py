"""Shanghai at the table: tiles, wall, claims, dealer rotation, house rules, waits and the CLI."""

import json
from pathlib import Path

import pytest

from controller.cli import main
from controller.rules import (
    Claim,
    DealState,
    HandOutcome,
    KongKind,
    RulesError,
    Seat,
    WallPosition,
    Win,
    get_ruleset,
    parse_tiles,
)

SH = get_ruleset("shanghai")
MIXED = "123m456m789m111z55m"


# --- tiles and wall


def test_144_tiles_with_eight_flowers() -> None:
    assert SH.tiles.total == len(SH.tiles.physical()) == 144
    assert SH.tiles.flowers == tuple(parse_tiles("12345678f"))


def test_one_roll_of_two_dice_picks_the_wall_and_the_break() -> None:
    plan = SH.wall_plan((3, 4))  # 7: the opposite player (W) breaks, 7 stacks from the right
    assert plan.breaker is Seat.W and plan.break_count == 7
    assert plan.sequence[0] == WallPosition(Seat.W, 7, 1)
    assert len(plan.sequence) == 144
    with pytest.raises(RulesError, match="expected 2 dice"):
        SH.wall_plan((3, 4, 2, 2))


def test_walls_of_18_stacks_and_the_deal() -> None:
    plan = SH.wall_plan((1, 1))
    assert {position.stack for position in plan.sequence} == set(range(18))
    sizes = {seat: len(tiles) for seat, tiles in plan.dealt.items()}
    assert sizes == {Seat.E: 14, Seat.S: 13, Seat.W: 13, Seat.N: 13}


def test_no_dead_wall_every_tile_is_drawn() -> None:
    plan = SH.wall_plan((6, 5))
    wall = plan.wall()
    assert wall.remaining == 144 - 53
    assert wall.last_drawable == plan.sequence[-1]
    taken = [wall.draw_replacement() if i % 5 == 0 else wall.draw() for i in range(91)]
    assert len(set(taken)) == 91 and wall.remaining == 0
    with pytest.raises(RulesError, match="exhausted"):
        wall.draw()


def test_flower_and_kong_replacements_come_from_the_wall_end() -> None:
    plan = SH.wall_plan((2, 2))
    wall = plan.wall()
    assert wall.draw_replacement() == plan.sequence[-2]  # top tile of the last stack
    assert wall.draw_replacement() == plan.sequence[-1]
    assert wall.draw() == plan.sequence[plan.first_live]


# --- claims and rotation


def test_several_players_may_win_on_one_discard() -> None:
    claims = {Seat.S: Claim.WIN, Seat.N: Claim.WIN, Seat.W: Claim.PUNG}
    assert SH.claims.resolve(Seat.E, claims) == ((Seat.S, Claim.WIN), (Seat.N, Claim.WIN))


def test_chow_pung_kong_and_robbing_an_added_kong() -> None:
    assert SH.claims.resolve(Seat.E, {Seat.S: Claim.CHOW}) == ((Seat.S, Claim.CHOW),)
    assert SH.claims.resolve(Seat.E, {Seat.W: Claim.CHOW}) == ()
    assert SH.claims.resolve(Seat.E, {Seat.S: Claim.CHOW, Seat.W: Claim.KONG}) == (
        (Seat.W, Claim.KONG),
    )
    assert SH.claims.can_rob(KongKind.ADDED) and not SH.claims.can_rob(KongKind.CONCEALED)
    assert SH.claims.resolve(Seat.E, {Seat.S: Claim.PUNG}, last_discard=True)


def test_the_winner_deals_next_and_a_draw_repeats_the_dealer() -> None:
    state = DealState(dealer=1)  # place 1 deals: its player sits E
    won = SH.next_deal(state, HandOutcome((Seat.W,)))
    assert won.dealer == 3 and won.seat_of(3) is Seat.E and won.hand == 2
    drawn = SH.next_deal(state, HandOutcome())
    assert (drawn.dealer, drawn.hand, drawn.draw_streak) == (1, 1, 1)
    again = SH.next_deal(drawn, HandOutcome())
    assert again.draw_streak == 2
    assert SH.next_deal(again, HandOutcome((Seat.E,))) == DealState(dealer=1)


def test_the_first_of_several_winners_in_turn_deals_next() -> None:
    winners = SH.claims.resolve(Seat.S, {Seat.E: Claim.WIN, Seat.W: Claim.WIN})
    outcome = HandOutcome(tuple(seat for seat, _ in winners))
    assert SH.next_deal(DealState(), outcome).dealer == 2  # W is first after S


def test_the_draw_streak_reaches_the_score() -> None:
    streak = SH.next_deal(DealState(), HandOutcome()).draw_streak
    win = Win(tuple(parse_tiles(MIXED)), draw_streak=streak)
    assert SH.score(win).score == 32


# --- house rules


def venue(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "house.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_limit_rate_fan_mode_and_draw_bonus_are_house_rules(tmp_path: Path) -> None:
    house = venue(
        tmp_path,
        '[scoring]\nlimit = 100\nrate = 2\nfan_mode = "multiplier"\ndraw_bonus = 1\n',
    )
    ruleset = get_ruleset("shanghai", house)
    mixed = ruleset.score(Win(tuple(parse_tiles(MIXED)), draw_streak=3))
    assert mixed.score == 4 * 2 * 2  # base x fan x rate, no draw bonus
    assert "4 base points x 2 (fan) x rate 2 = 16" in mixed.reason
    pure = ruleset.score(Win(tuple(parse_tiles("111m333m555m777m99m"))))
    assert pure.score == 200


def test_a_venue_may_let_a_fan_stop_qualifying(tmp_path: Path) -> None:
    ruleset = get_ruleset("shanghai", venue(tmp_path, '[patterns."混一色"]\nqualifies = false\n'))
    assert not ruleset.score(Win(tuple(parse_tiles(MIXED)))).valid


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[scoring]\nfan_mode = "triple"\n', "fan_mode"),
        ('[patterns."和牌"]\nkind = "bonus"\n', "kind must be base, fan, limit"),
        ("[scoring]\nlimit = 0\n", "at least 1"),
        ('[patterns."和牌"]\nqualifies = true\n', "unknown key"),
    ],
)
def test_bad_house_rules_are_named(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(RulesError, match=message):
        get_ruleset("shanghai", venue(tmp_path, text))


# --- waits


def test_waits_follow_the_special_hands() -> None:
    assert SH.waits(parse_tiles("1122334455667z")) == parse_tiles("1234567z")
    assert SH.waits(parse_tiles("23m456m789m111z55m")) == parse_tiles("14679m")
    assert SH.waits(parse_tiles("123m456p789s111z5m")) == []  # plain: no tile makes it win


# --- the CLI contract


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["rules", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_score_json_for_a_shanghai_hand(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys,
        *("score", "--ruleset", "shanghai", "123m456m789m55m", "--meld", "pung:777z"),
        *("--flowers", "123f", "--win", "self-draw", "--seat", "S", "--json"),
    )
    assert code == 0
    result = json.loads(out)
    assert result["valid"] is True and result["unit"] == "points"
    assert result["patterns"] == [
        {"name": "和牌", "value": 3},
        {"name": "花 x3", "value": 3},
        {"name": "字碰", "value": 2},
        {"name": "混一色", "value": 2},
    ]
    assert result["total"] == result["score"] == 8 * 4
    assert result["payments"] == {"E": -32, "S": 96, "W": -32, "N": -32}


def test_score_json_is_the_capped_score(capsys: pytest.CaptureFixture[str]) -> None:
    melds = ("--meld", "chow:123m", "--meld", "chow:456m", "--meld", "kong:9999m")
    _, out, _ = run(
        capsys,
        *("score", "--ruleset", "shanghai", "55m", *melds, "--meld", "pung:777z"),
        *("--win", "kong-replacement", "--draw-streak", "1", "--json"),
    )
    result = json.loads(out)
    assert (result["total"], result["score"]) == (96 * 2, 100)
    assert "capped at the limit" in result["reason"]


def test_a_plain_hand_is_a_normal_answer(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "score", "--ruleset", "shanghai", "123m456p789s111z55m", "--json")
    result = json.loads(out)
    assert code == 0 and result["valid"] is False
    assert result["reason"].startswith("a plain hand may not win")
    code, out, _ = run(capsys, "score", "--ruleset", "shanghai", "123m456p789s111z55m")
    assert "INVALID: a plain hand may not win" in out


def test_eight_flowers_from_the_cli(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(
        capsys,
        *("score", "--ruleset", "shanghai", "123m456p789s1234z", "--win", "self-draw"),
        *("--flowers", "12345678f", "--json"),
    )
    assert json.loads(out)["score"] == 300


def test_waits_from_the_cli(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "waits", "--ruleset", "shanghai", "1122334455667z", "--json")
    assert json.loads(out)["waits"] == [f"{n}z" for n in range(1, 8)]
