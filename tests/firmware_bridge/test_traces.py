"""Recorded conversations with the software MCU played back through the link: the link must
write exactly what it wrote when they were recorded, and decode the same events."""

from firmware_bridge.events import EventGap, Resynced
from firmware_bridge.link import Link
from firmware_bridge.messages import (
    Dice,
    Motion,
    MotionDone,
    Outcome,
    Ping,
    WallBuilt,
    WallSide,
    WallTile,
)
from tests.firmware_bridge.traces import CONVERSATIONS, QUIET, ReplayPort, load


async def replay(name: str) -> tuple[ReplayPort, list[object]]:
    """Hold the recorded conversation against its trace; returns the port and what arrived."""
    port = ReplayPort(load(name))
    async with Link(port.opener(), QUIET) as link:
        heard = link.subscribe()
        await CONVERSATIONS[name](link, None)
        items: list[object] = list(heard.pending())
    assert port.mismatches == []
    assert port.finished, f"stopped at step {port.position} of {len(port.steps)}"
    return port, items


async def test_a_recorded_window_of_pings_replays_exactly() -> None:
    port, _ = await replay("pings")
    assert sum(step.direction == "tx" for step in port.steps) == 11, "identify and ten pings"


async def test_a_recorded_build_decodes_every_tile_and_motion() -> None:
    _, items = await replay("build_and_raise")
    tiles = [item for item in items if isinstance(item, WallTile)]
    assert len(tiles) == 136
    assert len({(t.side, t.stack, t.layer) for t in tiles}) == 136
    assert [item.side for item in items if isinstance(item, WallBuilt)] == [0, 1, 2, 3]
    motions = [item for item in items if isinstance(item, MotionDone)]
    assert motions == [
        MotionDone(Motion.BUILD, Outcome.DONE),
        MotionDone(Motion.RAISE, Outcome.DONE),
        MotionDone(Motion.DICE, Outcome.DONE),
    ]
    assert sum(isinstance(item, Dice) for item in items) == 1


async def test_recorded_lost_events_are_a_gap_then_a_full_re_read() -> None:
    _, items = await replay("lost_events")
    gaps = [item for item in items if isinstance(item, EventGap)]
    assert gaps == [EventGap(2, number=1)]
    assert sum(isinstance(item, WallTile) for item in items) == 134, "two tile events lost"
    seen = {(t.side, t.stack, t.layer) for t in items if isinstance(t, WallTile)}
    [side_0] = [item for item in items if isinstance(item, WallSide) and item.side == 0]
    reread = {(0, slot.stack, slot.layer) for slot in side_0.slots}
    assert reread - seen == {(0, 0, 0), (0, 0, 1)}, "the re-read has the two lost tiles"
    assert isinstance(items[-1], Resynced)


async def test_a_link_that_writes_something_else_is_caught() -> None:
    port = ReplayPort(load("pings"))
    async with Link(port.opener(), QUIET) as link:
        await link.request(Ping(99))
    assert port.mismatches and "recorded" in port.mismatches[0]
