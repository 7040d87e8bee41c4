"""The simulated MCU on real pseudo-terminals (and TCP), reached like a real table."""

import asyncio
from collections import Counter
from pathlib import Path

import pytest

from firmware_bridge.cobs import cobs_decode
from firmware_bridge.crc import crc16
from firmware_bridge.errors import ProtocolMismatch
from firmware_bridge.events import Connected, Disconnected, Resynced
from firmware_bridge.frame import Flag, Frame, encode_frame
from firmware_bridge.link import Link, LinkSettings
from firmware_bridge.messages import (
    BuildWalls,
    Dice,
    LinkAck,
    LowerPlatform,
    Motion,
    MotionDone,
    Outcome,
    Ping,
    QueryStatus,
    RaiseWalls,
    RollDice,
    TileSetKind,
    WallBuilt,
    WallTile,
    Zone,
    ZoneInventory,
)
from firmware_bridge.serial_port import serial_opener
from firmware_bridge.sim.table import SimulatedTable
from firmware_bridge.sim.versions import written_as
from tests.firmware_bridge.conftest import FAST


async def test_full_build_raise_dice_cycle_over_a_pty(sim: SimulatedTable) -> None:
    async with Link(serial_opener(await sim.serve_pty()), FAST) as link:
        events = link.subscribe(WallTile, WallBuilt, MotionDone, Dice, ZoneInventory)
        await link.request(BuildWalls(TileSetKind.NO_FLOWERS_136, 34, 2, 60_000))
        stream = await events.until(MotionDone, within=5)
        assert stream[-1] == MotionDone(Motion.BUILD, Outcome.DONE)
        tiles = [e for e in stream if isinstance(e, WallTile)]
        sides = [e for e in stream if isinstance(e, WallBuilt)]
        assert sides == [WallBuilt(side, 34) for side in range(4)]
        faces = Counter(sim.tileset().tile_of()[tile.uid] for tile in tiles)
        assert len(tiles) == 136 and len({tile.uid for tile in tiles}) == 136
        assert set(faces.values()) == {4} and len(faces) == 34
        await link.request(RaiseWalls(10_000))
        assert await events.next(MotionDone, within=5) == MotionDone(Motion.RAISE, Outcome.DONE)
        await link.request(RollDice(5_000))
        dice = await events.next(Dice, within=5)
        assert 1 <= dice.d1 <= 6 and 1 <= dice.d2 <= 6
        drawn = sim.draw(seat=1, side=0, stack=0, layer=1)
        hand = await events.next(ZoneInventory, within=5)
        assert hand == ZoneInventory(1, Zone.HAND, (drawn.uid,))
        await link.request(LowerPlatform(10_000))
        assert await events.next(ZoneInventory, within=5) == ZoneInventory(1, Zone.HAND, ())
        status = await link.request(QueryStatus())
        assert (status.dice_rolls, status.last_d1, status.last_d2) == (1, dice.d1, dice.d2)


async def test_device_unplugged_and_back_reconnects_and_requeries(
    software_sim: SimulatedTable, tmp_path: Path
) -> None:
    sim = software_sim
    device = tmp_path / "mahjong-mcu"
    settings = LinkSettings(min_rto=0.01, reconnect_min=0.02, reconnect_max=0.1, connect_timeout=3)
    async with Link(serial_opener(await sim.serve_pty(device)), settings) as link:
        events = link.subscribe()
        await link.request(BuildWalls(TileSetKind.WITH_FLOWERS_144, 36, 2, 60_000))
        await events.next(MotionDone, within=5)
        await link.request(RaiseWalls(10_000))
        await events.next(MotionDone, within=5)
        sim.unplug()
        assert "went away" in (await events.next(Disconnected, within=3)).reason
        tile = sim.draw(seat=3, side=2, stack=4, layer=0)
        await sim.replug()
        connected = await events.next(Connected, within=5)
        assert connected.reconnected and not connected.mcu_reset
        seen = await events.until(Resynced, within=5)
        assert ZoneInventory(3, Zone.HAND, (tile.uid,)) in seen
        assert (await link.request(Ping(9))).token == 9
        assert link.stats().reconnects == 1


async def test_a_firmware_with_another_message_table_is_a_clear_error() -> None:
    sim = SimulatedTable(seed=2, speed=0, inventory_period=None, table_hash=0xDEADBEEF)
    async with sim:
        link = Link(serial_opener(await sim.serve_pty()), FAST)
        with pytest.raises(ProtocolMismatch, match="message table is deadbeef") as mismatch:
            await link.start()
        assert "flash the firmware built from this release" in str(mismatch.value)


async def test_a_table_still_on_protocol_1_firmware_is_told_to_update_its_firmware() -> None:
    """A table on the old firmware cannot read the host's frames and answers nothing; the
    frames it sends by itself (zone inventories, NAKs) are recognised as protocol 1."""
    sim = SimulatedTable(seed=2, speed=0, inventory_period=0.05, protocol_version=1)
    async with sim:
        link = Link(serial_opener(await sim.serve_pty()), FAST)
        with pytest.raises(ProtocolMismatch, match="protocol version 1, this daemon 2") as mismatch:
            await link.start()
        assert mismatch.value.table_version == 1
        assert "update the table's firmware" in str(mismatch.value)
        assert not link.connected and link.stats().frame_errors >= 1


async def test_a_table_on_a_newer_protocol_says_so_at_the_handshake() -> None:
    """The handshake is read the same in every version: a newer table tells its version, and
    the advice is to update the Pi's software, not the table."""
    sim = SimulatedTable(seed=2, speed=0, inventory_period=None, protocol_version=3)
    async with sim:
        link = Link(serial_opener(await sim.serve_pty()), FAST)
        with pytest.raises(ProtocolMismatch, match="protocol version 3, this daemon 2") as mismatch:
            await link.start()
        assert mismatch.value.table_version == 3
        assert "update the mahjong-table software on this Pi" in str(mismatch.value)


async def test_tcp_url_reaches_the_same_mcu(software_sim: SimulatedTable) -> None:
    url = await software_sim.serve_tcp()
    assert url.startswith("socket://127.0.0.1:")
    async with Link(serial_opener(url), FAST) as link:
        assert (await link.request(Ping(77))).token == 77


async def test_a_daemon_still_on_protocol_1_hears_the_table_version_in_its_own_layout(
    sim: SimulatedTable,
) -> None:
    """A table updated before its Pi: the old daemon's identify (protocol 1's layout) is
    answered by an empty link_ack in that layout carrying version 2, which an old daemon
    reports as a protocol mismatch instead of hearing nothing."""
    pieces: asyncio.Queue[bytes] = asyncio.Queue()
    pending = bytearray()

    class OldDaemon:
        def data_received(self, data: bytes) -> None:
            pending.extend(data)
            *whole, rest = bytes(pending).split(b"\0")
            pending[:] = rest
            for piece in filter(None, whole):
                pieces.put_nowait(piece)

        def connection_lost(self, exc: Exception | None) -> None:
            """Nothing to do."""

    port = await sim.opener()(OldDaemon())
    try:
        port.write(b"\0" + written_as(encode_frame(Frame(0x01, b"", 0, 0, Flag.SYNC)), 1))
        async with asyncio.timeout(5):
            while not _protocol_1_layout(body := cobs_decode(await pieces.get())):
                pass  # a frame of protocol 2 the table sent by itself (its boot event)
    finally:
        port.close()
    assert body[0] == 2 and body[4] == LinkAck.TYPE and len(body) == 9


def _protocol_1_layout(body: bytes) -> bool:
    """Version u8, flags, seq, ack, type, length u16, payload, CRC-16 little-endian."""
    return (
        len(body) >= 9
        and body[5] | body[6] << 8 == len(body) - 9
        and crc16(body[:-2]) == int.from_bytes(body[-2:], "little")
    )
