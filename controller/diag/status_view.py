"""`diag status` as a client reads it: the report's JSON typed for reading, so a client
renders a status without loading the decoder library. The fields are those of the structs in
`status_report` (the daemon's, which it encodes): a test holds the two to the same keys."""

from typing import TypedDict


class SeatData(TypedDict):
    """`status_report.Seat`."""

    seat: str
    player: str
    score: int


class McuData(TypedDict):
    """`status_report.McuFacts`."""

    connected: bool
    firmware: str
    protocol: int
    message_table_matches: bool
    model: str
    boot_count: int
    reset_cause: str
    uptime_s: float
    lid_open: bool
    estop: bool
    faults: list[str]
    rtt_ms_p50: float | None
    rtt_ms_p99: float | None
    crc_errors: int
    retransmits: int
    reconnects: int
    problem: str


class HubData(TypedDict):
    """`status_report.HubFacts`."""

    configured: bool
    connected: bool
    hub_online: bool
    outbox_depth: int
    oldest_unacked: str | None
    refused_results: int
    attention: str


class VersionsData(TypedDict):
    """`status_report.Versions`."""

    daemon: str
    firmware: str
    protocol: int
    ruleset: str
    ruleset_data: str


class StatusData(TypedDict):
    """`status_report.StatusReport`."""

    table: str
    mode: str
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
    seats: list[SeatData]
    mcu: McuData
    hub: HubData
    inputs: dict[str, bool]
    versions: VersionsData
    uptime_s: float
    boot_count: int
    control_refused: int
    problems: list[str]


def healthy(status: StatusData) -> bool:
    """Nothing needs a technician (as `StatusReport.healthy`)."""
    return not status["problems"]
