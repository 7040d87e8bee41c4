"""A process that writes results into an outbox as fast as it can and says which are on disk;
the outbox tests kill it with SIGKILL at a random moment."""

import sys
from pathlib import Path

from controller.clock import SystemClock
from controller.hub.contract.envelopes import ResultMessage, encode, new_header
from controller.hub.contract.signing import TableKey
from controller.hub.table_side.outbox import FeedKind, Outbox
from tests.hub.factories import KEY_TEXT, hand_result


def main(path: Path, count: int) -> None:
    outbox = Outbox(path).open()
    key, clock = TableKey(KEY_TEXT), SystemClock()
    for hand in range(1, count + 1):

        def build(seq: int, hand: int = hand) -> tuple[str, bytes]:
            head = new_header("t1", outbox.boot, seq, clock)
            message = key.sign(ResultMessage(result=hand_result(hand), **head))
            return message.id, encode(message)

        seq = outbox.add_result(build, clock.wall())
        print(seq, flush=True)
        outbox.add_feed(FeedKind.EVENT, "mahjong/tables/t1/events", lambda s: b"x" * 200)


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]))
