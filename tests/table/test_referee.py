"""The referee on scripted hands: tiles moved between zones as players move them, the
referee's moves, wins, payments and incidents checked, and every hand's black box replayed
to the same result."""

from controller.rules import WinType, parse_tiles
from controller.table.ports import Zone
from controller.table.records import IncidentKind
from controller.table.referee import MoveKind, RefereeResult, ZoneContent
from controller.table.referee.blackbox import read, replay
from controller.table.referee.events import Inventories
from controller.table.referee.result import result_json
from tests.table.scripted import Table

# Hands that keep out of the way (ZJ, E deals 14).
ZJ_E = "19m19p19s1234567z5m"


def moves(table: Table) -> list[tuple[int, MoveKind]]:
    return [(m.place, m.kind) for m in table.referee.play.moves]


def replays_the_same(table: Table) -> RefereeResult:
    """The hand is over, and its black box gives the same result again."""
    result = table.result
    setup, inputs = read(table.box.lines)
    _, again = replay(setup, inputs)
    assert again is not None and result_json(again) == result_json(result)
    assert sum(result.totals) == 0
    return result


def tsumogiri(table: Table, place: int) -> int:
    """Draw and throw the drawn tile."""
    uid = table.draw(place)
    table.move([uid], place, Zone.DISCARD)
    return uid


def test_a_chow_from_the_previous_seat_then_its_discard() -> None:
    table = Table(
        "zung-jung",
        {0: ZJ_E, 1: "46m22p33p44p66s77s8s", 2: "55m2233s778899p1z", 3: "3377m88m55s9s5566z"},
    )
    table.discard(0, "5m")
    table.meld(1, "46m", discard_of=0)
    table.discard(1, "8s")
    table.draw(2)
    assert moves(table) == [
        (0, MoveKind.DISCARD),
        (1, MoveKind.CHOW),
        (1, MoveKind.DISCARD),
        (2, MoveKind.DRAW),
    ]
    [meld] = table.referee.play.seats[1].melds
    assert str(meld.meld(table.tiles)) == "chow:456m" and table.incidents() == []


def test_a_pung_skips_the_seats_between_and_a_chow_from_the_wrong_seat_is_refused() -> None:
    hands = {0: ZJ_E, 1: "22p33p44p66s77s89s7z", 2: "55m2233s778899p1z", 3: "46m77m88m55s9s5566z"}
    table = Table("zung-jung", hands)
    table.discard(0, "5m")
    table.meld(2, "55m", discard_of=0)
    assert table.referee.turn == 2
    table.discard(2, "1z")
    table.draw(3)
    assert moves(table)[1] == (2, MoveKind.PUNG) and moves(table)[-1] == (3, MoveKind.DRAW)

    wrong = Table("zung-jung", hands)
    wrong.discard(0, "5m")
    wrong.meld(3, "46m", discard_of=0)
    assert wrong.incidents() == [IncidentKind.WRONG_CLAIM]
    assert MoveKind.CHOW not in [kind for _, kind in moves(wrong)]


def test_a_discard_half_way_to_a_meld_makes_no_move_until_it_lands() -> None:
    table = Table(
        "zung-jung",
        {0: ZJ_E, 1: "22p33p44p66s77s89s7z", 2: "55m2233s778899p1z", 3: "3377m88m55s9s5566z"},
    )
    uid = table.discard(0, "5m")
    table.zones[(0, Zone.DISCARD)].discard(uid)
    table.feed(Inventories((ZoneContent(0, Zone.DISCARD, frozenset()),)))
    table.wait(1.0)
    assert moves(table) == [(0, MoveKind.DISCARD)], "a tile in the air is no move"
    pair = [u for u in sorted(table.zones[(2, Zone.HAND)]) if table.tiles.kind(u) == 4]
    table.zones[(2, Zone.HAND)].difference_update(pair)
    table.zones[(2, Zone.MELD)].update([uid, *pair])
    table.feed(
        Inventories(
            (
                ZoneContent(2, Zone.HAND, frozenset(table.zones[(2, Zone.HAND)])),
                ZoneContent(2, Zone.MELD, frozenset(table.zones[(2, Zone.MELD)])),
            )
        )
    )
    assert moves(table) == [(0, MoveKind.DISCARD), (2, MoveKind.PUNG)]
    assert table.incidents() == []


def test_a_claim_after_the_next_draw_is_an_incident_not_a_move() -> None:
    table = Table(
        "zung-jung",
        {0: ZJ_E, 1: "22p33p44p66s77s89s7z", 2: "55m2233s778899p1z", 3: "3377m88m55s9s5566z"},
    )
    table.discard(0, "5m")
    table.draw(1)
    table.meld(2, "55m", discard_of=0)
    assert table.incidents() == [IncidentKind.LATE_CLAIM]
    assert [k for _, k in moves(table)] == [MoveKind.DISCARD, MoveKind.DRAW]


def test_sichuan_kongs_are_paid_when_made_concealed_twice_exposed_by_the_discarder() -> None:
    table = Table(
        "sichuan",
        {
            0: "1111m234m666p678p9s",
            1: "999s11p22p33p44p67s",
            2: "55667788m11223s",
            3: "999m4455s778899p",
        },
        replacements="3m4m",
    )
    table.meld(0, "1111m")
    table.replace(0)
    table.discard(0, "9s")
    table.meld(1, "999s", discard_of=0)
    table.replace(1)
    table.discard(1, "7s")
    table.draw(2)
    kinds = [kind for _, kind in moves(table)]
    assert kinds == [
        MoveKind.CONCEALED_KONG,
        MoveKind.REPLACEMENT,
        MoveKind.DISCARD,
        MoveKind.EXPOSED_KONG,
        MoveKind.REPLACEMENT,
        MoveKind.DISCARD,
        MoveKind.DRAW,
    ]
    paid = [(p.reason, p.amounts) for p in table.referee.play.payments]
    assert paid == [("concealed kong", (6, -2, -2, -2)), ("exposed kong", (-1, 1, 0, 0))]
    melds = [str(r.meld(table.tiles)) for s in table.referee.play.seats for r in s.melds]
    assert melds == ["concealed-kong:1111m", "kong:9999s"]


def test_a_win_on_the_kong_replacement_and_the_discard_after_a_kong_passes_its_income() -> None:
    hands = {
        0: "1111m234m555m678p9p",
        1: "234s567s222p333p1s",
        2: "6677m11223344s5s",
        3: "999m778899p11p34m",
    }
    flower = Table("sichuan", hands, replacements="9p")
    flower.meld(0, "1111m")
    flower.replace(0)
    flower.declare(0)
    flower.wait(2.0)
    [win] = flower.referee.play.wins
    assert win.win_type is WinType.KONG_REPLACEMENT and win.discarder is None

    cannon = Table("sichuan", hands, replacements="1s")
    cannon.meld(0, "1111m")
    cannon.replace(0)
    cannon.discard(0, "1s")
    cannon.take_discard(1, of=0)
    cannon.declare(1)
    cannon.wait(3.1)
    [win] = cannon.referee.play.wins
    assert win.win_type is WinType.AFTER_KONG_DISCARD and win.discarder == 0
    reasons = [(p.reason, p.amounts) for p in cannon.referee.play.payments]
    assert reasons[0] == ("concealed kong", (6, -2, -2, -2))
    assert ("kong income passed to the winner", (-6, 6, 0, 0)) in reasons
    assert cannon.referee.turn == 2, "blood battle: play goes on after the winner"


def robbed_kong() -> Table:
    """Sichuan: S punged 2s and adds the fourth to it; N takes that tile and declares."""
    table = Table(
        "sichuan",
        {
            0: "2s111m333m444m666m9m",
            1: "22s555p666p777p89p",
            2: "55778899m22334p",
            3: "13s456s789s111p99p",
        },
        draws="5s6s7s2s",
    )
    table.discard(0, "2s")
    table.meld(1, "22s", discard_of=0)
    table.discard(1, "9p")
    for place in (2, 3, 0):
        tsumogiri(table, place)
    added = table.draw(1)
    table.move([added], 1, Zone.MELD)
    assert moves(table)[-1] == (1, MoveKind.ADDED_KONG)
    table.move([added], 3, Zone.HAND)
    table.declare(3)
    table.wait(3.1)
    return table


def test_robbing_an_added_kong_wins_and_the_kong_is_never_paid() -> None:
    table = robbed_kong()
    [win] = table.referee.play.wins
    assert (win.place, win.discarder, win.win_type) == (3, 1, WinType.ROBBING_KONG)
    assert [p.reason for p in table.referee.play.payments] == ["robbing-kong win"]
    [pung] = table.referee.play.seats[1].melds
    assert str(pung.meld(table.tiles)) == "pung:222s", "the robbed kong is a pung again"
    assert table.referee.turn == 0


TWO_WIN_ON_5S = {
    0: "111m222m333m444m9m5s",
    1: "46s111p222p333p99p",
    2: "55s777s444p555p66p",
    3: "666m777m888m99s11s",
}
"""Sichuan hands: East throws the 5-bamboo, South and West can both win on it."""


def test_two_winners_on_one_discard_then_a_third_ends_the_blood_battle() -> None:
    table = Table("sichuan", TWO_WIN_ON_5S, draws="9s")
    table.discard(0, "5s")
    table.declare(1)
    table.declare(2)
    table.wait(3.1)
    assert [(w.place, w.win_type) for w in table.referee.play.wins] == [
        (1, WinType.DISCARD),
        (2, WinType.DISCARD),
    ]
    assert table.referee.turn == 3
    table.draw(3)
    table.declare(3)
    table.wait(2.0)
    result = replays_the_same(table)
    assert [w.place for w in result.wins] == [1, 2, 3] and result.reason == "won"
    third = result.wins[2]
    assert third.win_type is WinType.SELF_DRAW
    assert third.payments[1] == third.payments[2] == 0, "winners who left pay nothing"


def test_zung_jung_head_bump_the_first_in_turn_wins_alone() -> None:
    table = Table(
        "zung-jung",
        {0: ZJ_E, 1: "46m111p222p333p99p", 2: "2233s4466s6m2345z", 3: "55m777p888s999s11z"},
    )
    table.discard(0, "5m")
    table.declare(3)
    table.take_discard(1, of=0)
    table.declare(1)
    table.wait(3.1)
    result = replays_the_same(table)
    assert [w.place for w in result.wins] == [1]
    assert [i.kind for i in result.incidents] == [IncidentKind.HEAD_BUMP]


def test_a_pung_of_1m_and_a_chow_of_123m_score_as_formed() -> None:
    table = Table(
        "zung-jung",
        {
            0: ZJ_E,
            1: "2m22p33p44p66s77s89s",
            2: "11m13m456p789p5s67z",
            3: "3377m88m55s9s5566z",
        },
        draws="2z3z4z5s",
    )
    table.discard(0, "1m")
    table.meld(2, "11m", discard_of=0)
    table.discard(2, "6z")
    tsumogiri(table, 3)
    tsumogiri(table, 0)
    table.draw(1)
    table.discard(1, "2m")
    table.meld(2, "13m", discard_of=1)
    table.discard(2, "7z")
    tsumogiri(table, 3)
    table.take_discard(2, of=3)
    table.declare(2)
    table.wait(3.1)
    result = replays_the_same(table)
    [win] = result.wins
    assert [str(m) for m in win.melds] == ["pung:111m", "chow:123m"]
    assert win.place == 2 and win.discarder == 3 and win.win_type is WinType.DISCARD


def test_a_false_win_is_an_incident_and_play_goes_on() -> None:
    table = Table(
        "zung-jung",
        {0: ZJ_E, 1: "2m22p33p44p66s77s89s", 2: "2233s4466s6m2345z", 3: "3377m88m55s9s5566z"},
    )
    table.discard(0, "5m")
    table.draw(1)
    table.declare(1)
    table.wait(2.0)
    assert table.incidents() == [IncidentKind.FALSE_WIN]
    table.discard(1, "2m")
    table.draw(2)
    assert moves(table)[-1] == (2, MoveKind.DRAW) and not table.referee.over


def filler(ruleset: str, hands: dict[int, str], count: int, avoid: str) -> str:
    """`count` tiles of the set that no hand holds and that are none of `avoid`."""
    from controller.rules import format_tiles, get_ruleset

    left = [t.kind for t in get_ruleset(ruleset).tiles.physical()]
    for text in hands.values():
        for kind in parse_tiles(text):
            left.remove(kind)
    banned = set(parse_tiles(avoid))
    return format_tiles([k for k in left if k not in banned][:count])


SHANGHAI_HANDS = {
    0: ZJ_E,
    1: "111m222p333s444m5p",
    2: "5566s7788s6m2345z",
    3: "3377m88m55s9s5566z",
}
"""South waits on 5p and may draw a flower."""


def test_shanghai_a_flower_drawn_in_play_is_replaced_and_wins_on_the_replacement() -> None:
    table = Table("shanghai", SHANGHAI_HANDS, draws="1f", replacements="5p")
    table.discard(0, "1z")
    flower = table.draw(1)
    table.move([flower], 1, Zone.MELD)
    table.replace(1)
    table.declare(1)
    table.wait(2.0)
    result = replays_the_same(table)
    assert [k for _, k in moves(table)][1:4] == [
        MoveKind.DRAW,
        MoveKind.FLOWER,
        MoveKind.REPLACEMENT,
    ]
    [win] = result.wins
    assert win.win_type is WinType.KONG_REPLACEMENT and win.flowers == tuple(parse_tiles("1f"))
    assert "杠开" in [name for name, _ in win.patterns]


def test_zung_jung_last_tile_and_last_discard_wins() -> None:
    hands = {0: ZJ_E, 1: "46m111p222p333p99p", 2: "78m111s222s333s99s", 3: "3377m88m55s9s5566z"}
    last = Table("zung-jung", hands, draws=filler("zung-jung", hands, 68, "5m6m9m") + "5m")
    last.discard(0, "1z")
    for turn in range(68):
        tsumogiri(last, (1 + turn) % 4)
    last.draw(1)
    assert last.referee.play.wall.remaining == 0
    last.declare(1)
    last.wait(2.0)
    [win] = replays_the_same(last).wins
    assert win.win_type is WinType.LAST_TILE and "Final Draw" in dict(win.patterns)

    discard = Table("zung-jung", hands, draws=filler("zung-jung", hands, 68, "5m6m9m") + "9m")
    discard.discard(0, "1z")
    for turn in range(69):
        tsumogiri(discard, (1 + turn) % 4)
    discard.take_discard(2, of=1)
    discard.declare(2)
    discard.wait(3.1)
    [win] = replays_the_same(discard).wins
    assert win.win_type is WinType.LAST_DISCARD and win.discarder == 1


def test_zung_jung_the_last_discard_may_only_be_won_on_and_the_wall_end_ends_the_hand() -> None:
    hands = {0: ZJ_E, 1: "46m111p222p333p99p", 2: "78m111s222s333s99s", 3: "3377m88m55s9s5566z"}
    table = Table("zung-jung", hands, draws=filler("zung-jung", hands, 68, "5m6m7m9m") + "7m")
    table.discard(0, "1z")
    for turn in range(69):
        tsumogiri(table, (1 + turn) % 4)
    table.meld(3, "77m", discard_of=1)
    assert table.incidents() == [IncidentKind.WRONG_CLAIM]
    table.wait(3.1)
    result = replays_the_same(table)
    assert result.reason == "the wall is empty" and result.wins == ()
    assert len(result.moves) == 1 + 2 * 69, "every draw and discard, nothing else"


def test_sichuan_a_ready_hand_must_win_on_the_last_four_tiles() -> None:
    hands = {
        0: "111m222m333m444m9m5s",
        1: "46s111p222p333p99p",
        2: "55667788m11223s",
        3: "999m778899p34m55s",
    }
    table = Table("sichuan", hands, draws=filler("sichuan", hands, 52, "5s") + "5s")
    table.discard(0, "9m")
    for turn in range(52):
        tsumogiri(table, (1 + turn) % 4)
    assert table.referee.play.wall.remaining == 3
    tsumogiri(table, 1)
    assert table.incidents() == [IncidentKind.WIN_PASSED]
    for turn in (2, 3):
        tsumogiri(table, turn)
    table.wait(3.1)
    result = replays_the_same(table)
    assert result.reason == "the wall is empty"
    assert [p.reason for p in result.payments] == ["drawn hand"]
    assert result.totals[1] > 0, "the ready hand is paid at the draw"
    assert result.totals[3] == -48, "seat N holds three suits (flower pig): 16 to each other"


def drain(table: Table) -> None:
    """Every seat draws and throws until the wall is empty; the last discard's window closes."""
    while table.referee.play.wall.remaining:
        turn = table.referee.turn
        assert turn is not None
        tsumogiri(table, turn)
    table.wait(3.1)


def test_sichuan_a_konger_not_ready_at_the_draw_returns_the_kong_income() -> None:
    hands = {
        0: "1111m258m1479p369p",
        1: "258m369m147p258p9p",
        2: "2469m2469s13s57s9s",
        3: "3478p5p9p1258s369s",
    }
    table = Table("sichuan", hands, replacements="9m")
    sichuan = table.ruleset
    for place in (1, 2, 3):
        concealed = parse_tiles(hands[place])
        assert not sichuan.waits(concealed), f"seat {place} must not be ready"
    table.meld(0, "1111m")
    uid = table.replace(0)
    table.move([uid], 0, Zone.DISCARD)
    drain(table)
    result = replays_the_same(table)
    assert [(p.reason, p.amounts) for p in result.payments] == [
        ("concealed kong", (6, -2, -2, -2)),
        ("drawn hand", (-6, 2, 2, 2)),
    ]
    assert result.totals == (0, 0, 0, 0)


def test_zung_jung_no_kong_on_the_last_tile() -> None:
    hands = {0: ZJ_E, 1: "46m111p222p333p99p", 2: "78m111s222s333s99s", 3: "3377m88m55s9s5566z"}
    table = Table("zung-jung", hands, draws=filler("zung-jung", hands, 68, "2p") + "2p")
    table.discard(0, "1z")
    for turn in range(68):
        tsumogiri(table, (1 + turn) % 4)
    table.draw(1)
    table.meld(1, "2222p")
    assert table.incidents() == [IncidentKind.KONG_ON_LAST_TILE]
    assert table.referee.play.need.value == "discard", "no replacement comes"


def test_heavenly_and_earthly_wins_come_from_the_first_go_around() -> None:
    others = {1: "22p33p44p66s77s89s7z", 2: "2233s4466s6m2345z", 3: "3377m88m55s9s5566z"}
    heaven = Table("zung-jung", {0: "123m456m789m111p99p"} | others)
    heaven.declare(0)
    heaven.wait(2.0)
    [win] = replays_the_same(heaven).wins
    assert win.win_type is WinType.HEAVENLY and win.discarder is None

    earth = Table(
        "sichuan",
        {
            0: "111m222m333m444m9m5s",
            1: "46s111p222p333p99p",
            2: "55667788m11223s",
            3: "999m778899p34m55s",
        },
        draws="5s",
    )
    earth.discard(0, "9m")
    earth.draw(1)
    earth.declare(1)
    earth.wait(2.0)
    [win] = earth.referee.play.wins
    assert win.win_type is WinType.EARTHLY, "Sichuan: a non-dealer's first draw"


def test_a_kong_on_a_discard_read_three_tiles_first_is_still_an_exposed_kong() -> None:
    table = Table(
        "sichuan",
        {
            0: "1111m234m666p678p9s",
            1: "999s11p22p33p44p67s",
            2: "55667788m11223s",
            3: "999m4455s778899p",
        },
        replacements="3m4m",
    )
    table.meld(0, "1111m")
    table.replace(0)
    table.discard(0, "9s")
    table.meld(1, "99s", discard_of=0)
    table.meld(1, "9s")
    assert [k for _, k in moves(table)][-2:] == [MoveKind.DISCARD, MoveKind.EXPOSED_KONG], (
        "the pung the first read made is the kong (one move, as the seat made it)"
    )
    assert table.referee.play.payments[-1].reason == "exposed kong"
    assert table.referee.play.payments[-1].amounts == (-1, 1, 0, 0), "the discarder pays"
    table.replace(1)
    assert moves(table)[-1] == (1, MoveKind.REPLACEMENT)


def test_shanghai_two_winners_on_one_discard() -> None:
    table = Table(
        "shanghai",
        {
            0: "19m19p19s1234567z5p",
            1: "111m222p333s444m5p",
            2: "777m888p999s5p777z",
            3: "3388m99m55s1s5566z",
        },
    )
    table.discard(0, "5p")
    table.take_discard(1, of=0)
    table.declare(1)
    table.declare(2)
    table.wait(3.1)
    result = replays_the_same(table)
    assert [(w.place, w.discarder) for w in result.wins] == [(1, 0), (2, 0)]
    assert result.totals[0] < 0 and result.totals[1] > 0 and result.totals[2] > 0


def test_a_win_declared_on_a_discard_comes_before_a_pung_of_it() -> None:
    table = Table(
        "zung-jung",
        {0: ZJ_E, 1: "8p5566s77s88s3456z", 2: "55m2233s778899p1z", 3: "46m111p222p333p55s"},
    )
    table.discard(0, "5m")
    table.declare(3)
    table.meld(2, "55m", discard_of=0)
    result = replays_the_same(table)
    assert [(w.place, w.discarder) for w in result.wins] == [(3, 0)]
    assert [i.kind for i in result.incidents] == [IncidentKind.CLAIM_VOID]  # no fault
    assert MoveKind.PUNG not in [m.kind for m in result.moves]


def test_sichuan_a_ready_hand_must_win_on_a_discard_of_the_last_four() -> None:
    hands = {
        0: "111m222m333m444m9m6s",
        1: "46s111p222p333p99p",
        2: "55667788m11223s",
        3: "999m778899p34m55s",
    }
    table = Table("sichuan", hands, draws=filler("sichuan", hands, 51, "5s") + "5s")
    table.discard(0, "9m")
    for turn in range(51):
        tsumogiri(table, (1 + turn) % 4)
    assert table.referee.turn == 0 and table.referee.play.wall.remaining == 4
    tsumogiri(table, 0)
    assert table.incidents() == []
    table.draw(1)
    assert table.incidents() == [IncidentKind.WIN_PASSED], "seat S let the 5-bamboo go"


def test_a_discard_after_a_claim_is_no_discard_after_a_kong() -> None:
    table = Table(
        "sichuan",
        {
            0: "1111m55m99p234p678p",
            1: "99s234s567s111s5m9p",
            2: "223344m667788p2s",
            3: "667788m2233p445s",
        },
        replacements="9s",
    )
    table.meld(0, "1111m")
    table.replace(0)
    table.discard(0, "9s")
    table.meld(1, "99s", discard_of=0)
    table.discard(1, "9p")
    table.meld(0, "99p", discard_of=1)
    table.discard(0, "5m")  # its turn began with the pung, not with the kong's replacement
    table.take_discard(1, of=0)
    table.declare(1)
    table.wait(3.1)
    [win] = table.referee.play.wins
    assert (win.place, win.discarder, win.win_type) == (1, 0, WinType.DISCARD)
    assert "kong income passed to the winner" not in [p.reason for p in table.referee.play.payments]
