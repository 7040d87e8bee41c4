"""What the dashboard shows, built from what the recorder stores: each table's presence and
latest status, and the results of its sessions (kept in memory as the recorder records them)."""

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import msgspec

from controller.hub.contract.envelopes import ResultMessage, decode
from controller.hub.contract.result import HandResult, WallReveal
from controller.venue.store import Presence
from controller.venue.store_view import StoreView


@dataclass
class SessionHands:
    """The recorded hands of one session at one table, in hand order."""

    session: str
    hands: list[HandResult] = field(default_factory=list)

    def scores(self) -> dict[str, int]:
        """Running score of each player of the session (payments plus penalties)."""
        totals: dict[str, int] = defaultdict(int)
        for r in self.hands:
            for seat in r.seats:
                totals[seat.player] += r.totals()[seat.seat]
        return dict(totals)


_NO_WALL = WallReveal(order=[], salt="0" * 64, commitment="0" * 64)


class LiveResults:
    """Every recorded result by table and session; fed by the recorder after each batch."""

    def __init__(self) -> None:
        self.tables: dict[str, dict[str, SessionHands]] = defaultdict(dict)
        self.latest: dict[str, str] = {}
        self.count = 0

    def load(self, store: StoreView) -> None:
        """Read what the store already holds (once, when the dashboard starts)."""
        for stored in store.results():
            self._add(stored.table, decode(stored.payload, ResultMessage).result)

    def add(self, messages: Iterable[ResultMessage]) -> None:
        """Results the recorder has just recorded."""
        for message in messages:
            self._add(message.table, message.result)

    def _add(self, table: str, result: HandResult) -> None:
        # The revealed wall is most of a result's memory and no view shows it.
        result = msgspec.structs.replace(result, wall=_NO_WALL)
        sessions = self.tables[table]
        hands = sessions.setdefault(result.session, SessionHands(result.session))
        hands.hands.append(result)
        hands.hands.sort(key=lambda r: r.hand)
        self.latest[table] = result.session
        self.count += 1

    def session(self, table: str, session: str | None) -> SessionHands | None:
        """One session of a table (None: its latest), if any hand of it is recorded."""
        name = session or self.latest.get(table)
        return None if name is None else self.tables.get(table, {}).get(name)

    def all_results(self) -> Iterable[HandResult]:
        """Every recorded hand."""
        for sessions in self.tables.values():
            for hands in sessions.values():
                yield from hands.hands


@dataclass(frozen=True)
class TableCard:
    """One table on the floor."""

    table: str
    online: bool
    since: float | None
    """When it went offline (None: online, or gone before the recorder listened)."""
    by_will: bool
    heard: float | None
    connected_at: float | None
    phase: str
    session: str | None
    hand: int | None
    players: list[str]
    fault: str | None
    attention: str
    pending: int
    refused: int
    scores: dict[str, int]
    last_hand: int | None
    dealer: str | None
    """Dealer of the last recorded hand of the session."""
    ruleset: str | None = None
    planned: int | None = None
    """Hands the session is to play (None: not known, no tournament names it)."""
    last_at: float | None = None
    """When the last recorded hand ended."""
    last_result: str = ""
    penalties: int = 0
    """Penalty points lost this session (recorded hands and the hand in play)."""
    state: str = "unknown"
    """playing, waiting, paused, fault, finished, aborted, session over or offline."""
    stall_after: float | None = None
    """When a playing table with no new result counts as stalled."""


STALL_AFTER_S = 15 * 60.0
"""A playing table with no result for this long is shown as stalled (a hand rarely lasts
longer; the floor turns the card amber then, in the browser, without a new event)."""
Planned = Callable[[str], int | None]


def card(presence: Presence, live: LiveResults, planned: Planned | None = None) -> TableCard:
    """The floor card of one table."""
    status = presence.last_status()
    s = status.status if status else None
    session = (s.session if s else None) or live.latest.get(presence.table)
    hands = live.session(presence.table, session)
    last = hands.hands[-1] if hands and hands.hands else None
    plan = planned(session) if planned and session else None
    online = bool(status and status.online)
    state = _state(s.state if s else "unknown", online, bool(s and s.fault), last, plan)
    moments = [last.ended_at.timestamp() if last else None]
    moments.append(status.connected_at.timestamp() if status and status.connected_at else None)
    known = [m for m in moments if m is not None]
    since = max(known) if known else None
    penalties = -sum(sum(r.penalties) for r in hands.hands) if hands else 0
    penalties += sum(s.penalties) if s and s.state not in _OVER else 0
    return TableCard(
        table=presence.table,
        online=bool(status and status.online),
        since=presence.offline_at,
        by_will=presence.by_will,
        heard=presence.heard,
        connected_at=status.connected_at.timestamp() if status and status.connected_at else None,
        phase=s.state if s else "unknown",
        session=session,
        hand=s.hand if s else None,
        players=list(s.players)
        if s and s.players
        else ([e.player for e in sorted(last.seats, key=lambda e: e.seat)] if last else []),
        fault=s.fault if s else None,
        attention=status.link.attention if status else "",
        pending=status.link.pending_results if status else 0,
        refused=status.link.refused_results if status else 0,
        scores=hands.scores() if hands else {},
        last_hand=last.hand if last else None,
        dealer=last.player(last.dealer) if last else None,
        ruleset=(s.ruleset if s else None) or (last.ruleset if last else None),
        planned=plan,
        last_at=last.ended_at.timestamp() if last else None,
        last_result=summary(last) if last else "",
        penalties=penalties,
        state=state,
        stall_after=since + STALL_AFTER_S if state == "playing" and since else None,
    )


_OVER = ("session_over", "idle", "offline")


def _state(
    phase: str, online: bool, fault: bool, last: HandResult | None, planned: int | None
) -> str:
    """The one word the floor shows for a table."""
    if not online:
        return "offline"
    if fault or phase == "fault":
        return "fault"
    if phase == "paused":
        return "paused"
    if phase in ("session_over", "idle"):
        if last is None or (phase == "idle" and planned is None):
            return "waiting"
        if planned is None:
            return "session over"
        return "finished" if last.hand >= planned else "aborted"
    return "playing"


def summary(r: HandResult) -> str:
    """The last result in a few words."""
    if r.draw:
        return f"hand {r.hand}: drawn"
    w = r.wins[0]
    how = "self-drawn" if w.self_drawn else f"off {r.player(w.discarder or 0)}"
    return f"hand {r.hand}: {r.player(w.seat)} won {r.totals()[w.seat]:+d} {how}"
