"""The link against the simulated MCU: replies, typed errors, gaps, resets, timeouts.

Tests that take `sim`, `link`, `hardware_link` or `mcu_firmware` run against the software MCU
and against the C firmware's host build (see conftest.py)."""

import asyncio
from pathlib import Path

import pytest

from controller.sim.virtual_time import run_virtual
from firmware_bridge.errors import CommandRejected, CommandTimeout, LinkDown, MessageError
from firmware_bridge.events import (
    Connected,
    Disconnected,
    EventGap,
    Resynced,
    Subscription,
    ZonesRead,
)
from firmware_bridge.fields import decode_payload, encode_payload
from firmware_bridge.frame import Flag, Frame, FrameDecoder, encode_frame
from firmware_bridge.link import Link, LinkSettings
from firmware_bridge.messages import (
    SIDES,
    ZONE_PAGE_UIDS,
    BuildWalls,
    Dice,
    Fault,
    FaultCleared,
    FaultCode,
    Identify,
    IdentifyReply,
    Motion,
    MotionDone,
    Outcome,
    Ping,
    Pong,
    QueryStatus,
    QueryWall,
    QueryZone,
    QueryZonePage,
    RaiseWalls,
    Rejected,
    RejectReason,
    Reset,
    ResetCause,
    RollDice,
    Status,
    TileSetKind,
    WallSide,
    Zone,
    ZoneInventory,
    ZonePage,
)
from firmware_bridge.port import Port, PortListener
from firmware_bridge.sim.faults import Faults
from firmware_bridge.sim.table import SimulatedTable
from tests.firmware_bridge.conftest import FAST, settings_for

LOST = 3
"""How often the reply to the held query is lost before one gets through."""


async def test_handshake_reports_who_the_mcu_is(hardware_link: Link) -> None:
    link = hardware_link
    assert link.connected
    assert link.identify is not None
    assert (link.identify.seats, link.identify.zones_per_seat) == (4, 3)
    assert link.identify.reset_cause is ResetCause.POWER_ON


async def test_pings_come_back_and_are_counted(hardware_link: Link) -> None:
    link = hardware_link
    replies = [await link.request(Ping(token)) for token in range(20)]
    assert [reply.token for reply in replies] == list(range(20))
    stats = link.stats()
    assert stats.rtt_samples >= 20 and stats.rtt_ms_p50 is not None
    assert stats.crc_errors == stats.retransmits == 0


async def test_a_command_whose_value_does_not_fit_fails_where_awaited_and_goes_nowhere(
    sim: SimulatedTable, link: Link
) -> None:
    # Asked for together, as gather does: the bad one must not stop the others being asked.
    too_big, good = link.request(Ping(2**32)), link.request(Ping(7))
    with pytest.raises(MessageError):
        await too_big
    assert (await good).token == 7
    assert (await link.request(Ping(8))).token == 8
    await asyncio.wait_for(sim.mcu.told(lambda ran: Ping(8) in ran), 30)
    assert [c.token for c in sim.mcu.commands if isinstance(c, Ping)] == [7, 8]


async def test_more_commands_than_the_window_all_run_once_in_order(
    sim: SimulatedTable, link: Link
) -> None:
    replies = await asyncio.gather(*(link.request(Ping(token)) for token in range(50)))
    assert [reply.token for reply in replies] == list(range(50))
    await asyncio.wait_for(sim.mcu.told(lambda ran: Ping(49) in ran), 30)
    assert [c.token for c in sim.mcu.commands if isinstance(c, Ping)] == list(range(50))


async def test_a_refused_command_is_a_typed_error_with_the_reason(hardware_link: Link) -> None:
    link = hardware_link
    with pytest.raises(CommandRejected, match="NOT_READY") as refused:
        await link.request(RaiseWalls(5000))
    assert refused.value.reason == RejectReason.NOT_READY


async def test_a_motor_command_without_a_maximum_duration_is_refused(hardware_link: Link) -> None:
    link = hardware_link
    with pytest.raises(CommandRejected, match="BAD_ARGUMENT"):
        await link.request(RollDice(0))


async def test_lost_events_are_noticed_and_the_state_is_queried_again(
    sim: SimulatedTable, link: Link
) -> None:
    events = link.subscribe()
    await walls_up(link, events)
    sim.drop_next_events(1)
    tile = sim.draw(seat=2, side=0, stack=3, layer=1)
    sim.discard(seat=2, uid=tile.uid)
    gap = await events.next(EventGap, within=2)
    assert gap.missed == 1
    snapshots = []
    async for item in events:
        if isinstance(item, Resynced):
            break
        snapshots.append(item)
    assert any(isinstance(item, Status) for item in snapshots)
    assert sum(isinstance(item, WallSide) for item in snapshots) == 4
    river = [i for i in snapshots if isinstance(i, ZoneInventory) and (i.seat, i.zone) == (2, 2)]
    assert river[-1] == ZoneInventory(2, Zone.DISCARD, (tile.uid,))


async def test_a_trailing_lost_event_is_caught_by_the_heartbeat(sim: SimulatedTable) -> None:
    settings = LinkSettings(heartbeat_interval=0.02, min_rto=0.01, connect_timeout=2)
    async with Link(sim.opener(), settings) as link:
        events = link.subscribe()
        sim.drop_next_events(1)
        await link.request(RollDice(5000))
        assert (await events.next(EventGap, within=2)).missed >= 1
        await events.next(Resynced, within=2)


async def test_mcu_restart_is_detected_and_in_flight_state_requeried(
    sim: SimulatedTable, link: Link
) -> None:
    events = link.subscribe()
    await link.request(Reset())
    connected = await events.next(Connected, within=3)
    assert connected.mcu_reset and connected.reconnected
    assert connected.identify.reset_cause is ResetCause.SOFTWARE
    await events.next(Resynced, within=3)
    assert link.stats().mcu_resets == 1
    assert (await link.request(Ping(5))).token == 5


async def test_an_unanswered_command_is_a_timeout_then_the_link_heals(
    sim: SimulatedTable, link: Link
) -> None:
    events = link.subscribe()
    sim.set_line_noise(drop=1.0)
    tries = link.settings.max_tries
    with pytest.raises(CommandTimeout, match=f"Ping went unanswered after {tries} tries"):
        # The C firmware takes the noise on its own pipe: a ping sent before it has may
        # still be answered; the next is not.
        for token in (1, 2):
            await link.request(Ping(token))
    await events.next(Disconnected, within=1)
    with pytest.raises(LinkDown):
        await link.request(Ping(4))
    sim.set_line_noise(drop=0.0)
    await events.next(Connected, within=3)
    assert (await link.request(Ping(3))).token == 3
    assert link.stats().reconnects == 1


async def test_mcu_stops_motors_when_the_heartbeat_stops(mcu_firmware: Path | None) -> None:
    sim = SimulatedTable(
        seed=1, speed=0.01, heartbeat_timeout=0.2, inventory_period=None, firmware=mcu_firmware
    )
    quiet = LinkSettings(heartbeat_interval=30, silence_timeout=60, connect_timeout=2)
    async with sim, Link(sim.opener(), quiet) as link:
        events = link.subscribe()
        await link.request(BuildWalls(TileSetKind.WITH_FLOWERS_144, 36, 2, 600_000))
        stopped = await events.next(MotionDone, within=3)
        assert stopped == MotionDone(Motion.BUILD, Outcome.STOPPED)
        assert await events.next(Fault, within=1) == Fault(FaultCode.HEARTBEAT_LOST, 0)
        status = await link.request(QueryStatus())
        assert status.motors_running == 0
        assert await events.next(FaultCleared, within=1) == FaultCleared(
            FaultCode.HEARTBEAT_LOST, 0
        )


@pytest.mark.looptime
async def test_lossy_line_delivers_every_command_exactly_once_in_order() -> None:
    """10 % of the bytes damaged in both directions: every command runs once, in order.

    Runs on loop time (looptime), so the real retransmission timings cost no wall time."""
    sim = SimulatedTable(seed=11, speed=0, faults=Faults(corrupt=0.10), inventory_period=None)
    patient = LinkSettings(max_tries=400, max_rto=0.2, silence_timeout=600, connect_timeout=600)
    async with sim, Link(sim.memory_opener(), patient) as link:
        replies = await asyncio.gather(*(link.request(Ping(token)) for token in range(30)))
        assert [reply.token for reply in replies] == list(range(30))
        assert [c.token for c in sim.mcu.commands if isinstance(c, Ping)] == list(range(30))
        stats = link.stats()
        assert stats.crc_errors > 0 and stats.retransmits > 0
        assert stats.reconnects == 0


def test_settings_refuse_a_window_larger_than_the_mcu_keeps() -> None:
    with pytest.raises(ValueError, match="window"):
        LinkSettings(window=64)


async def test_connecting_to_nothing_fails_with_a_plain_reason() -> None:
    sim = SimulatedTable(seed=1, speed=0, inventory_period=None)
    opener = sim.memory_opener()
    sim.unplug()
    with pytest.raises(LinkDown, match="unplugged"):
        await Link(opener, LinkSettings(connect_timeout=0.3)).start()


async def test_late_replies_cause_resends_but_each_command_runs_once() -> None:
    faults = Faults(late_reply=0.5, late_reply_s=0.03)
    sim = SimulatedTable(seed=4, speed=0, faults=faults, inventory_period=None)
    async with sim, Link(sim.memory_opener(), LinkSettings(min_rto=0.01)) as link:
        replies = await asyncio.gather(*(link.request(Ping(token)) for token in range(20)))
        assert [reply.token for reply in replies] == list(range(20))
        assert [c.token for c in sim.mcu.commands if isinstance(c, Ping)] == list(range(20))
        stats = link.stats()
        assert stats.retransmits > 0 and stats.reconnects == 0


async def test_a_watchdog_reset_of_the_mcu_fails_nothing_silently(
    sim: SimulatedTable, link: Link
) -> None:
    events = link.subscribe(Connected, Resynced)
    sim.reset_mcu()
    connected = await events.next(Connected, within=3)
    assert connected.mcu_reset and connected.identify.reset_cause is ResetCause.WATCHDOG
    assert connected.identify.boot_count == 2
    await events.next(Resynced, within=3)


async def test_a_zone_read_never_delivers_a_reply_older_than_the_events_before_it(
    sim: SimulatedTable,
) -> None:
    """The first reply to a zone read is lost; the tile is put on the zone before the read is
    sent again, and the MCU resends the reply it kept (without the tile). That reply does not
    undo the event; the zone is read again."""
    tile = sim.spare_tile()
    lost: list[Frame] = []

    def line(listener: PortListener) -> PortListener:
        decoder = FrameDecoder()

        class Lossy:
            def data_received(self, data: bytes) -> None:
                for frame in decoder.feed(data):
                    assert isinstance(frame, Frame), "a clean line"
                    reply = frame.flags & Flag.RESPONSE and frame.type == ZonePage.TYPE
                    if reply and not lost:
                        lost.append(frame)
                        sim.put(tile, 0, Zone.HAND)  # its inventory event follows
                        continue
                    listener.data_received(encode_frame(frame))

            def connection_lost(self, exc: Exception | None) -> None:
                listener.connection_lost(exc)

        return Lossy()

    opener = sim.opener()
    async with Link(lambda listener: opener(line(listener)), settings_for(sim)) as link:
        events = link.subscribe(ZoneInventory, ZonesRead)
        await link.read_zones(1.0)
        seen = await events.until(ZonesRead, within=3)
    hand = [item for item in seen if isinstance(item, ZoneInventory) and item.zone is Zone.HAND]
    assert lost and hand[0].seat == 0, "the event for seat 0's hand, then the zones read"
    assert [item.uids for item in hand if item.seat == 0] == [(tile.uid,), (tile.uid,)]
    assert link.stats().late_replies == 1


async def test_in_play_a_re_query_reads_the_zones_but_not_the_walls_read_since_the_build(
    sim: SimulatedTable, link: Link
) -> None:
    events = link.subscribe()
    await walls_up(link, events)

    async def lose_an_event_in_play(seat: int) -> list[object]:
        sim.drop_next_events(1)
        tile = sim.draw(seat=seat, side=0, stack=seat, layer=1)
        sim.discard(seat=seat, uid=tile.uid)
        await events.next(EventGap, within=2)
        return [type(item) for item in await events.until(Resynced, within=2)]

    first = await lose_an_event_in_play(2)
    assert first.count(WallSide) == 4, "the walls were not read since the handshake"
    second = await lose_an_event_in_play(3)
    assert WallSide not in second, "nothing was built since: the walls stand as read"
    assert second.count(ZoneInventory) >= 12 and Status in second


async def test_a_message_naming_a_seat_or_die_the_table_has_not_is_refused(
    sim: SimulatedTable, link: Link
) -> None:
    # A damaged frame whose checksum still matches: the hand cycle indexes seats and walls by
    # these numbers, so such a message is a protocol error, never handed on.
    events = link.subscribe(ZoneInventory, Dice, Fault)
    errors = link.stats().protocol_errors
    for wrong in (ZoneInventory(9, Zone.HAND, (1,)), Dice(0, 7)):
        sim.mcu.send_event(wrong)
    sim.mcu.send_event(Fault(FaultCode.JAM, 1))
    assert isinstance(await events.get(), Fault), "the refused ones never came through"
    assert link.stats().protocol_errors == errors + 2


async def test_a_watcher_sees_each_event_as_it_comes_and_one_that_fails_stops_nothing(
    sim: SimulatedTable, link: Link
) -> None:
    seen: list[object] = []

    def broken(item: object) -> None:
        raise RuntimeError("a broken watcher")

    link.listen(broken)
    stop = link.listen(seen.append)
    events = link.subscribe()
    await link.request(BuildWalls(TileSetKind.NO_FLOWERS_136, 34, 2, 60_000))
    done = await events.next(MotionDone, within=2)
    assert done in seen  # before the subscriber had it
    assert link.connected
    assert (await link.request(Ping(7))).token == 7
    stop()
    count = len(seen)
    await link.request(RaiseWalls(10_000))
    await events.next(MotionDone, within=2)
    assert len(seen) == count


async def walls_up(link: Link, events: Subscription) -> None:
    """Build the walls and raise them, as before play."""
    await link.request(BuildWalls(TileSetKind.NO_FLOWERS_136, 34, 2, 60_000))
    await events.next(MotionDone, within=2)
    await link.request(RaiseWalls(10_000))
    await events.next(MotionDone, within=2)


def test_the_heartbeat_goes_once_an_interval_while_it_is_answered() -> None:
    # The protocol: a heartbeat every 500 ms (a fifth of that only while one is unanswered).
    # Ten seconds of an idle, healthy link on virtual time: twenty heartbeats, not a hundred.
    async def idle_link() -> int:
        table = SimulatedTable(seed=7, speed=0, inventory_period=None)
        async with table, Link(table.memory_opener(), FAST) as link:
            before = link.stats().frames_sent
            await asyncio.sleep(10.0)
            return link.stats().frames_sent - before

    assert FAST.heartbeat_interval == 0.5
    assert 19 <= run_virtual(idle_link) <= 21


async def test_the_state_re_read_comes_in_frames_small_enough_for_a_noisy_line(
    sim: SimulatedTable,
) -> None:
    """A river of 30 tiles is 250 bytes in one zone inventory, a frame a line that damages
    0.5 % of its bytes corrupts more often than not: the re-read after lost events asks for
    the zones page by page and joins the pages into the same inventory."""
    river = next(iter(sim.model.sets.values()))[:30]
    for tile in river:
        sim.put(tile, 1, Zone.DISCARD)
    replies: list[int] = []

    def line(listener: PortListener) -> PortListener:
        decoder = FrameDecoder()

        class Watched:
            def data_received(self, data: bytes) -> None:
                for frame in decoder.feed(data):
                    if isinstance(frame, Frame) and frame.flags & Flag.RESPONSE:
                        replies.append(len(frame.payload))
                listener.data_received(data)

            def connection_lost(self, exc: Exception | None) -> None:
                listener.connection_lost(exc)

        return Watched()

    opener = sim.opener()
    async with Link(lambda listener: opener(line(listener)), settings_for(sim)) as link:
        events = link.subscribe(ZoneInventory, Resynced, EventGap)
        replies.clear()
        sim.drop_next_events(1)
        spare = next(iter(sim.model.sets.values()))[30:32]
        sim.put(spare[0], 0, Zone.HAND)  # lost
        sim.put(spare[1], 0, Zone.MELD)  # its number shows the loss
        seen = await events.until(Resynced, within=5)
    assert any(isinstance(item, EventGap) for item in seen)
    [inventory] = [i for i in seen if isinstance(i, ZoneInventory) and (i.seat, i.zone) == (1, 2)]
    assert inventory.uids == tuple(sorted(tile.uid for tile in river))
    assert replies and max(replies) <= 4 + 8 * ZONE_PAGE_UIDS, "every reply a small frame"


async def test_a_zone_is_read_page_by_page_from_the_list_its_first_page_kept(
    sim: SimulatedTable, link: Link
) -> None:
    """protocol.md section 2: the first page reads the antenna and keeps the zone's list, later
    pages come from that list (a tile laid meanwhile waits for the next first page), a page past
    the end has no UIDs, and a count outside 1..MJ_ZONE_PAGE_UIDS or a seat the table has not is
    BAD_ARGUMENT with the value as its detail."""
    events = link.subscribe(ZoneInventory)
    tiles = next(iter(sim.model.sets.values()))[:11]

    async def laid(count: int) -> None:
        inventory = await events.next(ZoneInventory, within=3)
        while (inventory.seat, inventory.zone, len(inventory.uids)) != (2, Zone.DISCARD, count):
            inventory = await events.next(ZoneInventory, within=3)

    for tile in tiles[:10]:
        sim.put(tile, 2, Zone.DISCARD)
    await laid(10)
    first = await link.request(QueryZonePage(2, Zone.DISCARD, 0, ZONE_PAGE_UIDS))
    sim.put(tiles[10], 2, Zone.DISCARD)
    await laid(11)
    second = await link.request(QueryZonePage(2, Zone.DISCARD, 8, ZONE_PAGE_UIDS))
    beyond = await link.request(QueryZonePage(2, Zone.DISCARD, 16, ZONE_PAGE_UIDS))
    anew = await link.request(QueryZonePage(2, Zone.DISCARD, 0, 1))
    assert (first.total, first.first, second.total, second.first) == (10, 0, 10, 8)
    assert first.uids + second.uids == tuple(sorted(tile.uid for tile in tiles[:10]))
    assert (beyond.total, beyond.uids) == (10, ())
    assert (anew.total, anew.uids) == (11, (min(tile.uid for tile in tiles),))
    for wrong, detail in ((QueryZonePage(2, Zone.HAND, 0, 0), 0),
                          (QueryZonePage(2, Zone.HAND, 0, ZONE_PAGE_UIDS + 1), 9),
                          (QueryZonePage(4, Zone.HAND, 0, 1), 4)):  # fmt: skip
        with pytest.raises(CommandRejected) as refused:
            await link.request(wrong)
        assert (refused.value.reason, refused.value.detail) == (RejectReason.BAD_ARGUMENT, detail)


async def test_the_firmware_answers_a_repeated_read_it_did_not_keep_by_reading_again(
    firmware_host: Path,
) -> None:
    """protocol.md: an MCU may keep only short replies and answer a repeated read by reading
    again. The C firmware keeps replies of up to 35 bytes: a hand of five tiles is longer. Its
    first reply is lost, a sixth tile is laid meanwhile, and the repeat reads six."""
    sim = SimulatedTable(seed=7, speed=0, inventory_period=None, firmware=firmware_host)
    replies: list[Frame] = []

    def line(listener: PortListener) -> PortListener:
        decoder = FrameDecoder()

        class LoseTheFirstHandRead:
            def data_received(self, data: bytes) -> None:
                for frame in decoder.feed(data):
                    assert isinstance(frame, Frame), "a clean line"
                    reply = frame.flags & Flag.RESPONSE and frame.type == ZoneInventory.TYPE
                    if reply:
                        replies.append(frame)
                        if len(replies) == 1:
                            sim.draw(seat=0, side=1, stack=0, layer=1)  # a sixth tile
                            continue
                    listener.data_received(encode_frame(frame))

            def connection_lost(self, exc: Exception | None) -> None:
                listener.connection_lost(exc)

        return LoseTheFirstHandRead()

    async with sim:
        opener = sim.opener()
        async with Link(lambda listener: opener(line(listener)), settings_for(sim)) as link:
            events = link.subscribe(MotionDone, ZoneInventory)
            await walls_up(link, events)
            sim.draw_block(0, [(1, stack, 0) for stack in range(5)])
            assert len((await events.next(ZoneInventory, within=2)).uids) == 5
            hand = await link.request(QueryZone(0, Zone.HAND))
    assert len(hand.uids) == 6
    first, again = replies[0], replies[1]
    assert again.seq == first.seq, "the repeat of the same command"
    assert (len(first.payload) - 2) // 8 == 5 and (len(again.payload) - 2) // 8 == 6


async def test_a_frame_that_is_no_command_is_refused_with_the_reason_the_spec_names(
    sim: SimulatedTable,
) -> None:
    """protocol.md section 4: UNKNOWN_COMMAND (detail: the type) for a type that is no host
    command, whatever its payload; BAD_ARGUMENT (detail: the type) for a command whose payload
    has the wrong length or an enumeration out of range. Raw frames on the MCU's line."""
    replies: asyncio.Queue[Frame] = asyncio.Queue()
    decoder = FrameDecoder()

    class Listener:
        def data_received(self, data: bytes) -> None:
            for frame in decoder.feed(data):
                if isinstance(frame, Frame) and frame.flags & Flag.RESPONSE:
                    replies.put_nowait(frame)

        def connection_lost(self, exc: Exception | None) -> None:
            """Nothing to do."""

    port = await sim.opener()(Listener())
    sent = [
        Frame(Identify.TYPE, b"", 0, 0, Flag.SYNC),
        Frame(Pong.TYPE, b"\1\2\3\4", 1),  # a reply's type with its own payload
        Frame(Pong.TYPE, b"\1", 2),  # a reply's type with a payload it cannot have
        Frame(0x7F, b"", 3),  # no message at all
        Frame(Ping.TYPE, b"\1\2", 4),  # a ping two bytes short
        Frame(QueryZone.TYPE, b"\0\7", 5),  # zone 7
        Frame(QueryZonePage.TYPE, b"\0\7\0\1", 6),  # zone 7
    ]
    port.write(b"\0" + b"".join(encode_frame(frame) for frame in sent))
    answers = [await asyncio.wait_for(replies.get(), 3) for _ in sent]
    port.close()
    assert [(a.seq, a.type) for a in answers[:1]] == [(0, IdentifyReply.TYPE)]
    refusals = [(a.seq, decode_payload(a.type, a.payload)) for a in answers[1:]]
    assert refusals == [
        (1, Rejected(RejectReason.UNKNOWN_COMMAND, Pong.TYPE)),
        (2, Rejected(RejectReason.UNKNOWN_COMMAND, Pong.TYPE)),
        (3, Rejected(RejectReason.UNKNOWN_COMMAND, 0x7F)),
        (4, Rejected(RejectReason.BAD_ARGUMENT, Ping.TYPE)),
        (5, Rejected(RejectReason.BAD_ARGUMENT, QueryZone.TYPE)),
        (6, Rejected(RejectReason.BAD_ARGUMENT, QueryZonePage.TYPE)),
    ]


async def test_a_re_query_is_asked_again_only_once_its_whole_batch_is_answered(
    software_sim: SimulatedTable,
) -> None:
    """One query of a state re-query fails (the MCU refuses a zone's page) while another query
    of the same batch is still unanswered (the reply to the last wall query is lost on the
    line, three times): the re-query is asked again, but only once every query of the first
    batch has its answer. Never two batches on the line at once: a second one would read each
    zone's antenna again while the first batch still joins that zone's pages."""
    sim = software_sim
    armed = False
    held: list[int] = []
    """The last wall query of the first batch, while its reply is kept off the line."""
    sent: dict[int, int] = {}
    """How often the host sent each command (by sequence number) since armed."""
    statuses: list[int] = []
    """The status queries the host sent: the first command of each batch."""
    while_unanswered: list[int] = []
    refused: list[int] = []

    def unanswered() -> bool:
        return bool(held) and sent[held[0]] < LOST + 1

    class Replies:  # the MCU's line to the host
        def __init__(self, listener: PortListener) -> None:
            self.listener = listener
            self.decoder = FrameDecoder()

        def data_received(self, data: bytes) -> None:
            for frame in self.decoder.feed(data):
                assert isinstance(frame, Frame), "a clean line"
                if (passed := self.changed(frame)) is not None:
                    self.listener.data_received(encode_frame(passed))

        def changed(self, frame: Frame) -> Frame | None:
            if not (armed and frame.flags & Flag.RESPONSE):
                return frame
            if frame.type == ZonePage.TYPE and not refused:
                refused.append(frame.seq)  # the first zone page asked: refused
                payload = encode_payload(Rejected(RejectReason.BAD_ARGUMENT, 0))
                return frame._replace(type=Rejected.TYPE, payload=payload)
            if held and frame.seq == held[0] and unanswered():
                return None  # lost: the host sends the query again
            return frame

        def connection_lost(self, exc: Exception | None) -> None:
            self.listener.connection_lost(exc)

    class Commands:  # the host's line to the MCU
        def __init__(self, port: Port) -> None:
            self.port = port
            self.decoder = FrameDecoder()

        def write(self, data: bytes) -> None:
            for frame in self.decoder.feed(data):
                if armed and isinstance(frame, Frame) and not frame.flags & Flag.UNSEQUENCED:
                    self.sent(frame)
            self.port.write(data)

        def sent(self, frame: Frame) -> None:
            first_time = frame.seq not in sent
            sent[frame.seq] = sent.get(frame.seq, 0) + 1
            if frame.type == QueryStatus.TYPE and first_time:
                if unanswered():
                    while_unanswered.append(frame.seq)
                statuses.append(frame.seq)
            elif frame.type == QueryWall.TYPE and not held and _side(frame) == SIDES - 1:
                held.append(frame.seq)

        def close(self) -> None:
            self.port.close()

    opener = sim.opener()

    async def watched(listener: PortListener) -> Port:
        return Commands(await opener(Replies(listener)))

    async with Link(watched, FAST) as link:
        events = link.subscribe(Resynced)
        armed = True
        link.resync("a test")
        await events.next(Resynced, within=5)
    assert refused and held, "a query of the first batch failed while another was unanswered"
    assert sent[held[0]] == LOST + 1, "the held query was answered once sent again"
    assert while_unanswered == [], "a second batch went out while the first was in flight"
    assert len(statuses) == 2, "the re-query was asked again, once"


def _side(frame: Frame) -> int:
    """The side a wall query asks about."""
    query = decode_payload(frame.type, frame.payload)
    assert isinstance(query, QueryWall)
    return query.side
