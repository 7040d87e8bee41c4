"""`diag status`: everything a technician asks first about a table, and what is wrong with it.

The report is built from small read-only sources (the table's view, the MCU facts, the hub
link's counters); `problems` lists in plain words every thing that needs a technician, each
with what to do, so "what is wrong with this table" has one answer.
"""

import hashlib
import importlib.resources
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from controller.diag.ports import SEAT_NAMES
from controller.diag.status_report import HubFacts, McuFacts, Seat, StatusReport, Versions

if TYPE_CHECKING:  # the daemon's side only: a client decodes a report without the table
    from controller.table.core import TableView


class PendingLike(Protocol):
    """A result waiting for the hub's ack."""

    @property
    def seq(self) -> int:
        """Its number in the outbox."""
        ...

    @property
    def id(self) -> str:
        """Its id."""
        ...


class OutboxLike(Protocol):
    """The part of the table's outbox status reads."""

    def pending_results(self, limit: int, after_seq: int = 0) -> Sequence[PendingLike]:
        """The oldest results not yet acked."""
        ...


class HubLinkLike(Protocol):
    """The hub link's counters as status reads them (read-only)."""

    connected: bool
    hub_online: bool

    @property
    def outbox(self) -> OutboxLike:
        """The durable outbox."""
        ...

    @property
    def pending_results(self) -> int:
        """Results not yet acked."""
        ...

    @property
    def refused_results(self) -> Sequence[object]:
        """Results the hub refused."""
        ...

    @property
    def attention(self) -> str:
        """What a technician must do about the link."""
        ...


@dataclass
class StatusSources:
    """Where status reads from; a direct check has no view and no hub link."""

    table: str
    daemon_version: str
    ruleset: str
    ruleset_file: Path | None
    started: float
    now: Callable[[], float]
    view: "Callable[[], TableView] | None" = None
    holds: Callable[[], list[str]] = field(default=list)
    hub: HubLinkLike | None = None
    hub_configured: bool = False
    setup_problem: str = ""
    control_refused: Callable[[], int] = field(default=lambda: 0)
    """Control socket requests refused so far (bad, oversized, too fast, busy)."""


def ruleset_digest(name: str, override: Path | None) -> str:
    """A short digest of the ruleset data the table plays by (a venue's overlay included)."""
    digest = hashlib.sha256()
    shipped = importlib.resources.files("controller.rules") / f"{name.replace('-', '_')}.toml"
    try:
        digest.update(shipped.read_bytes())
        if override is not None:
            digest.update(override.read_bytes())
    except OSError:
        return "unreadable"
    return digest.hexdigest()[:12]


def hub_facts(sources: StatusSources) -> HubFacts:
    """The hub link's counters, or why there is none."""
    hub = sources.hub
    if hub is None:
        return HubFacts(configured=sources.hub_configured)
    oldest = hub.outbox.pending_results(1)
    return HubFacts(
        configured=True,
        connected=hub.connected,
        hub_online=hub.hub_online,
        outbox_depth=hub.pending_results,
        oldest_unacked=f"#{oldest[0].seq} ({oldest[0].id})" if oldest else None,
        refused_results=len(hub.refused_results),
        attention=hub.attention,
    )


STUCK = "{name} reads pressed: a stuck button or a short in its wire; check the button"


def problems_of(
    view: "TableView | None",
    holds: list[str],
    mcu: McuFacts,
    hub: HubFacts,
    inputs: dict[str, bool],
    setup_problem: str,
) -> list[str]:
    """Every thing that needs a technician, each with what to do."""
    found: list[str] = []
    if view is not None and view.fault:
        found.append(f"fault: {view.fault}")
    found += [f"holding until you {hold}" for hold in holds]
    if setup_problem and not (view is not None and view.fault == setup_problem):
        found.append(setup_problem)
    if not mcu.connected:
        found.append(f"the table MCU does not answer: {mcu.problem or 'check its USB cable'}")
    found += [f"the MCU reports: {fault}" for fault in mcu.faults]
    if mcu.connected and not mcu.message_table_matches:
        found.append("the MCU firmware speaks another message table: update the firmware")
    if inputs.get("estop"):
        found.append("the emergency stop is pressed (or its wire is broken): release it")
    from controller.table.core import Phase  # (on the daemon's side, loaded already)

    resting = view is None or view.phase is not Phase.PLAYING
    for name, pressed in inputs.items():
        if name != "estop" and pressed and resting:
            found.append(STUCK.format(name=name.replace("_", " ")))
    if hub.configured and not hub.connected and view is not None:
        found.append("the hub link is down: check the network and the broker (diag mqtt)")
    elif hub.configured and not hub.hub_online and view is not None:
        found.append(
            "the venue recorder is offline: results wait in the outbox; start "
            "`mahjong-table hub` on the venue host"
        )
    if hub.attention:
        found.append(hub.attention)
    return found


def build_status(
    sources: StatusSources, mcu: McuFacts, inputs: dict[str, bool], mode: str
) -> StatusReport:
    """The status report from its sources."""
    view = sources.view() if sources.view is not None else None
    holds = sources.holds()
    hub = hub_facts(sources)
    seats: list[Seat] = []
    if view is not None and view.players:
        seats = [
            Seat(SEAT_NAMES[i], player, score)
            for i, (player, score) in enumerate(zip(view.players, view.scores, strict=False))
        ]
    phase = view.phase.value if view is not None else "stopped"
    problems = problems_of(view, holds, mcu, hub, inputs, sources.setup_problem)
    return StatusReport(
        table=sources.table,
        mode=mode,
        state="problem" if problems else "healthy",
        phase=phase,
        headline=_headline(view),
        fault=view.fault if view is not None else None,
        holds=holds,
        notice=view.notice if view is not None else "",
        session=view.session if view is not None else None,
        hand=view.hand if view is not None else None,
        hands_played=view.hands_played if view is not None else 0,
        paused=view.paused if view is not None else False,
        seats=seats,
        mcu=mcu,
        hub=hub,
        inputs=inputs,
        versions=Versions(
            daemon=sources.daemon_version,
            firmware=mcu.firmware,
            protocol=mcu.protocol,
            ruleset=sources.ruleset,
            ruleset_data=ruleset_digest(sources.ruleset, sources.ruleset_file),
        ),
        uptime_s=round(sources.now() - sources.started, 1),
        boot_count=mcu.boot_count,
        control_refused=sources.control_refused(),
        problems=problems,
    )


def _headline(view: "TableView | None") -> str:
    if view is None:
        return "the daemon is not running (checked directly on the hardware)"
    if view.fault:
        return f"fault: {view.fault}"
    where = f"hand {view.hand} of session {view.session}" if view.hand else "no hand"
    return f"{view.phase.value.replace('_', ' ')}: {where}"
