"""The pure parts of diag: what status calls a problem, the dice check, the tile audit, the
socket's rate limit, hidden secrets, and when motors may move."""

import contextlib
import dataclasses
from collections import Counter
from pathlib import Path
from typing import cast

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller import paths
from controller.config import TableConfig, load_config
from controller.diag import protocol, wire
from controller.diag.config_view import HIDDEN, config_keys
from controller.diag.ports import BenchMcu
from controller.diag.selftest import dice_step
from controller.diag.server import TokenBucket
from controller.diag.socket_path import configured_socket
from controller.diag.status import StatusSources, problems_of
from controller.diag.status_report import HubFacts, McuFacts, Seat, StatusReport, Versions
from controller.diag.status_view import (
    HubData,
    McuData,
    SeatData,
    StatusData,
    VersionsData,
)
from controller.diag.status_view import healthy as status_healthy
from controller.diag.target import DiagTarget
from controller.diag.tiles import FACES, TileSetStore, audit_read, copies
from controller.diag.wire import VERSION, ErrorCode, Kind, Op
from controller.errors import ConfigError
from controller.table.core import Phase
from controller.table.cycle import HandCycle
from controller.table.settings import CycleSettings

IDLE = HandCycle(None, CycleSettings()).view()
MCU = McuFacts(connected=True)
HUB = HubFacts(configured=False)
CALM = {"dice_button": False, "estop": False}


def test_a_healthy_table_has_no_problems() -> None:
    assert problems_of(IDLE, [], MCU, HUB, CALM, "") == []


def test_each_problem_is_named_with_what_to_do() -> None:
    faulty = dataclasses.replace(
        IDLE, phase=Phase.FAULT, fault="the lid is open: every motor stopped"
    )
    found = problems_of(
        faulty,
        ["close the lid"],
        McuFacts(connected=True, faults=["lid open"]),
        HubFacts(configured=True, connected=False, attention="2 results were refused: fix the key"),
        {"dice_button": True, "estop": True},
        "",
    )
    assert found == [
        "fault: the lid is open: every motor stopped",
        "holding until you close the lid",
        "the MCU reports: lid open",
        "the emergency stop is pressed (or its wire is broken): release it",
        "dice button reads pressed: a stuck button or a short in its wire; check the button",
        "the hub link is down: check the network and the broker (diag mqtt)",
        "2 results were refused: fix the key",
    ]
    offline = problems_of(None, [], McuFacts(connected=False, problem="no link"), HUB, {}, "")
    assert offline == ["the table MCU does not answer: no link"]


def test_a_pressed_button_during_play_is_a_player_not_a_fault() -> None:
    playing = dataclasses.replace(IDLE, phase=Phase.PLAYING)
    assert problems_of(playing, [], MCU, HUB, {"declare_e": True}, "") == []


def test_dice_check_passes_fair_dice_and_fails_loaded_ones() -> None:
    fair = Counter(dict.fromkeys(range(1, 7), 20))
    assert dice_step(fair, 60).passed
    loaded = Counter({6: 100, 1: 20})
    step = dice_step(loaded, 60)
    assert not step.passed
    assert step.detail.startswith("uneven (1:20 2:0 3:0 4:0 5:0 6:100")
    assert "dome spins freely" in step.check
    assert not dice_step(Counter({7: 1, 1: 119}), 60).passed


SET = {"A": {0xE000 + i: face for i, face in enumerate(f for f in FACES for _ in range(copies(f)))}}


@given(st.sets(st.sampled_from(sorted(SET["A"])), max_size=10))
def test_audit_names_every_missing_tile_by_face(missing: set[int]) -> None:
    read = [uid for uid in SET["A"] if uid not in missing]
    audit = audit_read(SET, read)
    assert sorted(audit.missing) == sorted(SET["A"][uid] for uid in missing)
    assert audit.set == "A"
    assert audit.tiles_read == 144 - len(missing)


def test_audit_names_doubled_unknown_and_unread_tags() -> None:
    read = [*SET["A"], 0xE000, 0xBAD, 0, 0]
    audit = audit_read(SET, read)
    assert audit.duplicated == ["000000000000E000 (1m) x2"]
    assert audit.unknown == ["0000000000000BAD"]
    assert audit.unread == 2
    assert audit.missing == []


def test_the_rate_limit_allows_a_burst_then_refills_with_time() -> None:
    bucket = TokenBucket(rate=5.0, burst=10, now=0.0)
    assert [bucket.take(0.0) for _ in range(11)] == [True] * 10 + [False]
    assert bucket.take(0.2)  # one request's worth came back
    assert not bucket.take(0.2)


def test_secrets_are_hidden_only_when_set() -> None:
    config = TableConfig()
    keys = {key.key: key for key in config_keys(config)}
    assert keys["mqtt.result_key"].value == ""
    mqtt = dataclasses.replace(config.mqtt, result_key="k" * 64, password="pw")
    keys = {key.key: key for key in config_keys(dataclasses.replace(config, mqtt=mqtt))}
    assert keys["mqtt.result_key"].value == HIDDEN
    assert keys["mqtt.password"].value == HIDDEN
    assert keys["mqtt.result_key"].default is False


async def test_motors_move_only_between_hands() -> None:
    current = {"view": IDLE}
    status = StatusSources(
        "t", "0", "zung-jung", None, 0.0, lambda: 0.0, view=lambda: current["view"]
    )
    target = DiagTarget(  # only the view and the lock matter here: no port is used
        mode="daemon",
        config=TableConfig(),
        config_source="",
        mcu=cast(BenchMcu, None),
        panel=None,
        store=cast(TileSetStore, None),
        tileset=Path("tileset.toml"),
        status=status,
    )
    assert target.why_not_move() == ""
    current["view"] = dataclasses.replace(IDLE, phase=Phase.PLAYING, hand=3)
    assert target.why_not_move().startswith("hand 3 is in play (playing): motors move only")
    current["view"] = dataclasses.replace(IDLE, phase=Phase.FAULT, hand=3, dice=(2, 5))
    assert "hand 3 is in play (fault)" in target.why_not_move()
    current["view"] = dataclasses.replace(IDLE, phase=Phase.FAULT, hand=3)
    assert target.why_not_move() == ""  # a fault before the dice: nobody holds tiles
    async with target.motors:
        assert "another self-test or tile read is running" in target.why_not_move()


@pytest.mark.parametrize(
    "text",
    [
        "",
        '[table]\nid = "table-03"\n',
        "[control]\nidle_s = 5.0\n",
        '[control]\nsocket = "/srv/table/control.sock"\n',
        '[control]\nsocket = "relative/control.sock"\n',
    ],
)
def test_diag_finds_the_socket_the_daemon_listens_on(
    text: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(paths.RUN_DIR_VARIABLE, str(tmp_path / "run"))
    config = tmp_path / "table.toml"
    config.write_text(text)
    assert configured_socket(config) == load_config(config).control.socket


@pytest.mark.parametrize("text", ["[control]\nsocket = 7\n", "[control\n", "control = 1\n"])
def test_a_config_the_quick_reading_cannot_tell_goes_to_the_full_loader(
    text: str, tmp_path: Path
) -> None:
    config = tmp_path / "table.toml"
    config.write_text(text)
    assert configured_socket(config) is None
    with pytest.raises(ConfigError):  # which names the file's problem
        load_config(config)
    assert configured_socket(tmp_path / "missing.toml") is None


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**53), 2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)


@given(
    st.sampled_from(list(Kind)),
    JSON_VALUES,
    st.none() | st.sampled_from(list(ErrorCode)),
    st.text(max_size=40),
)
def test_the_light_client_reads_every_reply_line_the_daemon_writes(
    kind: Kind, data: object, code: ErrorCode | None, message: str
) -> None:
    raw = msgspec.Raw(msgspec.json.encode(data))
    line = protocol.encode(protocol.Reply(VERSION, kind, raw, code, message))
    assert wire.read_reply(line) == wire.ReplyLine(kind, data, code, message)


@pytest.mark.parametrize("op", list(Op))
def test_the_daemon_reads_the_light_clients_lines(op: Op) -> None:
    assert protocol.decode_request(wire.plain_request(op)) == protocol.Request(VERSION, op)
    for yes in (True, False):
        assert protocol.decode_answer(wire.answer_line(yes)) == protocol.Answer(VERSION, yes)


def test_the_status_a_client_reads_has_the_fields_the_daemon_sends() -> None:
    pairs: list[tuple[type[msgspec.Struct], type]] = [
        (StatusReport, StatusData),
        (McuFacts, McuData),
        (HubFacts, HubData),
        (Versions, VersionsData),
        (Seat, SeatData),
    ]
    for struct, view in pairs:
        assert [f.name for f in msgspec.structs.fields(struct)] == list(view.__annotations__)
    report = StatusReport(
        table="t",
        mode="daemon",
        state="problem",
        phase="fault",
        headline="fault: the lid is open",
        fault="the lid is open",
        holds=["close the lid"],
        notice="",
        session="s-1",
        hand=2,
        hands_played=1,
        paused=False,
        seats=[Seat("E", "ann", 25)],
        mcu=McuFacts(connected=True, rtt_ms_p50=1.5),
        hub=HubFacts(configured=True, oldest_unacked="#3 (r-3)"),
        inputs={"estop": False},
        versions=Versions(daemon="1", firmware="1", protocol=1, ruleset="r", ruleset_data="d"),
        uptime_s=60.0,
        boot_count=3,
        control_refused=0,
        problems=["fault: the lid is open"],
    )
    seen = msgspec.json.decode(msgspec.json.encode(report), type=StatusData)  # checks types
    assert status_healthy(seen) is report.healthy is False


@given(st.binary(max_size=256) | st.integers(1, 5000).map(lambda n: b"[" * n + b"]" * n))
def test_a_reply_line_the_client_cannot_read_is_a_value_error(line: bytes) -> None:
    with contextlib.suppress(ValueError):  # the client says it cannot read the reply
        wire.read_reply(line)
