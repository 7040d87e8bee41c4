"""The fault profiles of `simulate --faults`: what a simulated session throws at the table.

- `none`: a clean table and line.
- `noisy`: a noisy serial line (3% of frames lost, 0.5% of bytes damaged, either direction)
  and zone antennas that miss a tile on 1% of reads.
- `hostile`: noisy, plus (once per `HOSTILE_EVERY` hands, at least once a session) a jam in
  the wall build, an MCU reset during play and, when the session's own broker and recorder
  can be restarted (`HubRestarts`), a broker restart and a recorder restart.
"""

import enum
from dataclasses import dataclass
from typing import Protocol

from firmware_bridge.messages import Zone
from firmware_bridge.sim.faults import Faults

NOISY_DROP = 0.03
NOISY_CORRUPT = 0.005
NOISY_ZONE_MISS = 0.01
HOSTILE_EVERY = 50
"""Hands between two injections of the same hostile fault."""
JAM_AFTER_TILES = 40
"""An injected jam stops the build after this many tiles."""


class FaultProfile(enum.Enum):
    """How hostile a simulated session is."""

    NONE = "none"
    NOISY = "noisy"
    HOSTILE = "hostile"


class FaultKind(enum.Enum):
    """One kind of injected fault."""

    JAM = "a jam in the wall build"
    MCU_RESET = "an MCU reset during play"
    BROKER_RESTART = "a broker restart"
    RECORDER_RESTART = "a recorder restart"


@dataclass(frozen=True)
class Injection:
    """One fault to inject, in a given hand."""

    kind: FaultKind
    hand: int


class HubRestarts(Protocol):
    """The session's own broker and recorder, which a hostile session restarts."""

    async def restart_broker(self) -> None:
        """Stop the broker and start it again on the same address."""
        ...

    async def restart_recorder(self) -> None:
        """Stop the recorder and start it again on the same store."""
        ...


def line_faults(profile: FaultProfile) -> Faults | None:
    """The simulated table's line and reader faults under `profile` (None: none)."""
    if profile is FaultProfile.NONE:
        return None
    return Faults(
        corrupt=NOISY_CORRUPT,
        drop=NOISY_DROP,
        zone_miss=dict.fromkeys(Zone, NOISY_ZONE_MISS),
    )


def injections(profile: FaultProfile, hands: int, hub: bool) -> tuple[Injection, ...]:
    """The hostile faults of a session of `hands` hands, spread over it; the broker and
    recorder restarts only if `hub` (they can be restarted)."""
    if profile is not FaultProfile.HOSTILE:
        return ()
    kinds = [FaultKind.JAM, FaultKind.MCU_RESET]
    if hub:
        kinds += [FaultKind.BROKER_RESTART, FaultKind.RECORDER_RESTART]
    planned = []
    for start in range(0, hands, HOSTILE_EVERY):
        span = min(HOSTILE_EVERY, hands - start)
        for index, kind in enumerate(kinds):
            # Spread the kinds over the span; never in hand 1, so power-on stays clean.
            offset = (index + 1) * span // (len(kinds) + 1)
            planned.append(Injection(kind, max(2, start + offset + 1)))
    return tuple(sorted(planned, key=lambda i: (i.hand, i.kind.name)))
