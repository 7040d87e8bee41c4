"""Recorder, per result: CPU time to check one signed result (signature and decode) and to
handle it whole (check, audit, record in a SQLite store, ack), against a bare parse of the
same bytes.

    .venv/bin/python bench/recorder_decode_bench.py [--results 2000] [--rounds 5]

- bare parse: `msgspec.json.decode` of the payload into plain Python values, and an
  HMAC-SHA256 of its bytes: the least any recorder does with a signed JSON result.
- check: `TableKey.verified(payload, ResultMessage)`, what the recorder does to each result
  before it records it (bounded parse, signature over the parsed value, typed message).
- handle: `Recorder.handle_messages` on batches of 50 results inside the store's transaction
  (on a SQLite file in a temp folder), what the recorder's store thread does per result; the
  commit is not included.

Every figure is CPU seconds (process time) over all --results payloads, the three taking turns
for --rounds rounds; printed as microseconds a result, median (range), and ratios to the bare
parse per round. The payloads are the hub bench's sample result (~1.7 KB, a 136-tile wall).
"""

import argparse
import hashlib
import hmac
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import msgspec

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.hub_support import KEY_TEXT, sample_result
from controller.clock import SystemClock
from controller.hub.contract.envelopes import ResultMessage, encode, new_header
from controller.hub.contract.signing import TableKey
from controller.hub.mqtt.aiomqtt_transport import AiomqttConnector
from controller.hub.mqtt.transport import BrokerAddress, Inbound
from controller.venue.async_store import AsyncStore
from controller.venue.keyring import KeyRing
from controller.venue.recorder import Recorder, RecorderSettings
from controller.venue.store import open_store

KEY = TableKey(KEY_TEXT)
BATCH = 50


def payloads(count: int, first: int) -> list[bytes]:
    """`count` signed results of table t1, hands numbered from `first`."""
    clock = SystemClock()
    return [
        encode(KEY.sign(ResultMessage(result=sample_result(h), **new_header("t1", 1, h, clock))))
        for h in range(first, first + count)
    ]


def bare(items: list[bytes]) -> None:
    secret = KEY_TEXT.encode()
    for payload in items:
        msgspec.json.decode(payload)
        hmac.new(secret, payload, hashlib.sha256).hexdigest()


def check(items: list[bytes]) -> None:
    for payload in items:
        assert KEY.verified(payload, ResultMessage) is not None


def handler(folder: Path) -> Callable[[list[bytes]], None]:
    """Handling by a recorder on a fresh SQLite store (it never connects to a broker)."""
    address = BrokerAddress.from_url("mqtt://127.0.0.1:1", client_id="bench")
    store = AsyncStore(open_store(str(folder / "hub.db")))
    recorder = Recorder(RecorderSettings(), store, KeyRing({"t1": KEY}), AiomqttConnector(address))

    def handle(items: list[bytes]) -> None:
        now = time.time()
        inbound = [Inbound("mahjong/tables/t1/results", p, False, received=now) for p in items]
        for start in range(0, len(inbound), BATCH):
            with store.sync:
                batch = recorder.handle_messages(inbound[start : start + BATCH])
                assert batch.counts.recorded == len(inbound[start : start + BATCH])

    return handle


def cpu(work: Callable[[list[bytes]], None], items: list[bytes]) -> float:
    """CPU seconds a result."""
    started = time.process_time()
    work(items)
    return (time.process_time() - started) / len(items)


def main(args: argparse.Namespace) -> None:
    figures: dict[str, list[float]] = {"bare parse": [], "check": [], "handle": []}
    with tempfile.TemporaryDirectory(prefix="recorder-decode-") as tmp:
        handle = handler(Path(tmp))
        for index in range(args.rounds):
            items = payloads(args.results, 1 + index * args.results)  # new hands: recorded anew
            figures["bare parse"].append(cpu(bare, items))
            figures["check"].append(cpu(check, items))
            figures["handle"].append(cpu(handle, items))
    median = statistics.median
    print(f"recorder, per result ({len(items[0])} bytes), CPU, median (range) of {args.rounds}")
    base = figures["bare parse"]
    for name, found in figures.items():
        ratios = [mine / theirs for mine, theirs in zip(found, base, strict=True)]
        print(
            f"  {name:11s} {1e6 * median(found):7.1f} us ({1e6 * min(found):.1f}-"
            f"{1e6 * max(found):.1f})   x bare parse {median(ratios):5.1f} "
            f"({min(ratios):.1f}-{max(ratios):.1f})"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=int, default=2000, help="results a round")
    parser.add_argument("--rounds", type=int, default=5, help="rounds, the three taking turns")
    main(parser.parse_args())
