"""What a venue technician reads about each table from the recorder's store: online or gone
(and since when, as closely as MQTT can tell), what it is doing, results waiting or refused.

When a table vanishes the broker publishes its last will: at once when the connection closes,
or once 1.5 x keepalive passed without a packet. The will was made when the connection began,
so it cannot say when the table died; the recorder notes when the will reached it (`offline
since`), and the table was last alive at most 1.5 x keepalive before that. `last heard` is the
last message the table itself sent.
"""

from datetime import datetime

from controller.hub.contract.envelopes import StatusMessage
from controller.venue.store import Notice, Presence


def clock_time(at: float) -> str:
    """A time as the venue reads it (local time of this machine)."""
    return datetime.fromtimestamp(at).astimezone().strftime("%Y-%m-%d %H:%M:%S %Z")


def table_lines(presence: Presence) -> list[str]:
    """Two or three lines about one table."""
    status = presence.last_status()
    lines = [f"{presence.table}: {_online(presence, status)}"]
    if status is not None:
        lines.append("  " + _activity(status))
        if status.link.attention:
            lines.append(f"  ATTENTION: {status.link.attention}")
    return lines


def _online(p: Presence, status: StatusMessage | None) -> str:
    heard = "never heard" if p.heard is None else f"last heard {clock_time(p.heard)}"
    if status is not None and status.online:
        return f"online, {heard}"
    if p.offline_at is None:
        return f"offline (since before this recorder was listening), {heard}"
    if not p.by_will:
        return f"offline since {clock_time(p.offline_at)} (it said goodbye), {heard}"
    window = 1.5 * status.keepalive_s if status is not None and status.keepalive_s else None
    silent = f"; silent at most {window:g} s before" if window else ""
    return f"offline since {clock_time(p.offline_at)} (its last will{silent}), {heard}"


def _activity(status: StatusMessage) -> str:
    s, link = status.status, status.link
    doing = s.state + (f", session {s.session}" if s.session else "")
    doing += f", hand {s.hand}" if s.hand else ""
    doing += f", fault: {s.fault}" if s.fault else ""
    return (
        f"{doing}; results waiting {link.pending_results}, refused {link.refused_results}, "
        f"messages dropped {link.dropped_messages}"
    )


def notice_line(notice: Notice) -> str:
    """One notice as a line."""
    return f"{clock_time(notice.at)}  {notice.table}  {notice.kind}: {notice.text}"
