"""The table a diagnosis runs on: the running daemon's parts, or the hardware opened directly
while the daemon is stopped. Built by the composition root or the CLI, never here."""

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from controller.diag.events import EventFeed
from controller.diag.ports import BenchMcu, BenchPanel, NobodyAtTheTable, Technician
from controller.diag.status import StatusSources
from controller.diag.tiles import TileSetStore
from controller.table.core import Phase, TableView

QUIET = (Phase.IDLE, Phase.SESSION_OVER)


@dataclass
class DiagTarget:
    """Everything the diag operations read or move."""

    mode: str
    """daemon or direct."""
    config: object
    """The effective TableConfig."""
    config_source: str
    mcu: BenchMcu
    panel: BenchPanel | None
    store: TileSetStore
    tileset: Path
    status: StatusSources
    technician: Technician = field(default_factory=NobodyAtTheTable)
    feed: EventFeed | None = None
    motors: asyncio.Lock = field(default_factory=asyncio.Lock)
    """Held while a request moves motors: one at a time."""
    mqtt_check: Callable[[], object] | None = None

    def view(self) -> TableView | None:
        """The daemon's view of the table (None in direct mode)."""
        return self.status.view() if self.status.view is not None else None

    def why_not_move(self) -> str:
        """Why motors may not move now ('' when they may)."""
        view = self.view()
        if self.motors.locked():
            return "another self-test or tile read is running: wait for it to end"
        if view is None or view.phase in QUIET:
            return ""
        if view.phase is Phase.FAULT and not view.dice:
            return ""
        where = f"hand {view.hand}" if view.hand else "a hand"
        if view.phase is Phase.SEATING:
            where = "the seating draw"  # it rolls the dice
        doing = view.phase.value.replace("_", " ")
        return (
            f"{where} is in play ({doing}): motors move only between hands; wait for the "
            "session to end or pause it from the hub (mahjong-table hub send TABLE pause)"
        )
