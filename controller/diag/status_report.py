"""What `diag status` answers with: the report and its parts, typed, as the daemon (or a direct
check) makes and encodes them. Light (msgspec only): `diag mqtt` decodes a daemon's status into
these without loading what builds one (`status`); `status_view` reads the same JSON keys."""

import msgspec


class McuFacts(msgspec.Struct, frozen=True, kw_only=True):
    """The MCU link and what the MCU says of itself."""

    connected: bool
    firmware: str = ""
    protocol: int = 0
    message_table_matches: bool = True
    model: str = ""
    boot_count: int = 0
    reset_cause: str = ""
    uptime_s: float = 0.0
    lid_open: bool = False
    estop: bool = False
    faults: list[str] = []
    """The MCU's active faults in words (a part named)."""
    rtt_ms_p50: float | None = None
    rtt_ms_p99: float | None = None
    crc_errors: int = 0
    retransmits: int = 0
    reconnects: int = 0
    problem: str = ""
    """Why the link is down, when it is."""


class Seat(msgspec.Struct, frozen=True):
    """One seat: its wind, its player and score."""

    seat: str
    player: str
    score: int


class HubFacts(msgspec.Struct, frozen=True, kw_only=True):
    """The link to the venue hub."""

    configured: bool
    connected: bool = False
    hub_online: bool = False
    outbox_depth: int = 0
    oldest_unacked: str | None = None
    refused_results: int = 0
    attention: str = ""


class Versions(msgspec.Struct, frozen=True, kw_only=True):
    """What runs where."""

    daemon: str
    firmware: str
    protocol: int
    ruleset: str
    ruleset_data: str
    """The first 12 hex digits of the SHA-256 of the ruleset data (and the venue's overlay)."""


class StatusReport(msgspec.Struct, frozen=True, kw_only=True):
    """`diag status`."""

    table: str
    mode: str
    """daemon (through the socket) or direct (the daemon is not running)."""
    state: str
    phase: str
    headline: str
    fault: str | None
    holds: list[str]
    notice: str
    session: str | None
    hand: int | None
    hands_played: int
    paused: bool
    seats: list[Seat]
    mcu: McuFacts
    hub: HubFacts
    inputs: dict[str, bool]
    versions: Versions
    uptime_s: float
    boot_count: int
    control_refused: int
    problems: list[str]
    """Everything that needs a technician, with what to do; empty when healthy."""

    @property
    def healthy(self) -> bool:
        """Nothing needs a technician."""
        return not self.problems
