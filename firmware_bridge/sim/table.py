"""SimulatedTable: the whole simulated machine (physical model + software MCU) behind one object.

sim = SimulatedTable(seed=7, speed=0)
async with sim:
    path = await sim.serve_pty()          # or sim.memory_opener() for a Link in memory
    ...

With `firmware=` the path of the C firmware's host build, that firmware is the table's MCU
(speaking on its own pty) and this model is its machine: see firmware_bridge/sim/firmware.py.
    sim.draw(seat=0, side=0, stack=5, layer=1)
"""

from collections.abc import Sequence
from pathlib import Path
from types import TracebackType

from firmware_bridge.errors import PortUnavailable
from firmware_bridge.frame import PROTOCOL_VERSION
from firmware_bridge.messages import TABLE_HASH, ResetCause, Zone
from firmware_bridge.port import PortOpener
from firmware_bridge.serial_port import serial_opener
from firmware_bridge.sim.faults import Faults
from firmware_bridge.sim.firmware import FirmwareMcu
from firmware_bridge.sim.lines import MemoryLine, PtyLine, TcpLine
from firmware_bridge.sim.mcu import SoftwareMcu
from firmware_bridge.sim.model import Slot, TableModel
from firmware_bridge.sim.motions import Timing
from firmware_bridge.sim.tiles import Tile, tileset_file, write_sim_tileset
from firmware_bridge.tileset import TileSetFile


class SimulatedTable:
    """A simulated automatic table; `speed` scales machine time (1 = real pace, 0 = instant)."""

    def __init__(
        self,
        seed: int = 0,
        speed: float = 1.0,
        faults: Faults | None = None,
        *,
        timing: Timing | None = None,
        heartbeat_timeout: float = 2.0,
        inventory_period: float | None = 2.0,
        table_hash: int = TABLE_HASH,
        protocol_version: int = PROTOCOL_VERSION,
        firmware: Path | None = None,
    ) -> None:
        self.seed = seed
        self.model = TableModel(seed, faults)
        self.mcu: SoftwareMcu | FirmwareMcu
        if firmware is not None:
            self.mcu = FirmwareMcu(
                self.model,
                firmware,
                seed=seed,
                speed=speed,
                timing=timing,
                heartbeat_timeout=heartbeat_timeout,
                inventory_period=inventory_period,
            )
        else:
            self.mcu = SoftwareMcu(
                self.model,
                seed=seed,
                speed=speed,
                timing=timing,
                heartbeat_timeout=heartbeat_timeout,
                inventory_period=inventory_period,
                table_hash=table_hash,
                protocol_version=protocol_version,
            )
        self._started = False
        self._pty: PtyLine | None = None
        self._pty_link: Path | None = None
        self._tcp: TcpLine | None = None
        self._memory: MemoryLine | None = None

    # ---- power and lines ---------------------------------------------------------------------

    async def start(self) -> None:
        """Power the table on (serving a line does this too)."""
        if not self._started:
            self._started = True
            await self.mcu.start()

    async def stop(self) -> None:
        """Power off and close every line."""
        for line in (self._pty, self._tcp):
            if line is not None:
                line.close()
        self._pty = self._tcp = None
        if self._started:
            await self.mcu.stop()
            self._started = False

    async def __aenter__(self) -> "SimulatedTable":
        await self.start()
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.stop()

    async def serve_pty(self, link_path: Path | None = None) -> str:
        """Serve the MCU on a new pseudo-terminal; returns the device path a host opens
        (`link_path`, a stable symlink like /dev/mahjong-mcu, if given)."""
        if isinstance(self.mcu, FirmwareMcu):  # the firmware serves its own pty
            if not self._started:
                self.mcu.link_path = link_path
            await self.start()
            return self.mcu.device
        await self.start()
        self._pty_link = link_path
        self._pty = PtyLine(self.mcu, link_path)
        return self._pty.device

    @property
    def pty(self) -> PtyLine | None:
        """The pty the MCU is served on, if it is."""
        return self._pty

    async def serve_tcp(self, port: int = 0, host: str = "127.0.0.1") -> str:
        """Serve the MCU on TCP; returns the `socket://host:port` URL."""
        await self.start()
        if isinstance(self.mcu, FirmwareMcu):
            raise ValueError("the firmware's host build speaks on a pty only")
        self._tcp = await TcpLine.listen(self.mcu, port, host)
        return self._tcp.url

    def opener(self) -> PortOpener:
        """How a host reaches the MCU: in memory for the software MCU, over its pty for the
        firmware's host build (call after `start`)."""
        if isinstance(self.mcu, FirmwareMcu):
            return serial_opener(self.mcu.device)
        return self.memory_opener()

    def memory_opener(self) -> PortOpener:
        """A PortOpener reaching the MCU in memory (fast tests; call after `start`)."""
        if isinstance(self.mcu, FirmwareMcu):
            raise ValueError("the firmware's host build speaks on a pty only: use opener()")
        if self._memory is None:
            self._memory = MemoryLine(self.mcu)
        return self._memory.opener()

    def unplug(self) -> None:
        """The USB cable is pulled: the pty (and its symlink) disappear, memory lines drop."""
        if self._pty is not None:
            self._pty.close()
            self._pty = None
        if self._memory is not None:
            self._memory.plugged = False
            self._memory.disconnect(PortUnavailable("unplugged"))

    async def replug(self) -> str | None:
        """The cable is back: a new pty (same symlink if one was given); returns its device."""
        if self._memory is not None:
            self._memory.plugged = True
        if self._pty_link is not None or self._pty is None:
            return await self.serve_pty(self._pty_link)
        return None

    # ---- faults at run time ------------------------------------------------------------------

    def reset_mcu(self, cause: ResetCause = ResetCause.WATCHDOG) -> None:
        """The MCU reboots (motors stop, session and event counter restart)."""
        self.mcu.reset(cause)

    def jam_next_build(self, after_tiles: int) -> None:
        """The next build jams after placing this many tiles."""
        self.mcu.jam_next_build(after_tiles)

    def drop_next_events(self, count: int) -> None:
        """The next `count` events are lost on the line."""
        self.mcu.drop_next_events(count)

    def set_line_noise(self, corrupt: float = 0.0, drop: float = 0.0) -> None:
        """Change the chance of a damaged byte and of a lost frame."""
        self.mcu.set_line_noise(corrupt, drop)

    def set_speed(self, speed: float) -> None:
        """Change the machine time factor (1 real pace, 0 instant)."""
        if isinstance(self.mcu, FirmwareMcu):
            self.mcu.speed = speed
        else:
            self.mcu.machine.speed = speed

    def set_lid(self, open_: bool) -> None:
        """Open (motors stop) or close the lid."""
        self.mcu.set_lid(open_)

    def set_estop(self, pressed: bool) -> None:
        """Press (motors stop) or release the emergency stop."""
        self.mcu.set_estop(pressed)

    # ---- players -----------------------------------------------------------------------------

    def wall(self) -> dict[Slot, Tile]:
        """The tiles still standing in the raised walls, by (side, stack, layer)."""
        return dict(self.model.wall)

    def draw(self, seat: int, side: int, stack: int, layer: int) -> Tile:
        """Seat takes the wall tile at (side, stack, layer) into their HAND zone."""
        return self.model.draw(seat, side, stack, layer)

    def draw_block(self, seat: int, slots: Sequence[Slot]) -> list[Tile]:
        """Seat takes the wall tiles at `slots` together (a block of the deal) into their HAND
        zone."""
        return self.model.draw_block(seat, slots)

    def discard(self, seat: int, uid: int) -> Tile:
        """Seat puts a tile into their DISCARD zone (their river)."""
        return self.model.discard(seat, uid)

    def meld(self, seat: int, uids: list[int]) -> list[Tile]:
        """Seat exposes tiles (from hand or claimed from a river) in their MELD zone."""
        return self.model.meld(seat, uids)

    def move(self, uid: int, seat: int, zone: Zone) -> Tile:
        """Move a tile from whichever zone holds it to `seat`'s `zone`."""
        return self.model.move(uid, seat, zone)

    def take_out(self, faces: list[str]) -> list[Tile]:
        """Take one tile of each face (mpsz) out of the set resting in the machine, e.g. the
        four winds for a seating draw; lay them with `put`, and lowering the platform takes
        them back."""
        return self.model.take_out(faces)

    def zone_tiles(self, seat: int, zone: Zone) -> list[Tile]:
        """The tiles physically lying in a zone."""
        return self.model.zone_tiles(seat, zone)

    # ---- a technician ------------------------------------------------------------------------

    def put(self, tile: Tile, seat: int, zone: Zone) -> None:
        """Lay a tile (from anywhere: a spare, one fished out below) on a zone."""
        self.model.place(tile, seat, zone)

    def clear_zone(self, seat: int, zone: Zone) -> list[Tile]:
        """Take every tile off a zone."""
        return self.model.clear_zone(seat, zone)

    def built_tiles(self) -> list[Tile]:
        """The tiles of the walls built below the surface (not raised yet)."""
        return list(self.model.below.values())

    def spare_tile(self) -> Tile:
        """A tile of set A to lay on antennas (the technician's test tile)."""
        return next(iter(self.model.sets.values()))[0]

    # ---- tile set ----------------------------------------------------------------------------

    def tileset(self) -> TileSetFile:
        """UID -> tile for both sets, as the tags were programmed."""
        return tileset_file(self.seed)

    def write_tileset(self, directory: Path) -> Path:
        """Write `sim-<seed>.toml` into `directory`; returns its path."""
        return write_sim_tileset(directory, self.seed)
