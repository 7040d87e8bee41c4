"""What the referee followed in a seeded session through the daemon (the rig of the tests):
moves per hand, claims, kongs, wins by type, hands with several winners on one discard.

    PYTHONPATH=. .venv/bin/python -m tests.sim.tally RULESET SEED [HANDS]
"""

import asyncio
import statistics
import sys
import tempfile
from collections import Counter
from pathlib import Path

from gpiozero import Device
from gpiozero.pins.mock import MockFactory, MockPWMPin

from tests.sim.test_played_sessions import play_session, several_winners


async def tally(ruleset: str, seed: int, hands: int) -> list[str]:
    """The session's figures as lines."""
    Device.pin_factory = MockFactory(pin_class=MockPWMPin)
    with tempfile.TemporaryDirectory() as scratch:
        rig = await play_session(Path(scratch), ruleset, seed, hands)
    plays = [r.play for r in rig.sink.results if r.play is not None]
    counts = [len(play.moves) for play in plays]
    kinds = Counter(m.kind.value for play in plays for m in play.moves)
    wins = Counter(w.win_type.value for play in plays for w in play.wins)
    return [
        f"{ruleset} seed {seed}: {hands} hands, moves per hand mean {statistics.mean(counts):.1f}"
        f" (min {min(counts)}, max {max(counts)})",
        "moves: " + ", ".join(f"{k} {n}" for k, n in kinds.most_common()),
        "wins: " + ", ".join(f"{k} {n}" for k, n in wins.most_common()),
        f"hands with several winners on one discard: {sum(map(several_winners, plays))}",
        f"incidents: {sum(len(r.incidents) for r in rig.sink.results)}; payments not summing"
        f" to zero: {sum(1 for r in rig.sink.results if sum(r.payments) != 0)}",
    ]


if __name__ == "__main__":
    args = sys.argv[1:]
    lines = asyncio.run(tally(args[0], int(args[1]), int(args[2]) if len(args) > 2 else 20))
    print("\n".join(lines))
