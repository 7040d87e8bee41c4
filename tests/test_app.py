"""The composition root: power-on starts the configured session, results reach the durable
outbox before a hand counts as over, systemd hears readiness and watchdog pings from the
loop, typed failures become faults while a bug ends the process."""

import asyncio
import socket
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

from controller.app import TableApp, serial_hardware
from controller.config import (
    GpioSection,
    MqttSection,
    OutboxSection,
    SerialSection,
    SessionSection,
    TableConfig,
    TableSection,
)
from controller.hub.contract.envelopes import ResultMessage, decode
from controller.hub.contract.hub_commands import StartSession
from controller.hub.table_side.dispatcher import CommandRefused
from controller.hub.table_side.table_report import HubSink
from controller.systemd import SystemdNotifier
from controller.table.cycle import Phase
from controller.table.log_sink import LogSink
from controller.table.ports import StatusPattern
from controller.table.runner import TableRunner
from devsupport.mosquitto import free_port
from tests.sim.rig import Rig

KEY = "0123456789abcdef0123456789abcdef"


async def test_results_are_in_the_outbox_before_the_hand_counts(
    tmp_path: Path, pins: MockFactory
) -> None:
    config = TableConfig(
        table=TableSection(id="t-7", ruleset="zung-jung"),
        session=SessionSection(players=("ann", "bo", "cy", "di"), hands=2),
        mqtt=MqttSection(url=f"mqtt://127.0.0.1:{free_port()}", result_key=KEY),
        outbox=OutboxSection(path=tmp_path / "outbox.sqlite3"),
    )
    async with Rig(tmp_path, config=config, app_sink=True) as rig:
        assert isinstance(rig.app.sink, HubSink) and rig.app.hub is not None
        outbox = rig.app.hub.outbox
        counted: list[tuple[int, int]] = []
        rig.app.runner.observe(lambda v: counted.append((v.hands_played, outbox.pending_count())))
        await rig.until_phase(Phase.SESSION_OVER, Phase.FAULT)
        pending = outbox.pending_results(10)
    assert all(stored >= played for played, stored in counted)
    results = [decode(p.payload, ResultMessage).result for p in pending]
    assert [r.hand for r in results] == [1, 2]
    seating = results[0].seating  # a WMC session: the players are seated by the draw
    assert seating is not None and results[1].seating is None
    assert seating.players_at_draw == ["ann", "bo", "cy", "di"]
    assert [[s.player for s in r.seats] for r in results] == [seating.players] * 2
    assert [r.dealer for r in results] == [0, 1]
    assert all(r.session.startswith("t-7-") for r in results)


async def test_systemd_hears_ready_status_and_watchdog(tmp_path: Path, pins: MockFactory) -> None:
    path = tmp_path / "notify.sock"
    lines: list[bytes] = []
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as server:
        server.bind(str(path))
        server.setblocking(False)
        loop = asyncio.get_running_loop()

        pinged = asyncio.Event()

        async def listen() -> None:
            while True:
                lines.append(await loop.sock_recv(server, 512))
                if lines.count(b"WATCHDOG=1") >= 2:
                    pinged.set()

        listener = asyncio.create_task(listen())
        env = {"NOTIFY_SOCKET": str(path), "WATCHDOG_USEC": "100000"}
        async with Rig(tmp_path, hands=1, notifier=SystemdNotifier(env)) as rig:
            await rig.until_phase(Phase.SESSION_OVER)
            async with asyncio.timeout(5):
                await pinged.wait()
        listener.cancel()
    assert any(line.startswith(b"READY=1") for line in lines)
    statuses = [line for line in lines if line.startswith(b"STATUS=")]
    assert b"STATUS=building: hand 1 of session " in b"".join(statuses)
    assert statuses[-1].startswith(b"STATUS=session over: hand 1 of session ")


class ReadyWitness(SystemdNotifier):
    """systemd's end of READY=1: whether diag could reach the control socket at that moment."""

    def __init__(self, control: Path) -> None:
        super().__init__({})
        self.control = control
        self.socket_answered: bool | None = None

    def ready(self, status: str = "") -> None:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
            self.socket_answered = probe.connect_ex(str(self.control)) == 0
        super().ready(status)


async def test_ready_means_diag_can_reach_the_control_socket(
    tmp_path: Path, pins: MockFactory
) -> None:
    witness = ReadyWitness(tmp_path / "control.sock")
    async with Rig(tmp_path, hands=1, notifier=witness) as rig:
        assert rig.config.control.socket == witness.control
        await rig.until_phase(Phase.SESSION_OVER)
    assert witness.socket_answered is True


async def test_a_bad_tile_set_file_is_a_fault_not_a_crash(
    tmp_path: Path, pins: MockFactory
) -> None:
    missing = tmp_path / "nowhere.toml"
    async with Rig(tmp_path, hands=1, tileset=missing) as rig:
        view = await rig.until_phase(Phase.FAULT)
        assert view.fault is not None
        assert view.fault.startswith("the tile-set file cannot be used (")
        assert view.fault.endswith("check [table] tileset")
        assert rig.panel.status is StatusPattern.FAULT
        rig.sim.buttons.press_dice()
        await rig.quiet()
        assert rig.view.phase is Phase.FAULT
        assert rig.view.notice.endswith("fix it and restart the daemon")


def test_making_the_daemon_touches_no_file(tmp_path: Path) -> None:
    outbox = tmp_path / "var" / "outbox.sqlite3"
    config = TableConfig(
        mqtt=MqttSection(url=f"mqtt://127.0.0.1:{free_port()}", result_key=KEY),
        outbox=OutboxSection(path=outbox),
        serial=SerialSection(port=str(tmp_path / "no-mcu")),
        gpio=GpioSection(enabled=False),
    )
    app = TableApp(config, serial_hardware(config))
    hub = app.hub
    try:
        assert hub is not None, "the hub link is made, its outbox not yet opened"
        assert list(tmp_path.iterdir()) == [], "no outbox, no black box folder"
    finally:
        if hub is not None:
            hub.outbox.close()
        app.disk.shutdown()


async def test_an_outbox_that_cannot_be_opened_is_a_setup_fault_and_results_go_to_the_log(
    tmp_path: Path, pins: MockFactory
) -> None:
    folder = tmp_path / "outbox.sqlite3"
    folder.mkdir()  # a folder where the file should be: SQLite cannot open it
    config = TableConfig(
        mqtt=MqttSection(url=f"mqtt://127.0.0.1:{free_port()}", result_key=KEY),
        outbox=OutboxSection(path=folder),
    )
    async with Rig(tmp_path, hands=1, config=config, app_sink=True) as rig:
        view = await rig.until_phase(Phase.FAULT)
        assert rig.app.hub is None and isinstance(rig.app.sink, LogSink)
        assert rig.app.runner.sink is rig.app.sink
        assert view.fault is not None and str(folder) in view.fault


async def test_a_failing_service_restarts_but_a_bug_ends_the_daemon(
    tmp_path: Path, pins: MockFactory
) -> None:
    calls = 0

    async def flaky(runner: TableRunner) -> None:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise OSError("the pins went away")
        raise RuntimeError("a bug")

    notices: list[str] = []
    async with Rig(tmp_path, hands=1, services=(("flaky service", flaky),)) as rig:
        rig.app.runner.observe(lambda view: notices.append(view.notice))
        with pytest.raises(ExceptionGroup) as ended:
            await rig.stopped()
    assert calls == 2
    assert ended.group_contains(RuntimeError, match="a bug")
    assert "flaky service failed (the pins went away); restarting it" in notices


async def test_the_hub_starts_and_ends_sessions(tmp_path: Path, pins: MockFactory) -> None:
    order = StartSession(session="hub-1", ruleset="sichuan", players=["a", "b", "c", "d"], hands=3)
    async with Rig(tmp_path, hands=1, players=False, seating_draw=False) as rig:
        control = rig.app.control
        await rig.until_phase(Phase.WALLS_RAISED)
        with pytest.raises(CommandRefused, match="is in play: end it first"):
            await control.start_session(order)
        await control.end_session("closing time")
        view = await rig.until_phase(Phase.SESSION_OVER)
        assert view.over_reason == "closing time"
        with pytest.raises(CommandRefused, match="no session is in play"):
            await control.pause_session("tea")
        await control.start_session(order)
        view = await rig.until(lambda v: v.session == "hub-1" and v.phase is Phase.WALLS_RAISED)
        assert (view.ruleset, view.players, view.hand) == ("sichuan", ("a", "b", "c", "d"), 1)
        assert control.status().state == "walls_raised"
