"""Until the referee lands, a declared win is judged from the zones: the newest tile of the
HAND zone is the winning tile, from another seat's river (discard) or from the wall."""

from controller.rules import DealState, get_ruleset, parse_tiles
from controller.table.judge import group_melds, judge, settle_draw, winners_to_end
from controller.table.ports import Zone
from controller.table.tiles import TileMap
from controller.table.zones import ZoneBoard

ZJ = get_ruleset("zung-jung")
WINNING = "234m345p567s678s55p"


def board_with(hand: str, winning_from: tuple[int, Zone] | None) -> tuple[ZoneBoard, TileMap]:
    kinds = parse_tiles(hand)
    uids = {0xE000 + i: kind for i, kind in enumerate(kinds)}
    tiles = TileMap("t", uids)
    board = ZoneBoard()
    *held, last = list(uids)
    if winning_from is not None:
        board.update(*winning_from, frozenset({last}), now=0.0)
    board.update(1, Zone.HAND, frozenset(held), now=1.0)
    board.update(1, Zone.HAND, frozenset([*held, last]), now=2.0)
    return board, tiles


def test_a_win_on_a_discard_names_the_discarder() -> None:
    board, tiles = board_with(WINNING, winning_from=(3, Zone.DISCARD))
    verdict = judge(ZJ, board, tiles, 1, DealState())
    assert verdict.win is not None, verdict.reason
    assert (verdict.win.place, verdict.win.discarder) == (1, 3)
    assert verdict.win.win_tile == parse_tiles("5p")[0]
    assert verdict.payments == (-15, 45, -15, -15), "under 25 points all pay alike (WMC)"


def test_a_self_drawn_win_has_no_discarder() -> None:
    board, tiles = board_with(WINNING, winning_from=None)
    verdict = judge(ZJ, board, tiles, 1, DealState(dealer=2))
    assert verdict.win is not None and verdict.win.discarder is None
    assert verdict.payments[1] > 0


def test_a_hand_that_does_not_win_is_refused_with_the_reason() -> None:
    board, tiles = board_with("234m345p567s678s59p", winning_from=None)
    verdict = judge(ZJ, board, tiles, 1, DealState())
    assert verdict.win is None
    assert verdict.reason.startswith("not a winning hand")


def test_exposed_sets_are_read_from_the_meld_zone() -> None:
    melds = group_melds(parse_tiles("555z234m3333p"))
    assert melds is not None
    assert [str(m) for m in melds] == ["kong:3333p", "pung:555z", "chow:234m"]
    assert group_melds(parse_tiles("135m")) is None


def test_a_drawn_hand_settles_by_the_ruleset_and_ends_after_one_win_outside_sichuan() -> None:
    board = ZoneBoard()
    payments, problem = settle_draw(ZJ, board, TileMap("t", {}), DealState(), ())
    assert payments == (0, 0, 0, 0) and problem == ""
    assert winners_to_end(ZJ) == 1
    assert winners_to_end(get_ruleset("sichuan")) == 3
