"""The actions a hub may ask of a table; each is the body of a signed, expiring command."""

from typing import Annotated

import msgspec
from msgspec import Meta

from controller.hub.contract.field_types import PlayerId, Positive, SessionId, Text
from controller.rules.names import RulesetName


class StartSession(msgspec.Struct, frozen=True, kw_only=True, tag="start_session"):
    """Start a session: ruleset, the four players in seat order E S W N, and its length."""

    session: SessionId
    ruleset: RulesetName
    players: list[PlayerId]
    hands: Annotated[int, Meta(ge=0, le=1000)] = 16
    deadline_minutes: Annotated[int, Meta(ge=0, le=1440)] = 0

    def __post_init__(self) -> None:
        if len(self.players) != 4 or len(set(self.players)) != 4:
            raise ValueError("'players' must name four different players")


class PauseSession(msgspec.Struct, frozen=True, kw_only=True, tag="pause_session"):
    """Pause play (the clocks stop) until a resume."""

    reason: Text = ""


class ResumeSession(msgspec.Struct, frozen=True, kw_only=True, tag="resume_session"):
    """Resume a paused session."""


class EndSession(msgspec.Struct, frozen=True, kw_only=True, tag="end_session"):
    """End the session after the current hand (or at once if no hand is live)."""

    reason: Text = ""


class ReportStatus(msgspec.Struct, frozen=True, kw_only=True, tag="report_status"):
    """Publish the table status now."""


class ResendResults(msgspec.Struct, frozen=True, kw_only=True, tag="resend_results"):
    """Send again every result the table still holds from sequence number `since_seq` on (up to
    `until_seq` if given), including results the hub refused (re-signed with the table's key)."""

    since_seq: Positive
    until_seq: Positive | None = None

    def __post_init__(self) -> None:
        if self.until_seq is not None and self.until_seq < self.since_seq:
            raise ValueError("'until_seq' must not be below 'since_seq'")


class FetchBlackBox(msgspec.Struct, frozen=True, kw_only=True, tag="fetch_blackbox"):
    """Send one hand's black box (for a dispute): hand `hand` of `session` (default: the
    table's current or last session). The reply carries the file zlib-compressed."""

    hand: Positive
    session: SessionId | None = None


Action = (
    StartSession
    | PauseSession
    | ResumeSession
    | EndSession
    | ReportStatus
    | ResendResults
    | FetchBlackBox
)
ACTIONS: tuple[type[Action], ...] = (
    StartSession,
    PauseSession,
    ResumeSession,
    EndSession,
    ReportStatus,
    ResendResults,
    FetchBlackBox,
)
