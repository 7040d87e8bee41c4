"""A fully simulated table in process: the software MCU (in memory or on a pty), the control
panel on gpiozero's MockFactory pins, the tile-set file the simulator writes, and fingers
that press its buttons."""

from dataclasses import dataclass
from pathlib import Path

from gpiozero import Device
from gpiozero.pins.mock import MockFactory, MockPin, MockPWMPin

from controller.devices.panel import GpioPanel
from controller.devices.pinout import Pinout, load_pinout
from controller.sim.mistakes import Sloppiness
from controller.table.ports import SEATS
from firmware_bridge.port import PortOpener
from firmware_bridge.serial_port import serial_opener
from firmware_bridge.sim.faults import Faults
from firmware_bridge.sim.table import SimulatedTable


def mock_pins() -> MockFactory:
    """gpiozero's MockFactory as the pin factory (the one in use if it is one already)."""
    factory = Device.pin_factory
    if not isinstance(factory, MockFactory):
        factory = MockFactory(pin_class=MockPWMPin)
        Device.pin_factory = factory
    return factory


@dataclass(frozen=True)
class SimOptions:
    """How `run --sim` simulates the table."""

    seed: int = 0
    """Tile tags, shuffles and dice."""
    speed: float = 1.0
    """Machine time factor (1 real pace, 0 instant)."""
    over_pty: bool = False
    """Serve the MCU on a pseudo-terminal and reach it through the serial code."""
    inventory_period: float | None = 2.0
    """Seconds between periodic zone reports (None: on change only)."""
    think_s: float = 0.5
    """The players' pause between moves."""
    sloppy: Sloppiness | None = None
    """The players' mistakes (None: they play cleanly)."""
    ground_truth: Path | None = None
    """A JSON lines file for every move and mistake the players made (None: not written)."""
    faults: Faults | None = None
    """Faults the simulated machine injects (jam, dead antenna, missing tile...)."""
    stuck: tuple[str, ...] = ()
    """Panel buttons stuck down from power-on (pinout names)."""
    firmware: Path | None = None
    """The MCU is this host build of the C firmware (hardware/firmware), served on its own pty
    and driving the simulated machine (None: the software MCU)."""


class Buttons:
    """A finger on the simulated panel: presses buttons and the emergency stop by pin."""

    def __init__(self, pins: MockFactory, pinout: Pinout) -> None:
        self._pins = pins
        self._pinout = pinout
        self._stuck: set[str] = set()

    def press_dice(self) -> None:
        """Press and release the centre dice button."""
        self._press("dice_button")

    def press_declare(self, place: int) -> None:
        """Press and release one seat's declare button."""
        self._press(f"declare_{SEATS[place].lower()}")

    def set_estop(self, pressed: bool) -> None:
        """Push the mushroom (the circuit opens) or release it."""
        pin = self._pins.pin(self._pinout["estop"])
        if pressed:
            pin.drive_high()
        else:
            pin.drive_low()

    def press(self, signal: str) -> None:
        """Press and release a button by its pinout name (dice_button, declare_e, ...)."""
        if signal == "estop":
            self.set_estop(True)
            self.set_estop(False)
            return
        self._press(signal)

    def stick(self, signal: str) -> None:
        """A button stuck down (or its wire shorted to ground): it reads pressed for good."""
        self._stuck.add(signal)
        self._pins.pin(self._pinout[signal]).drive_low()

    def _press(self, signal: str) -> None:
        if signal in self._stuck:
            return  # a finger on a stuck button changes nothing
        pin = self._pins.pin(self._pinout[signal])
        pin.drive_low()
        pin.drive_high()


class SimulatedHardware:
    """The simulated table and its panel, ready for the daemon's composition root."""

    def __init__(
        self,
        tileset_dir: Path,
        *,
        seed: int = 0,
        speed: float = 0.0,
        faults: Faults | None = None,
        over_pty: bool = False,
        inventory_period: float | None = None,
        pinout: Pinout | None = None,
        firmware: Path | None = None,
    ) -> None:
        self.table = SimulatedTable(
            seed, speed, faults, inventory_period=inventory_period, firmware=firmware
        )
        self.tileset_dir = tileset_dir
        self.over_pty = over_pty or firmware is not None
        self.pinout = pinout or load_pinout()
        self.pins = mock_pins()
        self.buttons = Buttons(self.pins, self.pinout)
        self.device: str | None = None
        """The pty the MCU is served on (over_pty only)."""

    async def start(self) -> PortOpener:
        """Power the table on; returns how the daemon reaches its MCU."""
        await self.table.start()
        if not self.over_pty:
            return self.table.memory_opener()
        self.device = await self.table.serve_pty()
        return serial_opener(self.device)

    def write_tileset(self) -> Path:
        """The simulator's tile-set file (written into `tileset_dir`)."""
        return self.table.write_tileset(self.tileset_dir)

    def panel(self) -> GpioPanel:
        """The control panel on the mock pins, its emergency stop circuit closed (safe)."""
        panel = GpioPanel(self.pinout)
        self.buttons.set_estop(False)
        return panel

    def forget_pin_history(self) -> None:
        """Drop the state history every mock pin keeps (for tests' assertions), so that a
        long session's memory stays flat; call it between hands."""
        for pin in self.pins.pins.values():
            if isinstance(pin, MockPin):
                pin.clear_states()

    async def stop(self) -> None:
        """Power the table off."""
        await self.table.stop()
