"""Irregularities from one look at the tiles: short and long hands, strange tags, lost tiles."""

from hypothesis import given
from hypothesis import strategies as st

from controller.rules import get_ruleset, parse_tiles
from controller.rules.penalties import PenaltyPoints
from controller.table.irregularities import (
    HandSize,
    PenaltyTiles,
    Rights,
    count_incident,
    expected_tile_count,
    false_win_incident,
    hand_size,
    left_table_incident,
    rights_left,
    tiles_gone,
    unknown_tags,
    unknown_tile_incident,
)
from controller.table.records import IncidentKind, Instant
from tests.table.helpers import tile_map, uid_of

AT = Instant(100.0, 1_700_000_100.0)
NO_POINTS = PenaltyPoints()


def test_a_seat_holds_thirteen_and_fourteen_with_a_tile_to_throw() -> None:
    assert expected_tile_count(sets=0, to_throw=False) == 13
    assert expected_tile_count(sets=0, to_throw=True) == 14
    assert expected_tile_count(sets=2, to_throw=True) == 8  # a kong counts as a set of three
    assert expected_tile_count(sets=4, to_throw=False) == 1


@given(sets=st.integers(0, 4), to_throw=st.booleans(), concealed=st.integers(0, 18))
def test_size_is_right_only_for_thirteen_or_fourteen_tiles_in_all(
    sets: int, to_throw: bool, concealed: int
) -> None:
    total = concealed + 3 * sets
    size = hand_size(concealed, sets, to_throw)
    target = 14 if to_throw else 13
    assert (size is HandSize.RIGHT) == (total == target)
    assert (size is HandSize.SHORT) == (total < target)
    assert (size is HandSize.LONG) == (total > target)


def test_short_hand_loses_the_win_and_long_hand_also_claims_and_kongs() -> None:
    short = count_incident(2, AT, parse_tiles("123456789m1234p"), 0, True, NO_POINTS)
    assert short is not None
    assert short.kind is IncidentKind.SHORT_HAND and short.cost.loses is Rights.WIN
    assert short.detail.startswith("short hand: W holds 13 concealed tiles beside 0 set(s)")
    drew_out_of_turn = parse_tiles("123456789m12345p")
    long = count_incident(1, AT, drew_out_of_turn, 0, False, PenaltyPoints(long_hand=10))
    assert long is not None and long.kind is IncidentKind.LONG_HAND
    assert long.cost.loses is Rights.ALL and long.cost.points == 10
    assert long.tiles == tuple(sorted(drew_out_of_turn))
    assert count_incident(0, AT, parse_tiles("123456789m1234p"), 0, False, NO_POINTS) is None
    record = long.record()
    assert (record.place, record.kind, record.penalty, record.at) == (1, "long_hand", 10, AT)


def test_lost_rights_last_for_the_rest_of_the_hand() -> None:
    short = count_incident(0, AT, parse_tiles("123m"), 1, False, NO_POINTS)
    long = count_incident(0, AT, parse_tiles("123456m"), 3, True, NO_POINTS)
    assert short is not None and long is not None
    assert rights_left([short], 0) == Rights.CLAIM | Rights.KONG
    assert rights_left([short, long], 0) == Rights.NONE
    assert rights_left([short, long], 1) == Rights.ALL


def test_tags_outside_the_tile_set_and_tiles_leaving_the_table() -> None:
    tiles = tile_map(get_ruleset("zung-jung"))
    known, stranger = uid_of(0), 0xDEAD_BEEF
    assert unknown_tags([known, stranger, stranger], tiles) == (stranger,)
    unknown = unknown_tile_incident(3, AT, [stranger])
    assert unknown.kind is IncidentKind.UNKNOWN_TILE and unknown.seat == 3
    assert "00:00:00:00:DE:AD:BE:EF" in unknown.detail
    in_play = [uid_of(0), uid_of(1), uid_of(2)]
    gone = tiles_gone(in_play, seen=[uid_of(1)])
    assert gone == (uid_of(0), uid_of(2))
    left = left_table_incident(1, AT, gone, tiles)
    assert left.kind is IncidentKind.TILE_LEFT_TABLE
    assert left.tiles == tuple(sorted(tiles.kinds(gone)))
    assert left.detail.startswith("2 tile(s) left the table from S: ")


def test_a_false_win_turns_the_exposed_tiles_into_penalty_tiles() -> None:
    exposed = parse_tiles("123m456p789s11z22z")
    incident = false_win_incident(1, AT, exposed, "not a winning hand", PenaltyPoints())
    assert incident.kind is IncidentKind.FALSE_WIN and incident.cost.loses is Rights.NONE
    assert incident.cost.penalty_tiles == tuple(sorted(exposed)) and incident.cost.points == 0
    assert incident.detail.startswith("false win: S declared a win: not a winning hand")


def test_live_penalty_tiles_die_when_the_seat_discards_something_else() -> None:
    tiles = PenaltyTiles().exposed([uid_of(1), uid_of(2)])
    assert tiles.may_discard(uid_of(1))
    thrown = tiles.after_discard(uid_of(1))  # a live penalty tile thrown: it is gone, and
    assert thrown.live == frozenset() and thrown.dead == {uid_of(2)}  # the other dies
    tiles = tiles.after_discard(uid_of(9))  # another tile thrown: the rest is dead
    assert tiles.dead == {uid_of(1), uid_of(2)} and not tiles.may_discard(uid_of(2))
    assert tiles.in_set([uid_of(2), uid_of(3), uid_of(4)]) == {uid_of(2)}
    assert tiles.exposed([uid_of(2)]).live == frozenset()  # dead stays dead
