"""Link statistics (frames, errors, retransmits, round trips, reconnects), the frame log ring,
and the grade of a link (healthy, degraded, failing) from its statistics."""

import contextlib
import logging
from collections import deque
from collections.abc import Callable
from dataclasses import asdict, dataclass
from enum import Enum
from typing import Any

from firmware_bridge.errors import FrameError
from firmware_bridge.frame import DELIMITER, Frame, decode_frame

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class LinkStats:
    """A snapshot of the link's counters; round trips in milliseconds (None before any)."""

    frames_sent: int
    frames_received: int
    bytes_sent: int
    bytes_received: int
    crc_errors: int
    frame_errors: int
    protocol_errors: int
    retransmits: int
    timeouts: int
    reconnects: int
    mcu_resets: int
    event_gaps: int
    duplicate_replies: int
    late_replies: int
    """State reads sent again whose replies may be older than the events since (read again)."""
    bugs: int
    """Unexpected errors inside the link (each logged with its traceback; the link went on)."""
    rtt_samples: int
    rtt_ms_p50: float | None
    rtt_ms_p99: float | None

    def as_dict(self) -> dict[str, Any]:
        """Plain dict for JSON output."""
        return asdict(self)


class Counters:
    """Mutable counters the link bumps; `snapshot()` freezes them with RTT percentiles."""

    def __init__(self, rtt_window: int = 2000) -> None:
        self.frames_sent = 0
        self.frames_received = 0
        self.bytes_sent = 0
        self.bytes_received = 0
        self.crc_errors = 0
        self.frame_errors = 0
        self.protocol_errors = 0
        self.retransmits = 0
        self.timeouts = 0
        self.reconnects = 0
        self.mcu_resets = 0
        self.event_gaps = 0
        self.duplicate_replies = 0
        self.late_replies = 0
        self.bugs = 0
        self.rtt: deque[float] = deque(maxlen=rtt_window)

    def snapshot(self) -> LinkStats:
        """The counters now, with p50/p99 of the recent first-try round trips."""
        ordered = sorted(self.rtt)
        fields = {k: v for k, v in vars(self).items() if k != "rtt"}
        return LinkStats(
            **fields,
            rtt_samples=len(ordered),
            rtt_ms_p50=percentile_ms(ordered, 0.50),
            rtt_ms_p99=percentile_ms(ordered, 0.99),
        )


def percentile_ms(ordered: list[float], fraction: float) -> float | None:
    """The nearest-rank percentile of sorted seconds, in milliseconds."""
    if not ordered:
        return None
    index = min(len(ordered) - 1, max(0, round(fraction * len(ordered) + 0.5) - 1))
    return round(ordered[index] * 1000, 3)


RingEntry = tuple[float, str, Frame | bytes]
"""When (loop time), which way ("tx", "rx", "bad") and the frame, or the bytes of it."""


class FrameRing:
    """The last frames sent and received, dumped to the log on a protocol error.

    Kept as they come (the frame received, the bytes sent, the bytes of a bad piece) and put
    into words only when the ring is read: a busy link adds thousands a second."""

    def __init__(self, size: int) -> None:
        self._frames: deque[RingEntry] = deque(maxlen=size)
        self.add: Callable[[RingEntry], None] = self._frames.append
        """Remember one frame, or the bytes of one (sent, or bad): `add((when, direction,
        frame))` (the deque's own append: two of them come with every round trip)."""
        self._last_dump = float("-inf")
        self._suppressed = 0

    def dump(self, now: float, reason: str, min_interval: float) -> None:
        """Log `reason` and the ring, at most once per `min_interval` seconds."""
        if now - self._last_dump < min_interval:
            self._suppressed += 1
            return
        lines = [_describe(now, *entry) for entry in self._frames]
        extra = f" ({self._suppressed} more errors since the last dump)" if self._suppressed else ""
        text = "\n".join(lines)
        log.warning("protocol error: %s%s; last %d frames:\n%s", reason, extra, len(lines), text)
        self._last_dump = now
        self._suppressed = 0

    def lines(self, now: float) -> list[str]:
        """The ring as text lines, oldest first."""
        return [_describe(now, *entry) for entry in self._frames]


def _describe(now: float, when: float, direction: str, frame: Frame | bytes) -> str:
    if isinstance(frame, bytes) and frame.endswith(DELIMITER):
        with contextlib.suppress(FrameError):
            frame = decode_frame(frame[:-1])
    text = frame.describe() if isinstance(frame, Frame) else f"raw={frame.hex()}"
    return f"  {when - now:+9.3f}s {direction} {text}"


class Grade(Enum):
    """How well the link works, for a technician."""

    HEALTHY = "healthy"
    DEGRADED = "degraded"
    FAILING = "failing"


@dataclass(frozen=True)
class LinkVerdict:
    """The grade and the figures that gave it, in words."""

    grade: Grade
    reasons: tuple[str, ...]


DEGRADED_RESENDS = 0.05
"""Resends per command above which the line is degraded (healthy lines resend almost never)."""
FAILING_RESENDS = 0.5
DEGRADED_DAMAGED = 0.01
"""Damaged frames (checksum or framing errors) per frame arriving above which it is degraded."""
FAILING_DAMAGED = 0.1


def grade_link(stats: LinkStats, commands: int, answered: int) -> LinkVerdict:
    """Grade a link from its counters after `commands` commands of which `answered` came back:
    failing if any went unanswered, the link dropped, or errors are rife; degraded if frames
    were damaged or commands resent more than a healthy line does; else healthy."""
    sent = max(1, commands)
    resends = stats.retransmits / sent
    bad = stats.crc_errors + stats.frame_errors
    damaged = bad / max(1, stats.frames_received + bad)
    failing, degraded = [], []
    if answered < commands:
        failing.append(f"{commands - answered} of {commands} commands went unanswered")
    if stats.reconnects or stats.timeouts:
        failing.append(f"the link dropped {max(stats.reconnects, stats.timeouts)} time(s)")
    resent = f"{stats.retransmits} resends per {commands} commands"
    broken = f"{bad} damaged frames of {stats.frames_received + bad}"
    for rate, fail, warn, words in (
        (resends, FAILING_RESENDS, DEGRADED_RESENDS, resent),
        (damaged, FAILING_DAMAGED, DEGRADED_DAMAGED, broken),
    ):
        if rate > fail:
            failing.append(words)
        elif rate > warn:
            degraded.append(words)
    if failing:
        return LinkVerdict(Grade.FAILING, tuple(failing + degraded))
    if degraded:
        return LinkVerdict(Grade.DEGRADED, tuple(degraded))
    return LinkVerdict(Grade.HEALTHY, ())
