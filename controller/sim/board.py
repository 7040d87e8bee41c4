"""The live board of a simulated session (table state, hand, dealer, the latest events, running
scores), drawn with `rich`: installed with the `board` extra (`pip install 'mahjong-table[board]'`);
without it `simulate` prints plain lines."""

import logging
from collections import Counter
from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from controller.sim.demo import DemoPlan, Snapshot
from controller.sim.view import dice_pairs, hand_line, hub_line
from controller.table.cycle import Phase
from controller.table.tiles import seat_name

HAND_LINES = 3
_STYLES = {logging.WARNING: "yellow", logging.ERROR: "bold red", logging.CRITICAL: "bold red"}


def board(snap: Snapshot, plan: DemoPlan, events: Sequence[tuple[int, str]]) -> RenderableType:
    """The live board for one moment of the session."""
    view = snap.view
    title = f"mahjong-table simulate: {plan.ruleset}, table {plan.table}, seed {plan.seed}"
    parts: list[RenderableType] = [_where(snap, plan), _scores(snap)]
    if snap.results:
        parts.append(Text("last hands", style="bold"))
        parts += [Text(hand_line(hand)) for hand in snap.results[-HAND_LINES:]]
    parts.append(Text("table says", style="bold"))
    parts += [Text(text, style=_STYLES.get(level, "dim")) for level, text in events]
    if snap.hub is not None:
        parts.append(Text(hub_line(snap.hub), style="cyan"))
    state = view.phase.value.replace("_", " ")
    return Panel(Group(*parts), title=title, subtitle=f"{state}, {snap.elapsed_s:.0f} s")


def _where(snap: Snapshot, plan: DemoPlan) -> Text:
    view = snap.view
    hand = f"hand {view.hand} of {plan.hands}" if view.hand else "no hand yet"
    bits = [hand, f"{view.hands_played} played"]
    if view.round_wind:
        bits.append(f"round {view.round_wind}")
    if view.phase is Phase.SESSION_OVER:
        bits.append(f"over: {view.over_reason}")
    elif view.dealer is not None and view.players:
        bits.append(f"dealer {seat_name(view.dealer)} ({view.players[view.dealer]})")
    if view.dice and view.phase is not Phase.SESSION_OVER:
        bits.append("dice " + " ".join(f"{a}+{b}" for a, b in dice_pairs(view.dice)))
    line = Text("  ".join(bits), style="bold")
    if view.fault:
        line.append(f"\nfault: {view.fault}", style="bold red")
    return line


def _scores(snap: Snapshot) -> Table:
    view = snap.view
    wins = Counter(win.place for hand in snap.results for win in hand.wins)
    table = Table(box=None, pad_edge=False)
    for column in ("seat", "player", "score", "wins", ""):
        table.add_column(column, justify="right" if column in ("score", "wins") else "left")
    for place, player in enumerate(view.players):
        marks = []
        if place == view.dealer:
            marks.append("deals")
        if place == view.turn:
            marks.append("to throw")
        if place in view.winners:
            marks.append("won")
        score = view.scores[place]
        style = "green" if score > 0 else "red" if score < 0 else ""
        table.add_row(
            seat_name(place),
            player,
            Text(f"{score:+d}", style=style),
            str(wins[place]),
            ", ".join(marks),
        )
    return table
