"""The C firmware (hardware/firmware) built as CI builds it: its codec holds to the Python codec
frame for frame, its whole input path survives the fuzz corpus and libFuzzer under AddressSanitizer
and UBSan, and its Cortex-M0+ build fits the flash and RAM of the smallest part it is meant for.

(How it behaves on the line, as an MCU, is tested by the link tests: they run against it too.)"""

import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from devsupport.fuzz_corpus import frames, small_frames, write_corpus
from firmware_bridge.errors import FrameError
from firmware_bridge.frame import Frame, FrameDecoder, encode_frame
from tests.conftest import build_firmware

# One worker runs the whole module: its builds (the sanitized tools, the corpus) are made once.
pytestmark = pytest.mark.xdist_group("firmware-c")
FLASH_BUDGET = 64 * 1024
RAM_BUDGET = 16 * 1024


@pytest.fixture(scope="module")
def build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A build folder holding the fuzz corpus (written from the property-test generators)."""
    folder = tmp_path_factory.mktemp("firmware-c")
    write_corpus(folder / "corpus", count=60)
    return folder


@pytest.fixture(scope="module")
def sanitized(build: Path) -> str:
    """`make test`: the codec tool and the corpus run, built with ASan and UBSan; its output."""
    return build_firmware(build, "test", f"CORPUS={build / 'corpus'}").stdout


class CCodec:
    """The C codec (frame-tool) on a pipe."""

    def __init__(self, tool: Path) -> None:
        self._process = subprocess.Popen(
            [str(tool)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )

    def _ask(self, line: str) -> str:
        assert self._process.stdin is not None and self._process.stdout is not None
        self._process.stdin.write(line + "\n")
        self._process.stdin.flush()
        return self._process.stdout.readline().strip()

    def encode(self, frame: Frame) -> bytes:
        header = f"{frame.flags} {frame.seq} {frame.ack} {frame.type}"
        return bytes.fromhex(self._ask(f"encode {header} {frame.payload.hex() or '-'}"))

    def feed(self, data: bytes) -> list[Frame | None]:
        """What the decoder makes of `data`: frames, and None for each damaged piece."""
        out: list[Frame | None] = []
        reply = self._ask(f"feed {data.hex() or '-'}")
        while reply != "end":
            match reply.split():
                case ["frame", flags, seq, ack, kind, payload]:
                    body = b"" if payload == "-" else bytes.fromhex(payload)
                    out.append(Frame(int(kind), body, int(seq), int(ack), int(flags)))
                case ["error"]:
                    out.append(None)
                case _:
                    raise AssertionError(f"frame-tool said {reply!r}")
            assert self._process.stdout is not None
            reply = self._process.stdout.readline().strip()
        return out

    def close(self) -> None:
        assert self._process.stdin is not None
        self._process.stdin.close()
        self._process.wait(timeout=5)


@pytest.fixture(scope="module")
def c_codec(build: Path, sanitized: str) -> Iterator[CCodec]:
    codec = CCodec(build / "test" / "frame-tool")
    yield codec
    codec.close()


def python_feed(data: bytes) -> list[Frame | None]:
    return [None if isinstance(item, FrameError) else item for item in FrameDecoder().feed(data)]


def test_the_crc_has_its_check_value(sanitized: str) -> None:
    assert "crc check value 29b1" in sanitized


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(frames)
def test_the_c_encoder_writes_the_bytes_the_python_encoder_writes(
    c_codec: CCodec, frame: Frame
) -> None:
    assert c_codec.encode(frame) == encode_frame(frame)


@settings(max_examples=150, suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(st.binary(max_size=30), small_frames), max_size=8), st.integers(0, 3))
def test_the_c_decoder_finds_the_frames_and_damage_the_python_decoder_finds(
    c_codec: CCodec, items: list[tuple[bytes, Frame]], flip: int
) -> None:
    stream = bytearray(b"".join(garbage + b"\0" + encode_frame(frame) for garbage, frame in items))
    for index in range(flip, len(stream), 37):  # some frames damaged
        stream[index] ^= 0x40
    data = bytes(stream) + b"\0"
    assert c_codec.feed(data) == python_feed(data)


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=1500))
def test_the_c_decoder_reads_any_noise_as_the_python_decoder_does(
    c_codec: CCodec, noise: bytes
) -> None:
    assert c_codec.feed(noise + b"\0") == python_feed(noise + b"\0")


def test_the_fuzz_corpus_runs_clean_under_address_and_undefined_behaviour_sanitizers(
    sanitized: str, build: Path
) -> None:
    inputs = len(list((build / "corpus").iterdir()))
    ran = re.search(r"corpus: (\d+) inputs, (\d+) frames written, no fault", sanitized)
    assert ran is not None, sanitized
    assert int(ran[1]) == inputs and int(ran[2]) > inputs


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_libfuzzer_finds_nothing_in_the_firmware_input_path(build: Path) -> None:
    done = build_firmware(build, "fuzz", f"CORPUS={build / 'corpus'}", "FUZZ_SECONDS=10")
    assert "Done" in done.stderr and "ERROR" not in done.stderr


def test_the_cortex_m0_build_fits_64_kib_flash_and_16_kib_ram(build: Path) -> None:
    made = build_firmware(build, "arm").stdout
    figures = re.search(r"flash: (\d+) bytes .*RAM: (\d+) bytes", made)
    assert figures is not None, made
    flash, ram = int(figures[1]), int(figures[2])
    assert 0 < flash <= FLASH_BUDGET and 0 < ram <= RAM_BUDGET
    assert (build / "arm" / "mahjong-fw.bin").stat().st_size == flash
