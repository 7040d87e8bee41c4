"""Property: whatever players do at the table, in turn or not (draws, throws, sets, kongs,
flowers, declarations, tiles moved anywhere, swept off the table, read late, put back), the
referee keeps every tile in exactly one place (the wall, one pile of one seat, or out of
play), and what it reads of the seats and of where a tile must lie agrees with that place.
A tile counted twice or lost would score a hand with a tile it does not hold."""

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from controller.rules.tiles import is_flower
from controller.table.ports import Zone
from controller.table.records import IncidentKind
from controller.table.referee import EndNow
from controller.table.referee.places import ZONE_OF, Pile, Spot
from tests.table.scripted import Table
from tests.table.test_referee_property import dealt_hands

FOREIGN = 9_999_999
"""A tag in no tile set (a stray tag from another table)."""
ZONES = (Zone.HAND, Zone.MELD, Zone.DISCARD)

Action = tuple[int, int, int, int]
"""(what, a seat, another seat, a number to pick a tile or a time with)."""

actions = st.lists(
    st.tuples(st.integers(0, 11), st.integers(0, 3), st.integers(0, 3), st.integers(0, 10_000)),
    max_size=90,
)


def act(table: Table, action: Action, off: set[int]) -> None:
    """One thing the players do; `off` holds the tiles swept off the table so far."""
    what, a, b, n = action
    referee = table.referee
    if referee.over:
        return
    play = referee.play
    held = sorted(table.zones[(a, Zone.HAND)])
    newest = table._rivers.get(b, [])[-1:]
    if what == 0 and referee.turn is not None:  # the seat on turn plays on, as it should
        place = referee.turn
        hand = sorted(table.zones[(place, Zone.HAND)])
        if play.need.value != "discard" and play.wall.remaining:
            table.draw(place) if play.need.value == "draw" else table.replace(place)
        elif hand:
            table.move([hand[n % len(hand)]], place, Zone.DISCARD)
    elif what == 1 and play.wall.remaining:  # a draw, in turn or not
        table.draw(a)
    elif what == 2 and play.wall.remaining:  # a tile from the wall's end
        table.replace(a)
    elif what == 3:  # any tile of a seat to any zone of any seat
        tiles = sorted(u for z in ZONES for u in table.zones[(a, z)])
        if tiles:
            table.move([tiles[n % len(tiles)]], b, ZONES[n % 3])
    elif what == 4:
        table.declare(a)
    elif what == 5:
        table.wait(n % 60 / 10)
    elif what == 6:  # long enough for strays to be taken as they lie, or as gone
        table.wait(table.setup.settings.stray_s + 0.5)
    elif what == 7:  # a tile swept off the table
        tiles = sorted(u for z in ZONES for u in table.zones[(a, z)])
        if tiles:
            uid = tiles[n % len(tiles)]
            off.add(uid)
            keys = [k for k, content in table.zones.items() if uid in content]
            for key in keys:
                table.zones[key].discard(uid)
            table.read(*keys)
    elif what == 8 and off:  # put back on the table, anywhere
        uid = sorted(off)[n % len(off)]
        off.discard(uid)
        table.move([uid], b, ZONES[n % 3])
    elif what == 9 and newest:  # a set (or a wrong one) on a seat's newest discard
        discard = newest[0]
        kind = table.tiles.kind(discard)
        same = [u for u in held if table.tiles.kind(u) == kind][:3]
        near = [u for u in held if abs((table.tiles.kind(u) or 0) - (kind or 0)) in (1, 2)]
        table.move([discard, *(same if len(same) >= 2 or not near else near[:2])], a, Zone.MELD)
    elif what == 10:  # a kong or a flower laid out, or the newest discard taken to win on
        kinds = Counter(table.tiles.kind(u) for u in held)
        four = [u for u in held if kinds[table.tiles.kind(u)] == 4]
        flowers = [u for u in held if is_flower(table.tiles.kind(u) or 0)]
        if four or flowers:
            table.move(four[:4] or flowers[:1], a, Zone.MELD)
        elif newest:
            table.move(newest, a, Zone.HAND)
    elif what == 11:  # a foreign tag, or a move whose reads come late
        if n % 2:
            table.move([FOREIGN], a, ZONES[n % 3])
        elif held:
            table.move([held[n % len(held)]], b, ZONES[n % 3], unread=[(b, ZONES[n % 3])])


def check_places(table: Table) -> None:
    """Every tag is in exactly one place, and each view of it agrees."""
    play = table.referee.play
    places = play.places
    listed: Counter[int] = Counter()
    for place, seat in enumerate(places.seats):
        piles = {
            Pile.HAND: list(seat.concealed),
            Pile.MELD: [uid for record in seat.melds for uid in record.uids],
            Pile.FLOWERS: list(seat.flowers),
            Pile.LOOSE: list(seat.loose),
            Pile.RIVER: list(seat.river),
        }
        for pile, uids in piles.items():
            listed.update(uids)
            for uid in uids:
                assert places.spot(uid) == (place, pile), f"{uid} listed in {place} {pile}"
                assert seat.zone_of(uid) is ZONE_OF[pile]
                if uid not in play.won_on:  # a discard won on lies where the winner left it
                    assert places.where.get(uid) == (place, ZONE_OF[pile])
    assert all(count == 1 for count in listed.values()), f"held twice: {listed.most_common(3)}"
    tags = [*table.tiles.names(), FOREIGN]
    for uid in tags:
        spot = places.spot(uid)
        assert (spot is Spot.WALL) == play.wall.holds(uid)
        assert (spot is Spot.OUT) == (uid in places.out_of_play())
        if isinstance(spot, Spot):
            assert uid not in listed and places.where.get(uid) is None
        if uid == FOREIGN:
            assert spot is Spot.NOWHERE, "a tag in no tile set takes no part in play"
        else:
            assert spot is not Spot.NOWHERE, "every tile of the set is somewhere"


@settings(max_examples=60, deadline=None)
@given(ruleset=st.sampled_from(["zung-jung", "sichuan", "shanghai"]), moves=actions)
def test_every_tile_is_in_exactly_one_place(ruleset: str, moves: list[Action]) -> None:
    table = Table(ruleset, dealt_hands(ruleset, random.Random(len(moves))))
    off: set[int] = set()
    check_places(table)
    for action in moves:
        act(table, action, off)
        check_places(table)
    table.feed(EndNow("the test ends it"))
    check_places(table)
    result = table.result
    held = [kind for seat in result.seats for kind in (*seat.concealed, *seat.flowers)]
    held += [kind for seat in result.seats for meld in seat.melds for kind in meld.tiles]
    held += [kind for seat in result.seats for kind in seat.discards]
    places = table.referee.play.places
    shown = [u for seat in places.seats for u in seat.all_uids() if u not in seat.loose]
    assert len(held) == len(shown), "the result shows each tile a seat holds once"


def south_pung_laid_out() -> Table:
    """South has punged East's 5-dot and discarded: its pung lies in its MELD zone."""
    table = Table(
        "zung-jung",
        {
            0: "1112345678999m5p",
            1: "55p123s456s789s11z",
            2: "2345678p234567s",
            3: "2345678m22z33z44z",
        },
    )
    table.discard(0, "5p")
    table.meld(1, "55p", discard_of=0)
    table.discard(1, "1z")
    return table


def test_a_tile_of_an_exposed_set_leaving_the_table_does_not_stop_the_hand_ending() -> None:
    table = south_pung_laid_out()
    swept = min(table.zones[(1, Zone.MELD)])
    table.zones[(1, Zone.MELD)].discard(swept)
    table.read((1, Zone.MELD))
    for _ in range(30):
        table.wait(1.0)
    assert IncidentKind.TILE_LEFT_TABLE in table.incidents()
    assert swept in table.referee.play.places.out_of_play()
    table.feed(EndNow("the venue ends it"))
    assert table.referee.over, "the hand ends, with the set as it was laid out"
    [pung] = table.result.seats[1].melds
    assert len(pung.tiles) == 3


def test_a_tile_taken_from_an_exposed_set_into_the_hand_breaks_the_set_up() -> None:
    # South takes a tile of its exposed pung back into its hand: taken as it lies (a stray),
    # the set is no set any more; its other tiles lie loose, and the hand still ends.
    table = south_pung_laid_out()
    taken = min(table.zones[(1, Zone.MELD)])
    table.move([taken], 1, Zone.HAND)
    for _ in range(30):
        table.wait(1.0)
    assert IncidentKind.STRAY_TILES in table.incidents()
    seat = table.referee.play.places.seats[1]
    assert seat.melds == [] and len(seat.loose) == 2 and taken in seat.concealed
    table.feed(EndNow("the venue ends it"))
    assert table.referee.over and table.result.seats[1].melds == ()
