"""Players who make mistakes on purpose: each kind of slip shows on the table as it
would with people (the zones and the move list prove it), it is written down once as a
typed record with the right seat, and the same seed makes the same slips."""

import json
from dataclasses import replace
from pathlib import Path

import pytest

from controller.rules import get_ruleset
from controller.sim.mistakes import SLOPPY, Sloppiness
from controller.sim.moves import Move, MoveKind, Slip, SlipKind, write_jsonl
from firmware_bridge.messages import Zone
from tests.sim.tabletop import Played, play_hand, where

ONLY = {
    SlipKind.SLOW_TURN: Sloppiness(seed=5, slow_turn=0.2),
    SlipKind.FALSE_WIN: Sloppiness(seed=5, false_win=0.2),
    SlipKind.DRAW_OUT_OF_TURN: Sloppiness(seed=5, draw_out_of_turn=0.2),
    SlipKind.SHORT_HAND: Sloppiness(seed=5, short_hand=0.2),
    SlipKind.LONG_HAND: Sloppiness(seed=5, long_hand=0.2),
    SlipKind.LATE_CLAIM: Sloppiness(seed=5, late_claim=1.0),
    SlipKind.WRONG_SEAT_CHOW: Sloppiness(seed=5, wrong_seat_chow=0.5),
    SlipKind.PENALTY_SET: Sloppiness(seed=5, false_win=0.2, penalty_set=1.0),
    SlipKind.CLAIM_RACE: Sloppiness(seed=5, claim_race=1.0),
}
"""Sloppiness with one kind of slip only."""


async def hand_with(kind: SlipKind, ruleset: str = "zung-jung") -> tuple[Played, Slip]:
    """The first seeded hand in which a slip of this kind happens, and that slip."""
    for seed in range(30):
        played = await play_hand(ruleset, seed, sloppy=ONLY[kind])
        assert played.umpire.problems == []
        made = [slip for slip in played.play.slips if slip.kind is kind]
        assert {slip.kind for slip in played.play.slips} <= {kind, SlipKind.FALSE_WIN}
        if made:
            return played, made[0]
    raise AssertionError(f"no {kind} in thirty hands")


def after(moves: list[Move], slip: Slip) -> list[Move]:
    return moves[slip.move_index :]


async def test_a_slow_turn_overruns_the_rulesets_turn_limit() -> None:
    played, slip = await hand_with(SlipKind.SLOW_TURN)
    limit = get_ruleset("zung-jung").data["timing"]["turn_seconds"]
    assert slip.seconds == limit + ONLY[SlipKind.SLOW_TURN].slow_by_s
    assert played.umpire.stalled[0] == slip.seconds
    thrown = after(played.play.moves, slip)[0]
    assert (thrown.kind, thrown.place) == (MoveKind.DISCARD, slip.place), "then it discards"


async def test_a_false_win_is_refused_and_play_goes_on() -> None:
    played, slip = await hand_with(SlipKind.FALSE_WIN)
    declared, *rest = after(played.play.moves, slip)
    assert (declared.kind, declared.place) == (MoveKind.DECLARE, slip.place)
    assert played.umpire.refused[0] == slip.place
    assert rest and rest[0].kind is MoveKind.DISCARD and rest[0].place == slip.place


async def test_drawing_out_of_turn_skips_the_seat_on_turn() -> None:
    played, slip = await hand_with(SlipKind.DRAW_OUT_OF_TURN)
    moves = played.play.moves
    drew = moves[slip.move_index]
    before = [m for m in moves[: slip.move_index] if m.kind is MoveKind.DISCARD][-1]
    assert (drew.kind, drew.place) == (MoveKind.DRAW, slip.place)
    assert slip.place == (before.place + 2) % 4, "the seat after the one on turn drew"
    assert where(played.table, drew.uids[0]) in (
        (slip.place, Zone.HAND),
        (slip.place, Zone.DISCARD),
    )


@pytest.mark.parametrize(("kind", "off"), [(SlipKind.SHORT_HAND, -1), (SlipKind.LONG_HAND, 1)])
async def test_a_short_or_long_hand_stays_one_off_and_never_wins(kind: SlipKind, off: int) -> None:
    played, slip = await hand_with(kind)
    moves = after(played.play.moves, slip)
    twice = MoveKind.DISCARD if kind is SlipKind.SHORT_HAND else MoveKind.DRAW
    assert [m.kind for m in moves[:1]] == [twice] and moves[0].place == slip.place
    assert played.play.off[slip.place] == off
    held = len(played.table.zone_tiles(slip.place, Zone.HAND))
    sets = len(played.play.melds[slip.place])
    if slip.place not in played.umpire.winners and moves[-1].place != slip.place:
        assert held + 3 * sets == 13 + off
    assert not any(m.kind is MoveKind.DECLARE and m.place == slip.place for m in moves)


async def test_a_late_claim_takes_the_discard_after_the_next_draw() -> None:
    played, slip = await hand_with(SlipKind.LATE_CLAIM)
    moves = played.play.moves
    pung = moves[slip.move_index]
    draw, discard = moves[slip.move_index - 1], moves[slip.move_index - 2]
    assert (pung.kind, pung.place, pung.uids[0]) == (MoveKind.PUNG, slip.place, slip.uids[0])
    assert (discard.kind, discard.uids, pung.source) == (MoveKind.DISCARD, slip.uids, discard.place)
    assert draw.kind is MoveKind.DRAW and draw.place not in (slip.place, discard.place)
    # refused: the discard goes back to its river, the own tiles back to the hand
    assert where(played.table, slip.uids[0]) == (discard.place, Zone.DISCARD)
    assert {where(played.table, uid) for uid in pung.uids[1:]} == {(slip.place, Zone.HAND)}
    assert played.play.penalty[slip.place] >= set(pung.uids[1:])


async def test_a_chow_from_the_wrong_seat_is_laid_out_then_put_back() -> None:
    played, slip = await hand_with(SlipKind.WRONG_SEAT_CHOW, "shanghai")
    discard = [m for m in played.play.moves[: slip.move_index] if m.kind is MoveKind.DISCARD][-1]
    assert slip.uids == discard.uids and slip.place != (discard.place + 1) % 4
    assert len(played.play.penalty[slip.place]) >= 2


async def test_a_pung_with_a_penalty_tile_comes_after_a_false_win() -> None:
    played, slip = await hand_with(SlipKind.PENALTY_SET)
    kinds = [s.kind for s in played.play.slips if s.place == slip.place]
    assert SlipKind.FALSE_WIN in kinds[: kinds.index(SlipKind.PENALTY_SET)]


async def test_a_claim_race_lays_out_a_pung_the_winner_then_takes_from() -> None:
    played, slip = await hand_with(SlipKind.CLAIM_RACE)
    pung, take = played.play.moves[slip.move_index : slip.move_index + 2]
    assert (pung.kind, pung.place) == (MoveKind.PUNG, slip.place)
    assert take.kind is MoveKind.TAKE_DISCARD and take.uids[0] == pung.uids[0]
    assert {where(played.table, uid) for uid in pung.uids[1:]} == {(slip.place, Zone.HAND)}


async def test_slips_are_seeded_and_switch_off() -> None:
    sloppy = replace(SLOPPY, seed=3)
    first = await play_hand("sichuan", 4, sloppy=sloppy)
    again = await play_hand("sichuan", 4, sloppy=sloppy)
    assert first.play.slips == again.play.slips and first.play.slips
    other = await play_hand("sichuan", 4, sloppy=replace(SLOPPY, seed=4))
    assert other.play.slips != first.play.slips
    clean = await play_hand("sichuan", 4, sloppy=Sloppiness())
    assert clean.play.slips == [] and clean.umpire.stalled == []


async def test_the_ground_truth_is_written_as_json_lines(tmp_path: Path) -> None:
    played = await play_hand("shanghai", 6, sloppy=replace(SLOPPY, seed=1))
    path = tmp_path / "truth.jsonl"
    records: list[Move | Slip] = [*played.play.moves, *played.play.slips]
    assert write_jsonl(path, records) == len(records)
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert {row["record"] for row in rows} == {"move", "slip"}
    assert rows[0]["kind"] == played.play.moves[0].kind.value
