"""The hand cycle's timing: the one place its defaults are written (the config's [hand]
section takes its defaults from here)."""

from dataclasses import dataclass


@dataclass(frozen=True)
class CycleSettings:
    """Timeouts and settling times of the hand cycle (seconds)."""

    build_timeout_s: float = 80.0
    raise_timeout_s: float = 15.0
    dice_timeout_s: float = 10.0
    settle_s: float = 1.5
    """Zone reads unchanged this long count as settled (deal check, declarations)."""
    absence_s: float = 1.0
    """A tag missing from its zone's reads this long counts as gone."""
    deal_timeout_s: float = 300.0
    """Check the deal anyway after this long, even if seats still lack tiles."""
    link_grace_s: float = 10.0
    """How long a session waits for the table MCU before that is a fault."""
    motion_margin_s: float = 5.0
    """The MCU's own limit on a movement is this much longer than the daemon's."""
