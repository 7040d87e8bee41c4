"""The simulated players really play, moving tiles only through the simulated table's
physical API: in ordinary seeded hands every move and win type the referee must follow
occurs, and after every move the zones show it as docs/play.md says (checked by the
stand-in umpire of `tabletop`). Scripted seeds and stacked walls show a robbed kong, two
winners on one discard, a blood battle to three winners and heavenly and earthly wins."""

from collections import Counter

import pytest

from controller.rules import Ruleset, Seat, WinType, parse_tiles
from controller.rules.notation import tile_str
from controller.sim.hand_play import PlayStyle
from controller.sim.moves import Move, MoveKind
from firmware_bridge.messages import Zone
from firmware_bridge.sim.table import SimulatedTable
from tests.sim.tabletop import StackedWall, play_hand, where

HANDS = 100
K = MoveKind
W = WinType
COMMON = {K.DRAW, K.DISCARD, K.PUNG, K.EXPOSED_KONG, K.ADDED_KONG, K.CONCEALED_KONG}
COMMON |= {K.REPLACEMENT, K.TAKE_DISCARD, K.DECLARE}
EXPECTED = {
    # ruleset: (moves, win types)
    "zung-jung": (COMMON | {K.CHOW, K.ROB_KONG}, {W.DISCARD, W.SELF_DRAW, W.AFTER_KONG_DISCARD}),
    "sichuan": (
        COMMON,
        {W.DISCARD, W.SELF_DRAW, W.AFTER_KONG_DISCARD, W.KONG_REPLACEMENT, W.LAST_TILE},
    ),
    "shanghai": (
        COMMON | {K.CHOW, K.FLOWER, K.ROB_KONG},
        {W.DISCARD, W.SELF_DRAW, W.KONG_REPLACEMENT, W.ROBBING_KONG, W.LAST_DISCARD},
    ),
}


def shared(moves: list[Move]) -> bool:
    """Several seats declared on one tile."""
    on_tile = Counter(m.source for m in moves if m.kind is K.DECLARE and m.source is not None)
    taken = sum(1 for m in moves if m.kind in (K.TAKE_DISCARD, K.ROB_KONG))
    return sum(on_tile.values()) > taken


@pytest.mark.parametrize("ruleset", list(EXPECTED))
async def test_ordinary_hands_show_every_move_and_the_zones_show_each_one(ruleset: str) -> None:
    kinds: Counter[MoveKind] = Counter()
    how: Counter[WinType | None] = Counter()
    several = 0
    for seed in range(HANDS):
        played = await play_hand(ruleset, seed)
        assert played.umpire.problems == []
        moves = played.play.moves
        kinds.update(m.kind for m in moves)
        how.update(m.win_type for m in moves if m.kind is K.DECLARE)
        several += shared(moves)
    moves_wanted, wins_wanted = EXPECTED[ruleset]
    assert moves_wanted <= set(kinds), moves_wanted - set(kinds)
    assert wins_wanted <= set(how), wins_wanted - set(how)
    assert (K.CHOW in kinds) == (ruleset != "sichuan"), "chows only where the ruleset has them"
    assert (several > 0) == (ruleset != "zung-jung"), "several winners only where allowed"


async def test_the_same_seed_plays_the_same_moves() -> None:
    first = await play_hand("shanghai", 39)
    again = await play_hand("shanghai", 39)
    assert first.play.moves == again.play.moves
    assert first.play.moves != (await play_hand("shanghai", 40)).play.moves


@pytest.mark.parametrize("ruleset", list(EXPECTED))
async def test_by_default_players_only_draw_discard_and_win(ruleset: str) -> None:
    kinds: set[MoveKind] = set()
    for seed in range(20):
        played = await play_hand(ruleset, seed, PlayStyle())
        assert played.umpire.problems == []
        kinds |= {m.kind for m in played.play.moves}
        said = {m.win_type for m in played.play.moves if m.kind is K.DECLARE}
        assert said <= {W.DISCARD, W.SELF_DRAW}
    assert kinds <= {K.DRAW, K.DISCARD, K.TAKE_DISCARD, K.DECLARE, K.FLOWER, K.REPLACEMENT}


async def test_a_robbed_kong_leaves_the_pung_and_puts_the_tile_in_the_robbers_hand() -> None:
    played = await play_hand("zung-jung", 80)  # a seed where a kong is robbed
    moves = played.play.moves
    rob = next(i for i, m in enumerate(moves) if m.kind is K.ROB_KONG)
    added, robbed, declared = moves[rob - 1], moves[rob], moves[rob + 1]
    assert added.kind is K.ADDED_KONG and robbed.source == added.place
    assert robbed.uids == added.uids
    assert declared.kind is K.DECLARE and declared.win_type is W.ROBBING_KONG
    assert declared.place == robbed.place
    table = played.table
    assert where(table, robbed.uids[0]) == (robbed.place, Zone.HAND)
    melded = [t.name for t in table.zone_tiles(added.place, Zone.MELD)]
    assert melded.count(added.tiles) == 3, "the konger keeps its exposed pung"
    assert moves[-1] == declared, "one winner ends a WMC hand"


async def test_two_winners_on_one_discard_and_the_blood_battle_goes_on() -> None:
    played = await play_hand("sichuan", 29)  # a seed where two win on one discard
    moves = played.play.moves
    at = next(i for i, m in enumerate(moves) if m.kind is K.TAKE_DISCARD and shared(moves[: i + 3]))
    taken, first, second = moves[at : at + 3]
    assert (first.kind, second.kind) == (K.DECLARE, K.DECLARE)
    assert first.source == second.source == taken.source
    assert {first.place, second.place} <= set(played.umpire.winners)
    assert where(played.table, taken.uids[0]) == (first.place, Zone.HAND), "first winner's hand"
    later = moves[at + 3 :]
    assert later and all(m.place not in (first.place, second.place) for m in later)


async def test_a_blood_battle_ends_at_three_winners() -> None:
    for seed in range(10):
        played = await play_hand("sichuan", seed)
        winners = played.umpire.winners
        if len(winners) == 3:
            last_win = max(i for i, m in enumerate(played.play.moves) if m.kind is K.DECLARE)
            assert last_win == len(played.play.moves) - 1
            return
    raise AssertionError("no blood battle reached three winners in ten hands")


def _names(hand: str) -> list[str]:
    return [tile_str(kind) for kind in parse_tiles(hand)]


@pytest.mark.parametrize("ruleset", list(EXPECTED))
async def test_a_dealer_dealt_a_winning_hand_declares_a_heavenly_win(ruleset: str) -> None:
    def arrange(table: SimulatedTable, rules: Ruleset, dice: tuple[int, ...], dealer: int) -> None:
        plan = rules.wall_plan(dice)
        StackedWall(table, dealer).put_all(plan.dealt[Seat.E], _names("123m456m789m123p55p"))

    played = await play_hand(ruleset, 1, arrange=arrange)
    first = played.play.moves[0]
    assert (first.kind, first.win_type) == (K.DECLARE, W.HEAVENLY)
    assert first.place == played.play.dealer


async def test_a_win_on_the_dealers_first_discard_is_earthly() -> None:
    def arrange(table: SimulatedTable, rules: Ruleset, dice: tuple[int, ...], dealer: int) -> None:
        plan, wall = rules.wall_plan(dice), StackedWall(table, dealer)
        wall.put_all(plan.dealt[Seat.E], _names("111m222p333s444s5s7z"))
        wall.put_all(plan.dealt[Seat.S], _names("123m456m789m123p7z"))

    played = await play_hand("zung-jung", 2, arrange=arrange)
    discard, taken, declared = played.play.moves[:3]
    dealer = played.play.dealer
    assert (discard.kind, discard.place, discard.tiles) == (K.DISCARD, dealer, "7z")
    assert (taken.kind, taken.source) == (K.TAKE_DISCARD, dealer)
    assert (declared.win_type, declared.place) == (W.EARTHLY, (dealer + 1) % 4)


async def test_a_sichuan_earthly_win_is_self_drawn_on_the_first_draw() -> None:
    def arrange(table: SimulatedTable, rules: Ruleset, dice: tuple[int, ...], dealer: int) -> None:
        plan, wall = rules.wall_plan(dice), StackedWall(table, dealer)
        wall.put_all(plan.dealt[Seat.E], _names("111m222m333m444p5p9p"))
        wall.put_all(plan.dealt[Seat.S], _names("123m456m789m123p5p"))
        wall.put(plan.first_draw, "5p")
        wall.put_all(plan.sequence[-3:], ["9p"] * 3)  # nobody else can pung the 9p

    played = await play_hand("sichuan", 3, arrange=arrange)
    discard, draw, declared = played.play.moves[:3]
    assert (discard.kind, discard.tiles, draw.kind, draw.tiles) == (K.DISCARD, "9p", K.DRAW, "5p")
    assert (declared.win_type, declared.place) == (W.EARTHLY, draw.place)
