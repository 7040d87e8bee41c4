"""Zone reads debounced: a missed read does not lose a tile; a tile seen elsewhere has moved."""

from controller.table.ports import Zone
from controller.table.zones import ZoneBoard

A, B, C = 0xE001, 0xE002, 0xE003


def test_a_missed_read_keeps_the_tile_until_it_stays_away() -> None:
    board = ZoneBoard(absence_s=1.0)
    board.update(0, Zone.HAND, frozenset({A, B}), now=0.0)
    board.update(0, Zone.HAND, frozenset({A}), now=0.5)
    assert board.tiles(0, Zone.HAND) == {A, B}
    board.update(0, Zone.HAND, frozenset({A, B}), now=0.8)
    assert board.expire(now=5.0) is False
    board.update(0, Zone.HAND, frozenset({A}), now=6.0)
    assert board.expire(now=30.0) is False, "one missed read is no move, however long ago"
    assert board.update(0, Zone.HAND, frozenset({A}), now=30.5) is True, "missed twice"
    assert board.tiles(0, Zone.HAND) == {A}
    assert board.last_change == 30.5
    board.update(0, Zone.HAND, frozenset({A, B}), now=31.0)
    board.update(0, Zone.HAND, frozenset({A}), now=31.2)
    board.update(0, Zone.HAND, frozenset({A}), now=31.4)
    assert board.expire(now=32.1) is False
    assert board.expire(now=32.2) is True, "twice missed, and away for a second"


def test_a_tile_read_elsewhere_has_moved_and_remembers_where_from() -> None:
    board = ZoneBoard(absence_s=1.0)
    board.update(1, Zone.HAND, frozenset({A, B}), now=0.0)
    board.update(1, Zone.DISCARD, frozenset({B}), now=1.0)
    assert board.tiles(1, Zone.HAND) == {A}
    board.update(2, Zone.HAND, frozenset({C}), now=1.5)
    board.update(2, Zone.HAND, frozenset({B, C}), now=2.0)
    assert board.zone_of(B) == (2, Zone.HAND)
    assert board.came_from(B) == (1, Zone.DISCARD)
    assert board.came_from(C) is None
    assert board.newest(2, Zone.HAND) == B
    assert board.seat_changed_at(1) == 2.0
    assert board.count(Zone.HAND) == 3
