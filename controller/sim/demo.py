"""One whole session on the simulated table, watched from power-on to its end: the daemon's own
composition root with four simulated players, stopped when the session is over, when a fault
stops it, or when it makes no progress; with a hub link, kept up until the hub has acked every
result (or a bounded wait ran out)."""

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO

import msgspec

from controller.app import TableApp
from controller.config import (
    ControlSection,
    HandSection,
    MqttSection,
    OutboxSection,
    SessionSection,
    TableConfig,
    TableSection,
)
from controller.hub.contract.result import WallReveal
from controller.hub.mqtt.transport import BrokerAddress
from controller.hub.table_side.hub_link import KEY_DOUBT, HubLink
from controller.hub.table_side.table_report import hand_result
from controller.rules import get_ruleset, tile_str
from controller.sim.daemon_parts import SimulatedTable, simulated_table
from controller.sim.fault_injector import FaultInjector, FaultRecord, Injected, Technician
from controller.sim.fault_profiles import FaultProfile, HubRestarts, injections, line_faults
from controller.sim.hardware import SimOptions
from controller.sim.mistakes import Sloppiness
from controller.sim.virtual_time import LoopClock, VirtualTimeLoop
from controller.systemd import SystemdNotifier
from controller.table.cycle import Phase, TableView
from controller.table.log_sink import LogSink
from controller.table.records import FinishedHand, HandStart, IncidentRecord
from controller.table.runner import ResultSink
from firmware_bridge.sim.faults import Faults

DEMO_KEY = "simulated-table-demo-key-not-for-real-tables"
"""The key simulated tables sign with when no keys file is given (a demo recorder knows it)."""


@dataclass(frozen=True)
class Pace:
    """How fast the simulated table and its players go, and how long they may take."""

    speed: float
    """Machine time factor (0: instant)."""
    think_s: float
    """The players' pause between moves."""
    settle_s: float
    """Zone reads unchanged this long count as settled."""
    tick_s: float
    """How often the hand cycle looks at the clock."""
    stall_s: float
    """No change at the table for this long stops the session."""
    hand_budget_s: float
    """The session may take this long per hand (plus one hand's worth for power-on)."""


FAST = Pace(speed=0.0, think_s=0.0, settle_s=0.1, tick_s=0.25, stall_s=20.0, hand_budget_s=30.0)
REAL = Pace(speed=1.0, think_s=0.8, settle_s=1.5, tick_s=0.25, stall_s=180.0, hand_budget_s=900.0)


@dataclass(frozen=True)
class DemoPlan:
    """What to simulate: rules, length, dice and tags, pace, and where results go."""

    ruleset: str = "zung-jung"
    hands: int = 8
    seed: int = 0
    pace: Pace = FAST
    table: str = "sim-table"
    mqtt_url: str | None = None
    """The venue broker; None keeps results in the log."""
    key: str = DEMO_KEY
    outbox: Path | None = None
    """The table's outbox file (None: one in the scratch folder)."""
    ack_wait_s: float = 30.0
    """After the session, wait at most this long for the hub's acks."""
    sloppy: Sloppiness | None = None
    """The players' mistakes (`--habits sloppy`)."""
    ground_truth: Path | None = None
    """Where the players write what they really did (JSON lines)."""
    faults: FaultProfile = FaultProfile.NONE
    """What the session throws at the table; under noisy and hostile a technician clears
    faults, so a fault ends the session only if it cannot be cleared."""
    line: Faults | None = None
    """The line and reader faults, in place of the profile's own (None: the profile's)."""
    hub_restarts: HubRestarts | None = None
    """The session's own broker and recorder, restarted under `hostile` (None: not ours)."""
    json_results: Path | None = None
    """Write each hand's result here, one JSON line each (the payload the hub gets)."""
    hub_sessions: int = 0
    """Play this many sessions started by the hub's start commands, waiting for each (0: the
    session of this plan, started at power-on)."""
    tls: dict[str, Path | None] | None = None
    """The venue CA and this table's client certificate and key (`ca_file`, `cert_file`,
    `key_file`) for an mqtts:// broker (None: none)."""
    control_socket: Path | None = None
    """Serve `diag` on this socket (None: one in the scratch folder, so a simulation never
    takes the socket of the table's own daemon)."""

    @property
    def slow_turn_s(self) -> float:
        """How long a sloppy player's slow turn lasts (0: the players make none)."""
        sloppy = self.sloppy
        if sloppy is None or not sloppy.slow_turn:
            return 0.0
        return sloppy.slow_turn_s(get_ruleset(self.ruleset))

    @property
    def stall_s(self) -> float:
        """How long the table may make no progress before the session counts as stuck: the
        pace's limit, or longer than a slow turn (the table waits through it)."""
        return max(self.pace.stall_s, 2 * self.slow_turn_s)

    @property
    def budget_s(self) -> float:
        """The longest the session may take (slow turns take their time on top)."""
        slow = 4 * self.slow_turn_s  # a few slow turns a hand at the sloppy rate
        return (self.pace.hand_budget_s + slow) * (self.hands + 1)


def demo_config(plan: DemoPlan, scratch: Path) -> TableConfig:
    """The table's configuration for a simulated session."""
    mqtt = MqttSection()
    if plan.mqtt_url is not None:
        tls = plan.tls or {}
        mqtt = MqttSection(
            url=plan.mqtt_url,
            result_key=plan.key,
            ca_file=tls.get("ca_file"),
            cert_file=tls.get("cert_file"),
            key_file=tls.get("key_file"),
        )
    return TableConfig(
        table=TableSection(id=plan.table, ruleset=plan.ruleset),
        mqtt=mqtt,
        outbox=OutboxSection(path=plan.outbox or scratch / "outbox.sqlite3"),
        control=ControlSection(socket=plan.control_socket or scratch / "control.sock"),
        session=SessionSection(hands=plan.hands, at_power_on=not plan.hub_sessions),
        hand=HandSection(zone_settle_s=plan.pace.settle_s, zone_absence_s=plan.pace.settle_s),
    )


class Tally:
    """Passes every report on to the table's sink and keeps the results and incidents."""

    def __init__(self, on_result: Callable[[FinishedHand], None] | None = None) -> None:
        self.results: list[FinishedHand] = []
        self.incidents: list[IncidentRecord] = []
        self.on_result = on_result
        self.hub: HubLink | None = None
        """The hub link results go to (their stored payloads are what `json_out` gets)."""
        self.json_out: IO[bytes] | None = None
        self._inner: ResultSink = LogSink()

    def wrap(self, inner: ResultSink) -> ResultSink:
        """Stand in front of `inner` (TableApp's wrap_sink hook)."""
        self._inner = inner
        return self

    def hand_began(self, start: HandStart) -> None:
        """Pass on."""
        self._inner.hand_began(start)

    def incident(self, start: HandStart | None, incident: IncidentRecord) -> None:
        """Keep and pass on."""
        self.incidents.append(incident)
        self._inner.incident(start, incident)

    async def record(self, hand: FinishedHand) -> str:
        """Store through the inner sink first; only a stored result counts."""
        result_id = await self._inner.record(hand)
        # The summary needs neither the move list nor the wall.
        self.results.append(replace(hand, play=None, start=replace(hand.start, wall_order=())))
        if self.json_out is not None:
            self.json_out.write(self._payload(hand, result_id) + b"\n")
            self.json_out.flush()
        if self.on_result is not None:
            self.on_result(hand)
        return result_id

    def status(self, view: TableView) -> None:
        """Pass on."""
        self._inner.status(view)

    def _payload(self, hand: FinishedHand, result_id: str) -> bytes:
        """The signed message stored for the hub (its bytes exactly), or without a hub the
        result it would carry."""
        hub = self.hub
        if hub is not None:
            for pending in reversed(hub.outbox.pending_results(hub.pending_results)):
                if pending.id == result_id:
                    return pending.payload
        reveal = WallReveal.seal([tile_str(kind) for kind in hand.start.wall_order])
        return msgspec.json.encode(hand_result(hand, reveal))


@dataclass(frozen=True)
class HubCount:
    """Where the session's results stand with the hub."""

    url: str
    connected: bool
    hub_online: bool
    acked: int
    waiting: int
    refused: tuple[str, ...]
    """The hub's reason for each result it refused."""


@dataclass(frozen=True)
class Snapshot:
    """The session as a watcher sees it at one moment."""

    view: TableView
    results: tuple[FinishedHand, ...]
    incidents: int
    elapsed_s: float
    hub: HubCount | None


@dataclass(frozen=True)
class Outcome:
    """How the session went."""

    plan: DemoPlan
    last: Snapshot
    faults: tuple[str, ...] = ()
    incidents: tuple[IncidentRecord, ...] = ()
    stopped: str = ""
    """Why the session stopped before its end ('' when it played out)."""
    problems: tuple[str, ...] = ()
    """What went wrong after the session (results the hub did not ack)."""
    cleared: tuple[FaultRecord, ...] = ()
    """Each fault the technician saw, and how it was cleared."""
    injected: tuple[Injected, ...] = ()
    """The hostile profile's planned faults, injected or not."""

    @property
    def ok(self) -> bool:
        """The session played out and every result reached the hub (if there was one)."""
        return not self.stopped and not self.problems


class DemoSession:
    """Runs one session on the simulated table and tells how it went."""

    def __init__(
        self,
        plan: DemoPlan,
        scratch: Path,
        on_result: Callable[[FinishedHand], None] | None = None,
    ) -> None:
        self.plan = plan
        self.scratch = scratch
        self.tally = Tally(on_result)
        self.app: TableApp | None = None
        self.faults: list[str] = []
        self.technician: Technician | None = None
        self.injector: FaultInjector | None = None
        self._table: SimulatedTable | None = None
        self._started = 0.0
        self._changed_at = self._started
        self._changed = asyncio.Event()
        self._stop_reason = ""
        self._phase = Phase.IDLE
        self._over: set[str] = set()
        """Sessions that reached their end (hub sessions are counted by it)."""

    def stop(self, reason: str) -> None:
        """Stop the session early (Ctrl-C): the watcher returns at its next look."""
        self._stop_reason = reason
        self._changed.set()

    async def run(self) -> Outcome:
        """Power the table on, play the session, wait for the hub's acks, power off."""
        config = demo_config(self.plan, self.scratch)
        pace = self.plan.pace
        options = SimOptions(
            self.plan.seed,
            pace.speed,
            think_s=pace.think_s,
            sloppy=self.plan.sloppy,
            ground_truth=self.plan.ground_truth,
            faults=self.plan.line if self.plan.line is not None else line_faults(self.plan.faults),
        )
        self._table = await simulated_table(config, options, self.scratch)
        hardware = self._table.hardware
        self._add_fault_people(self._table)
        loop = asyncio.get_running_loop()
        self._started = self._changed_at = loop.time()
        self.app = app = TableApp(
            config,
            hardware,
            clock=LoopClock(loop) if isinstance(loop, VirtualTimeLoop) else None,
            notifier=SystemdNotifier({}),
            sink=None if self.plan.mqtt_url else LogSink(),
            wrap_sink=self.tally.wrap,
            tick_s=pace.tick_s,
        )
        app.runner.observe(self._seen)
        self.tally.hub = app.hub
        withdraw = self._hold_for_hub(loop, app.hub, self._waiting_for_start)
        json_out = self.plan.json_results.open("wb") if self.plan.json_results else None
        self.tally.json_out = json_out
        task = asyncio.create_task(app.run(), name="simulated table")
        try:
            stopped = await self._watch(task)
            problems = await self._acks(app.hub) if app.hub is not None else ()
            stopped = stopped or self._stop_reason  # Ctrl-C while waiting for the acks
            last = self._snapshot(app)
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            withdraw()
            if json_out is not None:
                json_out.close()
        return Outcome(
            self.plan,
            last,
            tuple(self.faults),
            tuple(self.tally.incidents),
            stopped,
            problems,
            tuple(self.technician.records) if self.technician else (),
            self.injector.report() if self.injector else (),
        )

    def _add_fault_people(self, table: SimulatedTable) -> None:
        """Under a fault profile: the technician and (hostile) the one who injects faults."""
        sim, hardware = table.simulated, table.hardware
        if self.plan.faults is FaultProfile.NONE:
            return
        self.technician = Technician(sim.buttons)
        services = [("technician", self.technician.run)]
        planned = injections(self.plan.faults, self.plan.hands, self.plan.hub_restarts is not None)
        if planned:
            self.injector = FaultInjector(sim.table, planned, self.plan.hub_restarts)
            services.append(("fault injection", self.injector.run))
        hardware.services = (*hardware.services, *services)

    def _waiting_for_start(self) -> bool:
        """True while the table waits for the hub to start its next session."""
        if not self.plan.hub_sessions or self.app is None:
            return False
        quiet = self.app.runner.view.phase in (Phase.IDLE, Phase.SESSION_OVER)
        return quiet and len(self._over) < self.plan.hub_sessions

    @staticmethod
    def _hold_for_hub(
        loop: asyncio.AbstractEventLoop,
        hub: HubLink | None,
        waiting_for_start: Callable[[], bool] = lambda: False,
    ) -> Callable[[], None]:
        """On virtual time: keep real time while the outbox writer works, and while the hub
        link is connected and waits for the broker or the recorder (the recorder's state,
        queued messages, acks), so that no timeout of the link fires early. A link that is
        down waits out its backoff on virtual time. A table waiting for the hub's start
        command waits in real time too (the hub is a real process)."""
        if hub is None or not isinstance(loop, VirtualTimeLoop):
            return lambda: None

        def waiting() -> bool:
            return (
                waiting_for_start()
                or hub.outbox.writer.busy
                or (
                    hub.connected
                    and (
                        not hub.hub_online
                        or hub.pending_results > 0
                        or bool(hub.outbox.feed_head(1))
                    )
                )
            )

        return loop.hold_while(waiting)

    def snapshot(self) -> Snapshot | None:
        """The session now (None before the table is powered on)."""
        return None if self.app is None else self._snapshot(self.app)

    def _snapshot(self, app: TableApp) -> Snapshot:
        hub = app.hub
        return Snapshot(
            app.runner.view,
            tuple(self.tally.results),
            len(self.tally.incidents),
            asyncio.get_running_loop().time() - self._started,
            None if hub is None else hub_count(hub, self.plan),
        )

    def _seen(self, view: TableView) -> None:
        self._changed_at = asyncio.get_running_loop().time()
        if view.phase is Phase.SESSION_OVER and view.session:
            self._over.add(view.session)
        if view.phase is Phase.FAULT and self._phase is not Phase.FAULT:
            self.faults.append(view.fault or "fault")
        sim = self._table.simulated if self._table else None
        if view.phase is Phase.HAND_OVER and self._phase is not Phase.HAND_OVER and sim:
            sim.forget_pin_history()
        if view.phase is not self._phase:  # what the watch decides on
            self._phase = view.phase
            self._changed.set()

    async def _watch(self, task: "asyncio.Task[None]") -> str:
        """Wait for the session's end; returns why it stopped early ('' if it played out)."""
        assert self.app is not None
        deadline = self._started + self.plan.budget_s
        while True:
            view = self.app.runner.view
            if self.plan.hub_sessions and len(self._over) >= self.plan.hub_sessions:
                return ""
            if view.phase is Phase.SESSION_OVER and not self.plan.hub_sessions:
                return ""
            if self._waiting_for_start():
                why = self._stop_reason  # the hub takes its time: no stall, no deadline
                self._changed_at = asyncio.get_running_loop().time()
                deadline = self._changed_at + self.plan.budget_s
            else:
                why = self._stop_reason or self._trouble(view, deadline)
            if why:
                return why
            if task.done():
                await task  # a bug in the daemon ends it: let it be seen
                return "the table stopped by itself"
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(0.5):
                    await self._changed.wait()

    def _trouble(self, view: TableView, deadline: float) -> str:
        now = asyncio.get_running_loop().time()
        where = f"hand {view.hand}" if view.hand else "power-on"
        if view.phase is Phase.FAULT and self.technician is None:
            return f"a fault stopped the session at {where}: {view.fault}"
        if now - self._changed_at > self.plan.stall_s:
            state = view.phase.value.replace("_", " ")
            return (
                f"the table made no progress for {self.plan.stall_s:g} s "
                f"({state}, {where}): {view.notice or 'no word from it'}{self._waits()}"
            )
        if now > deadline:
            return f"the session did not end within {self.plan.budget_s:g} s ({where})"
        return ""

    def _waits(self) -> str:
        """What the referee and the players each wait for (a stall is one waiting for the
        other), in words."""
        hand = self.app.cycle.hand if self.app is not None else None
        play = hand.play if hand is not None else None
        players = self._table.players if self._table is not None else None
        words = "" if play is None else f"; the referee waits for {play.referee.waiting_for()}"
        return words + ("" if players is None else f"; the players wait for {players.waiting}")

    async def _acks(self, hub: HubLink) -> tuple[str, ...]:
        """Keep the link up until the hub acked every result, at most `ack_wait_s`."""
        loop = asyncio.get_running_loop()
        until = loop.time() + self.plan.ack_wait_s
        # The hub link tells no one when an ack lands: look twenty times a second.
        while hub.pending_results and loop.time() < until and not self._stop_reason:
            if hub.attention == KEY_DOUBT:
                return (KEY_DOUBT,)  # the hub cannot know this table: waiting will not help
            await asyncio.sleep(0.05)
        problems = []
        if hub.pending_results:
            why = await _why_unacked(hub, self.plan.mqtt_url or "")
            problems.append(
                f"{hub.pending_results} results not acked by the hub within "
                f"{self.plan.ack_wait_s:g} s: {why}"
            )
        if hub.refused_results:
            reason = hub.refused_results[0].reason
            problems.append(f"the hub refused {len(hub.refused_results)} results: {reason}")
        return tuple(problems)


async def _why_unacked(hub: HubLink, url: str) -> str:
    """Why results wait: the broker cannot be reached (tried once more, to say why), or no
    recorder is online on it."""
    if hub.connected:
        if not hub.hub_online:
            return f"no recorder is online on {url} (start `mahjong-table hub --mqtt {url}`)"
        return f"the recorder on {url} did not ack them in time"
    address = BrokerAddress.from_url(url)
    where = f"{address.host}:{address.port}"
    try:
        async with asyncio.timeout(2.0):
            _, writer = await asyncio.open_connection(address.host, address.port)
        writer.close()
    except ConnectionRefusedError:
        return f"the broker at {where} refused the connection (is mosquitto running there?)"
    except (OSError, TimeoutError) as exc:
        reason = (getattr(exc, "strerror", None) or "no answer").lower()
        return f"cannot reach the broker at {where}: {reason}"
    return f"the table could not connect to the broker at {where} (see the log for why)"


def hub_count(hub: HubLink, plan: DemoPlan) -> HubCount:
    """The hub link's view of the session's results."""
    return HubCount(
        url=plan.mqtt_url or "",
        connected=hub.connected,
        hub_online=hub.hub_online,
        acked=hub.stats.results_acked,
        waiting=hub.pending_results,
        refused=tuple(r.reason for r in hub.refused_results),
    )
