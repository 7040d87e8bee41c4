"""A table daemon reduced to its hub link, for tests that kill it with SIGKILL: it records
`count` results (printing `seq id` once each is on disk), then keeps serving until killed."""

import asyncio
import sys
from pathlib import Path

from tests.hub.factories import SessionBook, hand_result
from tests.hub.helpers import make_link


async def main(url: str, outbox: Path, count: int) -> None:
    link = make_link(url, outbox, SessionBook())
    task = asyncio.ensure_future(link.run())
    first = link.outbox.pending_count() + 1
    for hand in range(first, first + count):
        receipt = link.record_result(hand_result(hand))
        print(receipt.seq, receipt.id, flush=True)
        await asyncio.sleep(0)  # let the link send between results
    print("done", flush=True)
    await task


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])))
