"""The table's results sink for the venue hub (durable outbox, then MQTT): the table's hand
records become the hub's typed payloads here."""

from datetime import UTC, datetime
from typing import Any

from controller.errors import UsageError
from controller.hub.contract.field_types import Wind
from controller.hub.contract.result import (
    FinalSeat,
    HandResult,
    Incident,
    Meld,
    MeldKindName,
    Move,
    PatternScore,
    SeatEntry,
    Seating,
    Settlement,
    WallReveal,
    Win,
)
from controller.hub.contract.table_events import HandEnded, HandStarted, IncidentNoted, TableStatus
from controller.hub.table_side.hub_link import HubLink
from controller.rules import Seat, format_tiles, tile_str
from controller.rules.hand import Meld as RulesMeld
from controller.rules.hand import MeldKind
from controller.rules.names import RULESET_NAMES, RulesetName
from controller.table.cycle import TableView
from controller.table.records import (
    FinishedHand,
    HandStart,
    IncidentRecord,
    Instant,
    SessionStart,
    WinRecord,
)

WINDS: dict[Seat, Wind] = {Seat.E: "E", Seat.S: "S", Seat.W: "W", Seat.N: "N"}
_CONTRACT_RULESETS: dict[str, RulesetName] = {name: name for name in RULESET_NAMES}
MELD_KINDS: dict[MeldKind, MeldKindName] = {
    MeldKind.CHOW: "chow",
    MeldKind.PUNG: "pung",
    MeldKind.KONG: "kong",
    MeldKind.CONCEALED_KONG: "concealed_kong",
}


class HubSink:
    """Results into the hub link's durable outbox; starts, incidents and status as events."""

    def __init__(self, link: HubLink, software: str = "") -> None:
        self.link = link
        self.software = software
        self._reveals: dict[tuple[str, int], WallReveal] = {}

    def hand_began(self, start: HandStart) -> None:
        """Commit to the wall and publish the start."""
        reveal = WallReveal.seal([tile_str(kind) for kind in start.wall_order])
        self._reveals = {(start.session, start.hand): reveal}
        self.link.publish_event(
            HandStarted(
                session=start.session,
                hand=start.hand,
                ruleset=contract_ruleset(start.ruleset),
                round_wind=WINDS[start.round_wind],
                dealer=start.dealer,
                players=list(start.players),
                wall_commitment=reveal.commitment,
            )
        )

    def incident(self, start: HandStart | None, incident: IncidentRecord) -> None:
        """Publish the incident (it also goes into the hand's result)."""
        if start is not None:
            self.link.publish_event(
                IncidentNoted(session=start.session, hand=start.hand, incident=_incident(incident))
            )

    async def record(self, hand: FinishedHand) -> str:
        """Store the result in the outbox (signed, fsynced) and announce the hand's end."""
        start = hand.start
        reveal = self._reveals.get((start.session, start.hand)) or WallReveal.seal(
            [tile_str(kind) for kind in start.wall_order]
        )
        receipt = await self.link.record_result_async(hand_result(hand, reveal))
        self.link.publish_event(
            HandEnded(
                session=start.session,
                hand=start.hand,
                draw=hand.drawn,
                winners=[w.place for w in hand.wins],
                result_id=receipt.id,
            )
        )
        return receipt.id

    def status(self, view: TableView) -> None:
        """Publish the table's state."""
        self.link.update_status(table_status(view, self.software))


def table_status(view: TableView, software: str = "") -> TableStatus:
    """The hub's status payload for a view of the table."""
    return TableStatus(
        state=view.phase.value,
        session=view.session,
        ruleset=None if view.ruleset is None else contract_ruleset(view.ruleset),
        hand=view.hand,
        players=list(view.players),
        fault=view.fault,
        software=software,
        penalties=list(view.penalties) if view.hand is not None else [],
    )


def hand_result(hand: FinishedHand, reveal: WallReveal) -> HandResult:
    """The hub's result payload for a finished hand."""
    start = hand.start
    incidents = [_incident(i) for i in hand.incidents]
    return HandResult(
        session=start.session,
        hand=start.hand,
        ruleset=contract_ruleset(start.ruleset),
        round_wind=WINDS[start.round_wind],
        dealer=start.dealer,
        seats=[
            SeatEntry(seat=p, wind=WINDS[start.winds[p]], player=start.players[p]) for p in range(4)
        ],
        draw=hand.drawn,
        wins=[_win(w, order) for order, w in enumerate(hand.wins, start=1)],
        payments=list(hand.payments),
        penalties=list(hand.penalties),
        incidents=incidents,
        wall=reveal,
        started_at=_time(start.started_at),
        ended_at=_time(hand.ended_at),
        seating=None if start.seating is None else _seating(start.seating),
        **_play(hand),
    )


def _seating(start: SessionStart) -> Seating:
    return Seating(
        players_at_draw=list(start.players_at_draw),
        drawn=[WINDS[Seat[wind]] for wind in start.drawn],
        dice=list(start.dice),
        players=list(start.players),
        dealer=start.dealer,
        at=_time(start.at),
    )


def _play(hand: FinishedHand) -> dict[str, Any]:
    """The referee's account: moves, final tiles, settlements (none before the referee)."""
    play = hand.play
    if play is None:
        return {}
    return {
        "moves": [
            Move(
                at=_time(m.at),
                seat=m.place,
                move=m.kind.value,
                tiles=format_tiles(m.tiles),
                source=m.source,
            )
            for m in play.moves
        ],
        "final": [
            FinalSeat(
                seat=place,
                concealed=format_tiles(end.concealed),
                melds=[_meld(m) for m in end.melds],
                flowers=[tile_str(f) for f in end.flowers],
                discards=format_tiles(end.discards),
            )
            for place, end in enumerate(play.seats)
        ],
        "settlements": [
            Settlement(reason=p.reason[:500], amounts=list(p.amounts)) for p in play.payments
        ],
    }


def _meld(meld: RulesMeld) -> Meld:
    return Meld(kind=MELD_KINDS[meld.kind], tiles=format_tiles(meld.tiles))


def _win(win: WinRecord, order: int) -> Win:
    return Win(
        seat=win.place,
        discarder=win.discarder,
        winning_tile=tile_str(win.win_tile),
        concealed=format_tiles(win.concealed),
        melds=[_meld(m) for m in win.melds],
        flowers=[tile_str(f) for f in win.flowers],
        patterns=[PatternScore(name=name, value=value) for name, value in win.patterns],
        score=win.score,
        order=order,
        win_type=win.win_type.value,
    )


def _incident(incident: IncidentRecord) -> Incident:
    return Incident(
        at=_time(incident.at),
        seat=incident.place,
        kind=incident.kind,
        detail=incident.detail[:500],
        penalty=incident.penalty,
        ruling=incident.ruling or "",
    )


def _time(instant: Instant) -> datetime:
    return datetime.fromtimestamp(instant.wall, tz=UTC)


def contract_ruleset(name: str) -> RulesetName:
    """A ruleset's name as the hub contract spells it; UsageError for a ruleset the contract
    does not know (an extension: its results cannot go to a hub)."""
    try:
        return _CONTRACT_RULESETS[name]
    except KeyError:
        known = ", ".join(RULESET_NAMES)
        raise UsageError(
            f"ruleset {name!r} cannot be reported to a hub (it knows {known})"
        ) from None
