"""Black boxes on disk: one file per hand, old ones pruned after the kept days, a disk that
refuses writes is counted and logged while play goes on, and a box too large to send is
refused before it is read."""

import os
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

import pytest

from controller.disk import DiskWorker, LocalDisk
from controller.table.blackbox_files import MAX_FILE, PRUNE_EVERY_S, BlackBoxFiles, BlackBoxMissing

DAY = 86_400.0


@pytest.fixture
def worker() -> Iterator[DiskWorker]:
    disk = DiskWorker.single_thread()
    yield disk
    disk.shutdown()


async def test_each_hand_gets_its_own_file_and_old_boxes_are_pruned(
    tmp_path: Path, worker: DiskWorker
) -> None:
    boxes = BlackBoxFiles(tmp_path / "blackbox", 2, worker)
    boxes.write("s-1-hand-1", b'{"a":1}', wall_time=10 * DAY)
    boxes.write("s-1-hand-1", b'{"b":2}', wall_time=10 * DAY)
    old = boxes.path("s-1-hand-1")
    assert not old.exists(), "the event loop only keeps lines; the worker writes them"
    await boxes.flushed()  # the runner flushes at every tick
    assert old.read_bytes() == b'{"a":1}\n{"b":2}\n'
    os.utime(old, (7 * DAY, 7 * DAY))
    boxes.write("s-1-hand-2", b"{}", wall_time=10 * DAY + 60)
    await boxes.flushed()
    assert old.exists(), "old boxes are looked for at most hourly"
    boxes.write("s-1-hand-3", b"{}", wall_time=10 * DAY + PRUNE_EVERY_S)
    await boxes.flushed()
    assert not old.exists(), "three days old, two kept"
    assert boxes.path("s-1-hand-3").exists()
    assert boxes.path("../../etc/x").parent == tmp_path / "blackbox", "names cannot climb out"
    await boxes.close()


async def test_a_disk_that_refuses_writes_is_counted_not_raised(
    tmp_path: Path, worker: DiskWorker, caplog: pytest.LogCaptureFixture
) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the directory should be")
    boxes = BlackBoxFiles(blocker / "blackbox", 30, worker)
    boxes.write("s-1-hand-1", b"{}", wall_time=0.0)
    boxes.write("s-1-hand-1", b"{}", wall_time=0.0)
    await boxes.flushed()
    assert boxes.failures == 2
    assert len([r for r in caplog.records if "black box" in r.getMessage()]) == 1


class _Opened(LocalDisk):
    """The real disk, noting every file opened for reading."""

    def __init__(self) -> None:
        self.read: list[Path] = []

    def open(self, path: Path, mode: str) -> BinaryIO:
        if "r" in mode:
            self.read.append(path)
        return super().open(path, mode)


async def test_a_box_is_sent_compressed_and_one_too_large_is_refused_unread(
    tmp_path: Path, worker: DiskWorker
) -> None:
    disk = _Opened()
    boxes = BlackBoxFiles(tmp_path / "blackbox", 7, worker, disk)
    boxes.write("s-1-hand-1", b'{"a":1}', wall_time=0.0)
    assert zlib.decompress(await boxes.compressed("s-1-hand-1", 1000)) == b'{"a":1}\n'
    huge = boxes.path("s-1-hand-2")
    with huge.open("wb") as file:
        file.truncate(MAX_FILE + 1)  # sparse: costs no disk
    with pytest.raises(BlackBoxMissing, match="too large to send"):
        await boxes.compressed("s-1-hand-2", 1000)
    assert huge not in disk.read
    with pytest.raises(BlackBoxMissing, match=r"no black box s-1-hand-9 \(kept 7 days\)"):
        await boxes.compressed("s-1-hand-9", 1000)
    await boxes.close()
