"""The daemon's and diag's parts made of the simulated table: the simulator composes them from
its side (the software MCU, the panel on mock pins, four simulated players, a technician who
does what diag asks), so the daemon's own composition roots never load the simulator."""

from dataclasses import dataclass, field
from pathlib import Path

from controller.app import Hardware
from controller.config import TableConfig
from controller.devices.pinout import load_pinout
from controller.diag.direct import DirectParts
from controller.sim.hardware import SimOptions, SimulatedHardware
from controller.sim.players import Habits, SimulatedPlayers
from controller.sim.technician import SimTechnician
from firmware_bridge.sim.faults import Faults


@dataclass
class SimulatedTable:
    """The daemon's parts and the simulated table and players behind them."""

    hardware: Hardware
    simulated: SimulatedHardware
    players: SimulatedPlayers


async def simulated_table(
    config: TableConfig, options: SimOptions, tileset_dir: Path
) -> SimulatedTable:
    """The simulated table in process, its panel on mock pins, and four simulated players."""
    sim = SimulatedHardware(
        tileset_dir,
        seed=options.seed,
        speed=options.speed,
        over_pty=options.over_pty,
        inventory_period=options.inventory_period,
        pinout=load_pinout(config.gpio.pinout, config.gpio.pins),
        faults=options.faults,
        firmware=options.firmware,
    )
    opener = await sim.start()
    habits = Habits(think_s=options.think_s, sloppy=options.sloppy)
    players = SimulatedPlayers(sim.table, sim.buttons, habits, options.ground_truth)
    panel = sim.panel()
    for button in options.stuck:
        sim.buttons.stick(button)
    hardware = Hardware(
        opener=opener,
        panel=panel,
        tileset=sim.write_tileset(),
        services=(("simulated players", players.run),),
        shutdown=sim.stop,
        technician=SimTechnician(sim.table, sim.buttons),
    )
    return SimulatedTable(hardware, sim, players)


@dataclass(frozen=True)
class SimBench:
    """Diagnose the simulated table (in this process) instead of real hardware."""

    seed: int = 0
    faults: Faults = field(default_factory=Faults)
    stuck: tuple[str, ...] = ()


async def simulated_parts(config: TableConfig, bench: SimBench, scratch: Path) -> DirectParts:
    """The simulated table, started, as the parts a direct diag check opens."""
    pinout = load_pinout(config.gpio.pinout, config.gpio.pins)
    sim = SimulatedHardware(scratch, seed=bench.seed, speed=0.0, faults=bench.faults, pinout=pinout)
    opener = await sim.start()
    panel = sim.panel()
    for button in bench.stuck:  # once the panel watches its pins: a stuck one is seen pressed
        sim.buttons.stick(button)
    technician = SimTechnician(sim.table, sim.buttons)
    return DirectParts(opener, panel, sim.write_tileset(), technician, sim.stop)
