"""Fault injection for the simulated table: a noisy line and physical faults."""

import random
from collections.abc import Mapping
from dataclasses import dataclass, field

from firmware_bridge.messages import Zone


@dataclass(frozen=True)
class Faults:
    """Which faults the simulated table injects (all off by default)."""

    corrupt: float = 0.0
    """Chance that a byte on the line (either direction) is damaged."""
    drop: float = 0.0
    """Chance that a whole frame (either direction) is lost."""
    late_reply: float = 0.0
    """Chance that the MCU's reply to a command is held back by `late_reply_s`."""
    late_reply_s: float = 0.1
    jam_at_tile: int | None = None
    """The first build jams after placing this many tiles."""
    missing_tiles: tuple[str, ...] = ()
    """Faces (e.g. "5p") of which one tile is missing from each physical set."""
    duplicate_uids: int = 0
    """How many tags per set answer with another tile's UID (badly programmed tags)."""
    zone_miss: Mapping[Zone, float] = field(default_factory=dict)
    """Chance that a zone antenna misses a tile on one read, per zone."""
    dead_antennas: tuple[int, ...] = ()
    """Antenna numbers (0 the wall reader, then 1 + seat * 3 + zone) that read nothing."""

    def __post_init__(self) -> None:
        for name in ("corrupt", "drop", "late_reply"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} must be a chance between 0 and 1")


class LineNoise:
    """Damages bytes and loses frames at the configured rates, reproducibly from a seed."""

    def __init__(self, corrupt: float, drop: float, rng: random.Random) -> None:
        self.corrupt = corrupt
        self.drop = drop
        self._rng = rng

    def lose_frame(self) -> bool:
        """True if the next frame is to be lost."""
        return self.drop > 0 and self._rng.random() < self.drop

    def damage(self, data: bytes) -> bytes:
        """`data` with each byte damaged at the corruption rate (one draw per byte, and one
        more for the damage: a noisy line passes every byte of every frame through here)."""
        corrupt = self.corrupt
        if corrupt <= 0:
            return data
        rng = self._rng
        draw = rng.random
        out: bytearray | None = None
        for index in range(len(data)):
            if draw() < corrupt:
                if out is None:
                    out = bytearray(data)
                out[index] ^= rng.randrange(1, 256)
        return data if out is None else bytes(out)
