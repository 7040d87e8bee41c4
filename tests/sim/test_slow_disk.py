"""A slow SD card never stops the table: a dispute fetches a hand's black box while the next
hand is in play, the card takes longer to read it than the MCU's heartbeat timeout, and the
MCU still hears every heartbeat (a missed one would stop every motor mid-hand)."""

import threading
import zlib
from pathlib import Path
from types import TracebackType
from typing import BinaryIO

from gpiozero.pins.mock import MockFactory

from controller.disk import LocalDisk
from controller.table.cycle import Phase
from controller.table.referee.blackbox import box_name
from firmware_bridge.sim.mcu import SoftwareMcu
from tests.sim.rig import Rig

SLOW_HEARTBEATS = 6
"""A read answers after this many more heartbeats (3 s at one each 0.5 s: past the 2 s
timeout) ..."""
BOUND_S = 6.0
"""... or after this long if they never come (an event loop blocked by the read)."""


class _SlowFile:
    """A file whose reads wait for the MCU's heartbeats (a card slower than the timeout)."""

    def __init__(self, file: BinaryIO, mcu: SoftwareMcu, reads: list[int]) -> None:
        self.file = file
        self.mcu = mcu
        self.reads = reads

    def read(self, size: int = -1) -> bytes:
        released = threading.Event()
        start = self.mcu.heartbeats

        def heard(count: int) -> None:
            if count >= start + SLOW_HEARTBEATS:
                released.set()

        self.mcu.heartbeat_listeners.append(heard)
        try:
            released.wait(BOUND_S)
        finally:
            self.mcu.heartbeat_listeners.remove(heard)
        self.reads.append(self.mcu.heartbeats - start)
        return self.file.read(size)

    def __enter__(self) -> "_SlowFile":
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.file.close()


class SlowCard(LocalDisk):
    """The real files, read through `_SlowFile`."""

    def __init__(self) -> None:
        self.mcu: SoftwareMcu | None = None
        self.reads: list[int] = []
        """Heartbeats the MCU heard during each slow read."""

    def open(self, path: Path, mode: str) -> BinaryIO:
        file = super().open(path, mode)
        if "r" not in mode or self.mcu is None:
            return file
        return _SlowFile(file, self.mcu, self.reads)  # type: ignore[return-value]


async def test_a_black_box_read_slower_than_the_heartbeat_timeout_misses_no_heartbeat(
    tmp_path: Path, pins: MockFactory
) -> None:
    card = SlowCard()
    async with Rig(tmp_path, "zung-jung", hands=2, seed=1, files=card) as rig:
        mcu = rig.sim.table.mcu
        assert isinstance(mcu, SoftwareMcu), "the software MCU counts heartbeat gaps"
        card.mcu = mcu
        view = await rig.until(lambda v: v.hand == 2 and v.phase is Phase.PLAYING)
        assert view.session is not None
        name, packed = await rig.app.control.black_box(1, view.session)
        assert rig.view.hand == 2 and rig.view.phase is Phase.PLAYING, "still mid-hand"
        done = await rig.until_phase(Phase.SESSION_OVER)
    assert mcu.heartbeat_gaps == 0, "the MCU went without a heartbeat: motors stopped"
    assert done.fault is None and done.hand == 2
    assert card.reads and card.reads[0] >= SLOW_HEARTBEATS, "the read outlasted the timeout"
    on_disk = (tmp_path / "blackbox" / f"{box_name(view.session, 1)}.jsonl").read_bytes()
    assert name == box_name(view.session, 1) and zlib.decompress(packed) == on_disk
