"""The seating draw at the start of a WMC session (seed 003, 執位). Pure: zone contents and
dice in, seats out.

The procedure: the four players sit anywhere; the four wind tiles lie face down in a row with
an odd tile at one end and an even tile at the other. Anyone rolls two dice and counts seats
(himself 1, counter-clockwise; 5 and 9 are himself, 2, 6, 10 the next player, 3, 7, 11 the
one opposite, 4, 8, 12 the previous one); that player rolls again, and counting again from
him gives the player who takes the first wind tile, from the odd tile's end if the second
total is odd, else from the even end; the others follow counter-clockwise, one tile each. The
East drawer is the first dealer and takes the East chair (chair 0); South sits on his right
(chair 1), West opposite (chair 2), North on his left (chair 3).

The table reads the result: once the HAND zones settle with one wind tile each, `read_draw`
turns them into the wind each chair drew, and `session_start` seats the players:

    order = draw_order(first_roller=2, first=(3, 4), second=(1, 1))  # who takes first
    drawn = read_draw({chair: board.tiles(chair, Zone.HAND) for chair in range(4)}, tiles)
    start = session_start(plan.id, ruleset.name, plan.players, drawn, order, now)
"""

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

from controller.rules.seats import Seat, dice_seat
from controller.rules.tiles import WINDS
from controller.table.records import Instant, SessionStart
from controller.table.tiles import TileMap, seat_name, tile_words


class SeatingError(ValueError):
    """The HAND zones do not show a complete wind draw (the message says what to fix)."""


@dataclass(frozen=True)
class DrawOrder:
    """Who takes the first wind tile and from which end of the row."""

    first_roller: int
    dice: tuple[int, int, int, int]
    second_roller: int
    first_taker: int
    from_odd_end: bool

    @property
    def takers(self) -> tuple[int, ...]:
        """The chairs in the order they take a wind tile (counter-clockwise)."""
        return tuple((self.first_taker + step) % 4 for step in range(4))


FIRST_ROLLER = 0
"""Seed 003 lets anyone roll first; the table asks the player on chair 0 (E) to."""


@dataclass
class SeatingDraw:
    """The seating draw on its way: the dice rolled so far and what the table last said."""

    dice: list[int] = field(default_factory=list)
    rolling: bool = False
    said: str = ""
    """The last problem with the draw said on the status (said once, until it changes)."""

    @property
    def order(self) -> "DrawOrder | None":
        """Who takes the first wind tile, once both rolls are in."""
        if len(self.dice) < 4:
            return None
        d = self.dice
        return draw_order(FIRST_ROLLER, (d[0], d[1]), (d[2], d[3]))


def draw_order(first_roller: int, first: tuple[int, int], second: tuple[int, int]) -> DrawOrder:
    """Seed 003: the first roll picks who rolls again; the second picks the first taker and
    the end of the row (odd total: the odd tile's end)."""
    second_roller = dice_seat(Seat(first_roller), sum(first))
    taker = dice_seat(second_roller, sum(second))
    return DrawOrder(
        first_roller, (*first, *second), int(second_roller), int(taker), sum(second) % 2 == 1
    )


def read_draw(hands: Mapping[int, Collection[int]], tiles: TileMap) -> tuple[Seat, ...]:
    """The wind each chair (0-3) drew, from the tags in its HAND zone; SeatingError unless
    every chair holds exactly one wind tile and the four winds are all there."""
    drawn: list[Seat] = []
    for chair in range(4):
        uids = list(hands.get(chair, ()))
        kinds = tiles.kinds(uids)
        where = f"the HAND zone of chair {seat_name(chair)}"
        if not uids:
            raise SeatingError(f"{where} holds no tile: its player lays the wind tile drawn there")
        if len(uids) > 1:
            raise SeatingError(
                f"{where} holds {len(uids)} tiles: its player leaves only the wind tile drawn there"
            )
        if not kinds:
            raise SeatingError(
                f"{where} holds a tile whose tag is not in the tile-set file: "
                "lay a wind tile of the table's own sets"
            )
        if kinds[0] not in WINDS:
            raise SeatingError(f"{where} holds a {tile_words(kinds[0])}, not a wind tile")
        drawn.append(Seat(WINDS.index(kinds[0])))
    for wind in Seat:
        chairs = [seat_name(c) for c, w in enumerate(drawn) if w is wind]
        if len(chairs) > 1:
            raise SeatingError(
                f"chairs {' and '.join(chairs)} both drew the {tile_words(WINDS[wind])}: "
                "draw again with the four different winds"
            )
    return tuple(drawn)


def seat_players(players_at_draw: tuple[str, ...], drawn: tuple[Seat, ...]) -> tuple[str, ...]:
    """Who sits on each chair for play: the drawer of each wind on that wind's chair."""
    by_wind = {wind: player for player, wind in zip(players_at_draw, drawn, strict=True)}
    return tuple(by_wind[Seat(chair)] for chair in range(4))


def session_start(
    session: str,
    ruleset: str,
    players_at_draw: tuple[str, ...],
    drawn: tuple[Seat, ...],
    order: DrawOrder,
    at: Instant,
) -> SessionStart:
    """The session's start record: the draw, the seats it gives and the first dealer."""
    return SessionStart(
        session=session,
        ruleset=ruleset,
        players_at_draw=players_at_draw,
        drawn=tuple(wind.name for wind in drawn),
        dice=order.dice,
        players=seat_players(players_at_draw, drawn),
        dealer=int(Seat.E),
        at=at,
    )
