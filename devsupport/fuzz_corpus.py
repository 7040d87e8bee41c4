"""`python -m devsupport.fuzz_corpus DIR [--examples N]`: the inputs the C firmware's fuzz harness
starts from (hardware/firmware/fuzz), one file per byte stream from the host.

The frames come from the same hypothesis strategies as the Python codec's property tests
(tests/firmware_bridge/test_codec.py imports them from here), plus what a host really sends:
sessions of every command of the message table with good and bad payloads, repeats, skipped
numbers, heartbeats; and the same streams with garbage between frames, damaged bytes, lost
bytes and a runaway line without a frame end; frames of protocol version 1; and the host side
of the golden traces.
"""

import argparse
import json
import random
import sys
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firmware_bridge import messages
from firmware_bridge.fields import Sender, all_specs
from firmware_bridge.frame import MAX_ENCODED, MAX_PAYLOAD, Flag, Frame
from firmware_bridge.frame import encode_frame as encode
from firmware_bridge.sim.versions import written_as

TRACES = Path(__file__).resolve().parents[1] / "tests" / "firmware_bridge" / "traces"

frames = st.builds(
    Frame,
    type=st.integers(0, 255),
    payload=st.binary(max_size=MAX_PAYLOAD),
    seq=st.integers(0, 255),
    ack=st.integers(0, 255),
    flags=st.integers(0, 255),
)
"""Any frame the format can carry."""
small_frames = st.builds(
    Frame,
    type=st.integers(0, 255),
    payload=st.binary(max_size=40),
    seq=st.integers(0, 255),
    ack=st.integers(0, 255),
    flags=st.integers(0, 63),
)
"""Frames of the size commands have, with the flags the protocol defines."""

assert messages.TABLE_HASH  # the message table is registered
COMMANDS = [spec for spec in all_specs() if spec.sender is Sender.HOST]


@st.composite
def host_sessions(draw: st.DrawFn) -> bytes:
    """What a host sends: identify with SYNC, then commands numbered on (now and then a repeat,
    a skipped number, a heartbeat, a payload of the wrong size or an unknown type)."""
    seq = draw(st.integers(0, 255))
    out = [encode(Frame(0x01, b"", seq, 0, Flag.SYNC))]
    for _ in range(draw(st.integers(1, 40))):
        spec = draw(st.sampled_from(COMMANDS))
        size = spec.fixed.size
        if draw(st.integers(0, 9)) == 0:
            size = draw(st.integers(0, 12))
        payload = draw(st.binary(min_size=size, max_size=size))
        kind = spec.type_id if draw(st.integers(0, 19)) else draw(st.integers(0, 255))
        step = draw(st.sampled_from([1] * 12 + [0, 2, -3, 40]))
        if spec.type_id == 0x03:
            out.append(encode(Frame(kind, payload, 0, 0, Flag.UNSEQUENCED)))
            continue
        seq = (seq + step) & 0xFF
        out.append(encode(Frame(kind, payload, seq)))
    return b"".join(out)


def damaged(stream: bytes, rng: random.Random) -> list[bytes]:
    """The stream as a bad line delivers it: garbage between frames, damaged bytes, lost bytes,
    a runaway piece without a frame end."""
    noisy = bytearray()
    for piece in stream.split(b"\0"):
        if rng.random() < 0.2:
            noisy += bytes(rng.randrange(256) for _ in range(rng.randrange(1, 30))) + b"\0"
        noisy += piece + b"\0"
    flipped = bytearray(stream)
    for index in range(len(flipped)):
        if rng.random() < 0.01:
            flipped[index] ^= rng.randrange(1, 256)
    lost = bytes(b for b in stream if rng.random() >= 0.01)
    runaway = b"\x55" * (MAX_ENCODED + rng.randrange(1, 50)) + b"\0" + stream
    return [bytes(noisy), bytes(flipped), lost, runaway]


def examples(strategy: st.SearchStrategy[bytes], count: int) -> list[bytes]:
    """`count` examples drawn by hypothesis (no example database: the corpus is written
    afresh each time)."""
    found: list[bytes] = []

    @settings(max_examples=count, database=None, suppress_health_check=list(HealthCheck))
    @given(strategy)
    def collect(data: bytes) -> None:
        found.append(data)

    collect()
    return found


def _joined(items: list[Frame]) -> bytes:
    return b"".join(map(encode, items))


def _protocol_1(items: list[Frame]) -> bytes:
    """Frames as a host of protocol version 1 wrote them (an old daemon on a new table)."""
    return b"".join(written_as(encode(item), 1) for item in items)


def trace_streams() -> list[bytes]:
    """What the host sent in each golden trace."""
    streams = []
    for trace in sorted(TRACES.glob("*.jsonl")):
        lines = [json.loads(line) for line in trace.read_text().splitlines() if line.strip()]
        streams.append(
            b"".join(bytes.fromhex(item["hex"]) for item in lines if item["dir"] == "tx")
        )
    return streams


def corpus(count: int, seed: int = 0) -> list[bytes]:
    """Every input of the corpus."""
    rng = random.Random(seed)
    inputs = examples(frames.map(encode), count)
    inputs += examples(st.lists(small_frames, max_size=8).map(_joined), count)
    inputs += examples(st.lists(small_frames, max_size=4).map(_protocol_1), count // 4)
    sessions = examples(host_sessions(), count)
    inputs += sessions
    for stream in sessions[: count // 2] + trace_streams():
        inputs.append(stream)
        inputs += damaged(stream, rng)
    return inputs


def write_corpus(directory: Path, count: int = 200, seed: int = 0) -> int:
    """Write the corpus into `directory` (one file an input); returns the number of files."""
    directory.mkdir(parents=True, exist_ok=True)
    inputs = corpus(count, seed)
    for number, data in enumerate(inputs):
        (directory / f"input-{number:05d}").write_bytes(data)
    return len(inputs)


def main(argv: list[str] | None = None) -> int:
    """Entry point."""
    parser = argparse.ArgumentParser(prog="python -m devsupport.fuzz_corpus", description=__doc__)
    parser.add_argument("directory", type=Path)
    parser.add_argument("--examples", type=int, default=200, help="examples per generator (200)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    written = write_corpus(args.directory, args.examples, args.seed)
    sys.stdout.write(f"{written} inputs written to {args.directory}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
