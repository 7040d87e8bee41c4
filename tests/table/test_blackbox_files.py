"""Black boxes on disk: one file per hand, old ones pruned after the kept days, and a disk
that refuses writes is counted and logged while play goes on."""

import os
from pathlib import Path

import pytest

from controller.table.blackbox_files import PRUNE_EVERY_S, BlackBoxFiles

DAY = 86_400.0


def test_each_hand_gets_its_own_file_and_old_boxes_are_pruned(tmp_path: Path) -> None:
    boxes = BlackBoxFiles(tmp_path / "blackbox", keep_days=2)
    boxes.write("s-1-hand-1", b'{"a":1}', wall_time=10 * DAY)
    boxes.write("s-1-hand-1", b'{"b":2}', wall_time=10 * DAY)
    old = boxes.path("s-1-hand-1")
    boxes.flush()  # the runner flushes at every tick
    assert old.read_bytes() == b'{"a":1}\n{"b":2}\n'
    os.utime(old, (7 * DAY, 7 * DAY))
    boxes.write("s-1-hand-2", b"{}", wall_time=10 * DAY + 60)
    assert old.exists(), "old boxes are looked for at most hourly"
    boxes.write("s-1-hand-3", b"{}", wall_time=10 * DAY + PRUNE_EVERY_S)
    assert not old.exists(), "three days old, two kept"
    assert boxes.path("s-1-hand-3").exists()
    assert boxes.path("../../etc/x").parent == tmp_path / "blackbox", "names cannot climb out"
    boxes.close()


def test_a_disk_that_refuses_writes_is_counted_not_raised(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the directory should be")
    boxes = BlackBoxFiles(blocker / "blackbox", keep_days=30)
    boxes.write("s-1-hand-1", b"{}", wall_time=0.0)
    boxes.write("s-1-hand-1", b"{}", wall_time=0.0)
    assert boxes.failures == 2
    assert len([r for r in caplog.records if "black box" in r.getMessage()]) == 1
