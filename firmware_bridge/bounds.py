"""What a decoded MCU message may say: a frame that passes its checksum but names a seat the
table does not have, dice that no die shows or a wall side past the fourth is refused as a
protocol error, never handed on (the hand cycle indexes seats and walls by these numbers)."""

from firmware_bridge.fields import Message
from firmware_bridge.messages import (
    MAX_ZONE_UIDS,
    SIDES,
    ZONE_PAGE_UIDS,
    Dice,
    Status,
    WallBuilt,
    WallSide,
    WallTile,
    ZoneInventory,
    ZonePage,
)

DIE_FACES = range(1, 7)
BOUNDED = frozenset({ZoneInventory, ZonePage, Dice, WallTile, WallBuilt, WallSide, Status})
"""The messages that carry a seat, a side or dice (the others need no look: most replies)."""


def out_of_bounds(message: Message, seats: int) -> str:
    """Why the message cannot be true of a table with `seats` seats ("" when it can)."""
    if type(message) not in BOUNDED:
        return ""
    match message:
        case ZoneInventory(seat, _, _) | ZonePage(seat, _, _, _, _) if seat >= seats:
            return f"a zone inventory for seat {seat} (the table has {seats})"
        case ZonePage(_, _, total, _, uids) if total > MAX_ZONE_UIDS or len(uids) > ZONE_PAGE_UIDS:
            return f"a zone page of {len(uids)} of {total} tags"
        case Dice(d1, d2) if d1 not in DIE_FACES or d2 not in DIE_FACES:
            return f"dice {d1}+{d2}"
        case WallTile(side, _, _, _) | WallBuilt(side, _) | WallSide(side, _, _, _) if (
            side >= SIDES
        ):
            return f"wall side {side} (the table has {SIDES})"
        case Status() if message.last_d1 > 6 or message.last_d2 > 6:
            return f"last dice {message.last_d1}+{message.last_d2} in the status"
    return ""
