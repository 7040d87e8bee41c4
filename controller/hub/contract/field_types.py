"""Constrained field types shared by every payload of the MQTT contract."""

from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Literal

from msgspec import Meta

from controller.ids import TABLE_ID_PATTERN

TableId = Annotated[
    str, Meta(pattern=f"^{TABLE_ID_PATTERN}$", description="Table id, as in its topics.")
]
PlayerId = Annotated[str, Meta(pattern=r"^[\w.@-]{1,64}$", description="A player's venue id.")]
SessionId = Annotated[str, Meta(pattern=r"^[\w.:-]{1,64}$", description="A session's id.")]
MessageId = Annotated[
    str, Meta(pattern=r"^[0-9a-f]{32}$", description="Unique message id (UUID4 hex).")
]
OutboxId = Annotated[
    str,
    Meta(
        pattern=r"^[0-9a-f]{32}$",
        description="Random id of the table's outbox file, made with the file: a new id means "
        "the table's sequence numbers started again (a new or wiped outbox).",
    ),
]
Seat = Annotated[int, Meta(ge=0, le=3, description="Physical seat 0-3, E S W N at session start.")]
TileName = Literal[
    "1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m",
    "1p", "2p", "3p", "4p", "5p", "6p", "7p", "8p", "9p",
    "1s", "2s", "3s", "4s", "5s", "6s", "7s", "8s", "9s",
    "1z", "2z", "3z", "4z", "5z", "6z", "7z",
    "1f", "2f", "3f", "4f", "5f", "6f", "7f", "8f",
]  # fmt: skip
"""Every tile in mpsz notation: suits 1-9 m p s, honours 1-7 z, flowers 1-8 f."""
if TYPE_CHECKING:  # code names tiles as plain strings
    Tile = Annotated[str, Meta(description="One tile, mpsz notation.")]
else:  # a decoded tile is looked up among the names, not matched by a pattern (a wall has 144)
    Tile = Annotated[TileName, Meta(description="One tile, mpsz notation.")]
Tiles = Annotated[
    str,
    Meta(
        pattern=r"^([1-9]+[mps]|[1-7]+z|[1-8]+f)*$(?!\n)",  # `$` alone lets a newline end it
        description="Tiles in mpsz notation.",
    ),
]
Hex64 = Annotated[str, Meta(pattern=r"^[0-9a-f]{64}$", description="64 lower-case hex digits.")]
Count = Annotated[int, Meta(ge=0)]
Positive = Annotated[int, Meta(ge=1)]
Text = Annotated[str, Meta(max_length=500)]
Wind = Literal["E", "S", "W", "N"]
Timestamp = Annotated[
    datetime, Meta(tz=True, description="RFC 3339 time with its zone (the table writes UTC).")
]
