"""The hub link's health in words a venue technician reads on a dashboard."""

from collections.abc import Sequence

from controller.hub.contract.table_events import LinkCounters
from controller.hub.table_side.outbox_file import RefusedResult

ASK_AGAIN = (
    "kept in the outbox and not sent again until asked: fix the cause (a table key that "
    "differs from the hub's keys file?), then `mahjong-table hub send TABLE resend` or restart "
    "the table"
)


def attention(refused: Sequence[RefusedResult], problem: str = "") -> str:
    """What a technician must do about the outbox and refused results, or '' when nothing;
    an outbox that cannot store comes first (it is the more urgent)."""
    if problem:
        return problem[:500]
    if not refused:
        return ""
    first = refused[0]
    others = len(refused) - 1
    which = f"result seq {first.seq}" + (f" and {others} more" if others else "")
    return f"{which} refused by hub: {first.reason}; {ASK_AGAIN}"[:500]


def link_counters(
    pending: int,
    dropped: int,
    refused: Sequence[RefusedResult],
    problem: str = "",
    outbox_new: bool = False,
) -> LinkCounters:
    """The counters published with every status."""
    return LinkCounters(
        pending_results=pending,
        dropped_messages=dropped,
        refused_results=len(refused),
        attention=attention(refused, problem),
        outbox_new=outbox_new,
    )
