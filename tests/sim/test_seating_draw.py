"""The seating draw on the simulated table, with the whole daemon: the wind tiles laid in the
HAND zones through the table's physical API, the table's dice, the players seated, and the
draw in the first hand's result as the hub gets it."""

import csv
import io
from collections.abc import Callable
from pathlib import Path

import msgspec
from gpiozero.pins.mock import MockFactory

from controller.hub.contract.envelopes import ResultMessage, decode, encode
from controller.hub.contract.result import HandResult, WallReveal
from controller.hub.table_side.table_report import hand_result
from controller.rules import tile_str
from controller.sim.players import Habits
from controller.table.cycle import Phase, TableView
from controller.venue.export import write_results
from controller.venue.store import StoredResult
from firmware_bridge.messages import Zone
from tests.sim.rig import Rig

PLAYERS = ("east", "south", "west", "north")
"""The players of the rig's session, by the chair they sit on while drawing."""
SEATING_BY_TEST = Habits(seating_draw=False)
"""The players play the hands; the test does the seating draw by hand."""


async def test_a_scripted_draw_is_read_a_wrong_one_said_and_the_players_seated(
    tmp_path: Path, pins: MockFactory
) -> None:
    async with Rig(tmp_path, "zung-jung", hands=1, seed=4, habits=SEATING_BY_TEST) as rig:
        view = await rig.until_phase(Phase.SEATING)
        assert "the player on chair E presses the dice button" in view.notice
        for rolls in (2, 4):
            rig.sim.buttons.press_dice()
            view = await rig.until(rolled(rolls))
        assert "each player takes one wind tile into his HAND zone" in view.notice

        table = rig.sim.table
        east, south, west, north = table.take_out(["1z", "2z", "3z", "4z"])
        # Chair N has East and South in its HAND zone, chair W none; W and N sit elsewhere.
        table.put(west, 0, Zone.HAND)
        table.put(north, 1, Zone.HAND)
        table.put(east, 3, Zone.HAND)
        table.put(south, 3, Zone.HAND)
        view = await rig.until(lambda v: "holds" in v.notice)
        assert view.phase is Phase.SEATING and view.fault is None
        assert "the HAND zone of chair W holds no tile" in view.notice, view.notice

        table.move(south.uid, 2, Zone.HAND)  # put right: chair W takes its tile
        view = await rig.until(lambda v: v.phase is not Phase.SEATING)
        assert view.phase is Phase.BUILDING, view
        # East's drawer (chair N, "north") deals on chair 0; South's drawer sits on his right.
        assert view.players == ("north", "west", "east", "south")
        assert view.dealer == 0

        view = await rig.until_phase(Phase.SESSION_OVER, Phase.FAULT)
        assert view.phase is Phase.SESSION_OVER, view.fault

    assert rig.cycle.wall_checks == [(1, ())], "the wind tiles went back for the build"
    (hand,) = rig.sink.results
    start = hand.start
    assert start.players == ("north", "west", "east", "south") and start.dealer == 0
    seating = start.seating
    assert seating is not None
    assert seating.players_at_draw == PLAYERS
    assert seating.drawn == ("W", "N", "S", "E")
    assert seating.dice == view_dice(rig)
    assert seating.players == start.players

    # The hub's result carries the draw, and reads back as it was sent.
    wall = [tile_str(kind) for kind in start.wall_order]
    sent = hand_result(hand, WallReveal.seal(wall))
    back = msgspec.json.decode(msgspec.json.encode(sent), type=HandResult)
    assert back.seating is not None
    assert back.seating.drawn == ["W", "N", "S", "E"]
    assert back.seating.players == ["north", "west", "east", "south"]
    assert back.seating.dealer == 0
    assert [s.player for s in sorted(back.seats, key=lambda s: s.seat)] == list(start.players)

    # The venue's export shows it in the result's `seating` column.
    message = ResultMessage(result=sent, table="t1", boot=1, seq=1, id="0" * 32, ts=sent.ended_at)
    stored = StoredResult(message.id, "t1", 1, "ok", encode(message))
    out = io.StringIO()
    write_results([(stored, decode(stored.payload, ResultMessage))], out)
    row = next(csv.DictReader(io.StringIO(out.getvalue())))
    dice = "+".join(str(d) for d in seating.dice)
    assert row["seating"] == f"east:W;south:N;west:S;north:E dice {dice}"


def rolled(count: int) -> Callable[[TableView], bool]:
    """The table shows `count` dice of the seating draw, at rest."""
    return lambda view: len(view.dice) == count and not view.rolling


def view_dice(rig: Rig) -> tuple[int, ...]:
    """The dice of the seating draw, as the daemon kept them."""
    session = rig.cycle.session
    assert session is not None and session.seating is not None
    return session.seating.dice


async def test_the_simulated_players_hold_the_draw_themselves(
    tmp_path: Path, pins: MockFactory
) -> None:
    phases: list[Phase] = []
    async with Rig(tmp_path, "zung-jung", hands=2, seed=2) as rig:
        rig.app.runner.observe(lambda v: phases.append(v.phase))
        view = await rig.until_phase(Phase.SESSION_OVER, Phase.FAULT)
        assert view.phase is Phase.SESSION_OVER, view.fault
    first, second = rig.sink.results
    seating = first.start.seating
    assert seating is not None and second.start.seating is None
    assert sorted(seating.drawn) == ["E", "N", "S", "W"]
    assert first.start.players == seating.players == second.start.players
    assert len(seating.dice) == 4
    assert rig.cycle.deal_checks == [(1, ()), (2, ())]
    assert phases.index(Phase.SEATING) < phases.index(Phase.BUILDING)


async def test_sichuan_and_shanghai_sessions_begin_without_a_draw(
    tmp_path: Path, pins: MockFactory
) -> None:
    for ruleset in ("sichuan", "shanghai"):
        seen: list[TableView] = []
        async with Rig(tmp_path / ruleset, ruleset, hands=1, seed=0) as rig:
            rig.app.runner.observe(seen.append)
            view = await rig.until_phase(Phase.PLAYING, Phase.FAULT)
            assert view.phase is Phase.PLAYING, view.fault
        assert Phase.SEATING not in {v.phase for v in seen}
        assert Phase.BUILDING in {v.phase for v in seen}
        assert view.players == PLAYERS
