"""What someone watching a simulated session sees in plain text: a line per finished hand, the
hub link in a few words, and the closing summary. The live board is in `controller.sim.board`
(it needs `rich`, the `board` extra)."""

import logging
from collections import Counter, deque
from collections.abc import Sequence

from controller.sim.demo import HubCount, Outcome
from controller.table.records import FinishedHand, IncidentRecord
from controller.table.tiles import seat_name

EVENT_LINES = 6


class EventFeed(logging.Handler):
    """Keeps the latest log lines for the board (in place of printing them)."""

    def __init__(self, keep: int = EVENT_LINES) -> None:
        super().__init__(logging.INFO)
        self.lines: deque[tuple[int, str]] = deque(maxlen=keep)

    def emit(self, record: logging.LogRecord) -> None:
        """Keep the record's text with its level."""
        self.lines.append((record.levelno, self.format(record)))


def dice_pairs(dice: tuple[int, ...]) -> list[tuple[int, int]]:
    return [(dice[i], dice[i + 1]) for i in range(0, len(dice) - 1, 2)]


def hub_line(hub: HubCount) -> str:
    """The hub link in a few words."""
    link = "connected" if hub.connected else "not connected"
    recorder = "recorder online" if hub.hub_online else "no recorder yet"
    refused = f", {len(hub.refused)} refused" if hub.refused else ""
    return f"hub {hub.url}: {link}, {recorder}; {hub.acked} acked, {hub.waiting} waiting{refused}"


def hand_line(hand: FinishedHand) -> str:
    """One finished hand in a line: who won what from whom, and the payments."""
    start = hand.start
    players = start.players
    wins = [
        f"{seat_name(w.place)} ({players[w.place]}) won {w.score} "
        + ("self-drawn" if w.discarder is None else f"on {seat_name(w.discarder)}'s discard")
        for w in hand.wins
    ]
    pays = " ".join(f"{seat_name(p)} {amount:+d}" for p, amount in enumerate(hand.payments))
    said = ", ".join(wins) or "drawn"
    extra = f"; {_count(len(hand.incidents), 'incident')}" if hand.incidents else ""
    return f"hand {start.hand} (dealer {seat_name(start.dealer)}): {said}; {pays}{extra}"


FAULT_LINES = 10
"""The summary names this many faults one by one, then counts the rest."""


def summary_lines(outcome: Outcome) -> list[str]:
    """The closing summary: hands, wins and draws, faults and incidents, final scores, hub."""
    snap, plan = outcome.last, outcome.plan
    view, results = snap.view, snap.results
    ending = outcome.stopped or view.over_reason or "ended"
    lines = [
        f"session {view.session or '-'} ({plan.ruleset}, seed {plan.seed}): {ending} "
        f"in {snap.elapsed_s:.1f} s",
        _hands_line(results),
        f"faults: {_faults(outcome.faults)}; incidents: {_incidents(outcome.incidents)}",
        "final scores:",
    ]
    wins = Counter(win.place for hand in results for win in hand.wins)
    width = max((len(p) for p in view.players), default=0)
    for place, player in enumerate(view.players):
        score = view.scores[place]
        lines.append(
            f"  {seat_name(place)}  {player:<{width}}  {score:+6d}  ({_count(wins[place], 'win')})"
        )
    if snap.hub is not None:
        lines.append(_hub_summary(snap.hub, len(results)))
    lines += _fault_lines(outcome)
    return lines + [f"problem: {problem}" for problem in outcome.problems]


def _fault_lines(outcome: Outcome) -> list[str]:
    """Each injected fault, and each fault the technician met with how it was cleared."""
    lines = []
    if outcome.plan.faults.value != "none":
        lines.append(f"fault profile: {outcome.plan.faults.value}")
    for planned in outcome.injected:
        what = planned.injection.kind.value
        done = planned.note if planned.done else "not reached"
        lines.append(f"  injected in hand {planned.injection.hand}: {what} ({done})")
    for record in outcome.cleared[:FAULT_LINES]:
        where = f"hand {record.hand}" if record.hand else "power-on"
        how = record.cleared or "NOT cleared"
        lines.append(f"  fault at {where}: {record.fault} -> {how}")
    rest = outcome.cleared[FAULT_LINES:]
    if rest:
        cleared = sum(1 for record in rest if record.cleared)
        lines.append(f"  and {len(rest)} more faults ({cleared} cleared)")
    return lines


def _hands_line(results: Sequence[FinishedHand]) -> str:
    won = [hand for hand in results if hand.wins]
    wins = [win for hand in won for win in hand.wins]
    self_drawn = sum(1 for win in wins if win.discarder is None)
    detail = (
        f" ({_count(len(wins), 'win')}: {len(wins) - self_drawn} on a discard, "
        f"{self_drawn} self-drawn)"
        if wins
        else ""
    )
    drawn = len(results) - len(won)
    return f"hands: {len(results)} played; {len(won)} won{detail}, {drawn} drawn"


def _faults(faults: Sequence[str]) -> str:
    if not faults:
        return "none"
    return f"{len(faults)} (last: {faults[-1]})"


def _incidents(incidents: Sequence[IncidentRecord]) -> str:
    if not incidents:
        return "none"
    kinds = Counter(incident.kind for incident in incidents)
    return f"{len(incidents)} (" + ", ".join(f"{k} {n}" for k, n in kinds.most_common()) + ")"


def _hub_summary(hub: HubCount, stored: int) -> str:
    refused = f", {len(hub.refused)} refused" if hub.refused else ""
    if hub.acked <= stored:
        return (
            f"hub: {hub.acked} of {stored} results acked by the recorder at {hub.url}"
            f" ({hub.waiting} waiting{refused})"
        )
    # The outbox held results of earlier runs, and acks count those too: no "22 of 3".
    earlier = hub.acked - stored
    if not hub.waiting:
        return (
            f"hub: all {stored} results of this session acked by the recorder at {hub.url}, "
            f"and {_count(earlier, 'earlier result')} from this outbox{refused}"
        )
    return (
        f"hub: the recorder at {hub.url} acked {hub.acked} results, this session's and "
        f"earlier ones from this outbox ({hub.waiting} waiting{refused})"
    )


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
