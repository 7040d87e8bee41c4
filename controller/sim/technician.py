"""The technician at the simulated table: what a diag prompt asks is done through the
simulator's physical API (press a button, lay a tile on an antenna, sort tiles by face)."""

from controller.diag.ports import SEAT_NAMES, ZONE_NAMES, Action, Prompt
from controller.sim.hardware import Buttons
from firmware_bridge.messages import Zone
from firmware_bridge.sim.table import SimulatedTable


def _zone(target: str) -> tuple[int, Zone]:
    seat, zone = target.split("-")
    return SEAT_NAMES.index(seat), Zone(ZONE_NAMES.index(zone))


class SimTechnician:
    """Carries out prompts on a SimulatedTable and its mock panel."""

    def __init__(self, table: SimulatedTable, buttons: Buttons) -> None:
        self.table = table
        self.buttons = buttons

    def act(self, prompt: Prompt) -> None:
        """Do what the prompt asks (looking at an LED needs no hands)."""
        match prompt.action:
            case Action.PRESS:
                self.buttons.press(prompt.target)
            case Action.PLACE:
                seat, zone = _zone(prompt.target)
                self.table.put(self.table.spare_tile(), seat, zone)
            case Action.CLEAR:
                seat, zone = _zone(prompt.target)
                self.table.clear_zone(seat, zone)
            case Action.SORT:
                for tile in self.table.built_tiles():
                    if tile.name == prompt.target:
                        self.table.put(tile, 0, Zone.HAND)
            case Action.LOOK:
                pass
