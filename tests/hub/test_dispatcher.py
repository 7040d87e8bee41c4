"""Hub commands on the table: carried out once, answered always, and never a crash on bad input."""

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.clock import ManualClock
from controller.hub.contract.hub_commands import (
    EndSession,
    PauseSession,
    ReportStatus,
    ResendResults,
    ResumeSession,
    StartSession,
)
from controller.hub.contract.schemas import SCHEMA_DIR
from controller.hub.contract.signing import TableKey
from controller.hub.contract.table_events import TableStatus
from controller.hub.table_side.dispatcher import CommandDispatcher
from controller.hub.table_side.outbox import Outbox
from tests.hub.commanding import command, resign
from tests.hub.factories import KEY_TEXT, OTHER_KEY_TEXT, PLAYERS, SessionBook

START = StartSession(session="final-1", ruleset="zung-jung", players=list(PLAYERS))


class LinkSide:
    """What the hub link does for resend and status commands, recorded."""

    def __init__(self) -> None:
        self.resends: list[tuple[int, int | None]] = []
        self.statuses: list[TableStatus] = []

    async def resend(self, since: int, until: int | None) -> str:
        self.resends.append((since, until))
        return f"queued from {since}"

    def report_status(self, status: TableStatus) -> None:
        self.statuses.append(status)


@pytest.fixture
def book() -> SessionBook:
    return SessionBook()


@pytest.fixture
def link_side() -> LinkSide:
    return LinkSide()


@pytest.fixture
def dispatcher(
    tmp_path: Path, book: SessionBook, link_side: LinkSide, clock: ManualClock
) -> Iterator[CommandDispatcher]:
    outbox = Outbox(tmp_path / "o.db").open()
    yield CommandDispatcher("t1", TableKey(KEY_TEXT), book, link_side, outbox, clock)
    outbox.close()


async def test_a_session_is_started_paused_resumed_and_ended(
    dispatcher: CommandDispatcher, book: SessionBook, clock: ManualClock
) -> None:
    for action in (START, PauseSession(reason="tea"), ResumeSession(), EndSession(reason="time")):
        answer = await dispatcher.handle(command(action, clock))
        assert answer.ok, answer
    assert book.log == ["start final-1", "pause tea", "resume", "end time"]


async def test_a_repeated_command_runs_once_and_gets_the_same_answer(
    dispatcher: CommandDispatcher, book: SessionBook, clock: ManualClock
) -> None:
    payload = command(START, clock)
    first = await dispatcher.handle(payload)
    again = await dispatcher.handle(payload)
    assert first == again and first.ok
    assert book.log == ["start final-1"]


async def test_a_command_the_table_cannot_follow_is_refused_in_plain_words(
    dispatcher: CommandDispatcher, book: SessionBook, clock: ManualClock
) -> None:
    answer = await dispatcher.handle(command(ResumeSession(), clock))
    assert (answer.code, answer.message) == ("refused", "the session is not paused")
    assert book.state == "idle"


async def test_status_and_resend_are_passed_to_the_link(
    dispatcher: CommandDispatcher, link_side: LinkSide, clock: ManualClock
) -> None:
    assert (await dispatcher.handle(command(ReportStatus(), clock))).ok
    answer = await dispatcher.handle(command(ResendResults(since_seq=7), clock))
    assert answer.message == "queued from 7"
    await dispatcher.handle(command(ResendResults(since_seq=3, until_seq=5), clock))
    assert link_side.resends == [(7, None), (3, 5)] and link_side.statuses[0].state == "idle"


@pytest.mark.parametrize(
    ("make", "code"),
    [
        (lambda c: command(START, c, lifetime_s=-1), "expired"),
        (lambda c: command(START, c, lifetime_s=3 * 86400), "malformed"),
        (lambda c: command(START, c, table="t2"), "wrong_table"),
        (lambda c: command(START, c, key=OTHER_KEY_TEXT), "unauthorised"),
        (lambda c: b"\xff\xfe not json", "malformed"),
        (lambda c: b"[]", "malformed"),
    ],
)
async def test_bad_commands_change_nothing(
    dispatcher: CommandDispatcher, book: SessionBook, clock: ManualClock, make: Any, code: str
) -> None:
    answer = await dispatcher.handle(make(clock))
    assert answer.code == code
    assert book.log == []


async def test_an_unknown_action_is_named(
    dispatcher: CommandDispatcher, clock: ManualClock
) -> None:
    fields = msgspec.json.decode(command(ReportStatus(), clock))
    fields["action"] = {"type": "open_bar"}
    answer = await dispatcher.handle(resign(fields))
    assert (answer.code, answer.message) == ("unknown", "unknown action 'open_bar'")


async def test_a_newer_version_is_unsupported(
    dispatcher: CommandDispatcher, clock: ManualClock
) -> None:
    fields = msgspec.json.decode(command(ReportStatus(), clock))
    answer = await dispatcher.handle(resign({**fields, "v": 2}))
    assert answer.code == "unsupported"


# --- malformed commands generated from the JSON Schema ---------------------------------------

SCHEMA = json.loads((SCHEMA_DIR / "command.schema.json").read_text())
WRONG_VALUES: dict[str, list[Any]] = {
    "string": [17, None, [], {"a": 1}, True],
    "integer": ["7", 1.5, None, [], -1, 0],
    "boolean": ["yes", 0, None],
    "array": ["ann,bo", 3, None, {"x": 1}, ["a", "b"], []],
}


def _schema_of(name: str) -> dict[str, Any]:
    return SCHEMA["$defs"][name]  # type: ignore[no-any-return]


def _mutations(fields: dict[str, Any], schema: dict[str, Any]) -> list[dict[str, Any]]:
    """Every way to break one property: drop a required one, or give one a wrong type."""
    out = [{k: v for k, v in fields.items() if k != name} for name in schema.get("required", [])]
    for name, prop in schema["properties"].items():
        kind = prop.get("type")
        for wrong in WRONG_VALUES.get(kind, [] if kind else [12, "x"]):
            if not _fits(wrong, prop):
                out.append({**fields, name: wrong})
    return out


def _fits(value: Any, prop: dict[str, Any]) -> bool:
    if prop.get("type") == "integer" and isinstance(value, int) and not isinstance(value, bool):
        return bool(value >= prop.get("minimum", value))
    return False


def _all_malformed(clock: ManualClock) -> list[dict[str, Any]]:
    fields = msgspec.json.decode(command(START, clock))
    start_schema = _schema_of("StartSession")
    broken = _mutations(fields, _schema_of("CommandMessage"))
    broken += [{**fields, "action": a} for a in _mutations(fields["action"], start_schema)]
    broken += [{**fields, "action": {**fields["action"], "players": ["ann"] * 4}}]
    return broken


CLOCK = ManualClock()
MALFORMED = _all_malformed(CLOCK)


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.sampled_from(MALFORMED), st.booleans())
async def test_malformed_commands_get_an_error_and_the_table_keeps_serving(
    tmp_path: Path, fields: dict[str, Any], signed: bool
) -> None:
    book, link_side = SessionBook(), LinkSide()
    outbox = Outbox(tmp_path / f"{id(fields)}-{signed}.db").open()
    dispatcher = CommandDispatcher("t1", TableKey(KEY_TEXT), book, link_side, outbox, CLOCK)
    # Re-signing lets only the schema check refuse it; a broken `sig` itself is sent as is.
    resigned = signed and isinstance(fields.get("sig"), str)
    payload = resign(fields) if resigned else msgspec.json.encode(fields)
    try:
        answer = await dispatcher.handle(payload)
        assert not answer.ok and answer.code != "error", answer
        assert book.log == [] and link_side.resends == []
        assert (await dispatcher.handle(command(START, CLOCK))).ok
    finally:
        outbox.close()


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=300) | st.text(max_size=200).map(str.encode))
async def test_any_bytes_get_an_answer_never_an_exception(
    tmp_path_factory: Any, junk: bytes
) -> None:
    book = SessionBook()
    outbox = Outbox(tmp_path_factory.mktemp("o") / "o.db").open()
    dispatcher = CommandDispatcher("t1", TableKey(KEY_TEXT), book, LinkSide(), outbox, CLOCK)
    try:
        answer = await dispatcher.handle(junk)
    finally:
        outbox.close()
    assert not answer.ok and book.log == []


def test_the_generated_cases_cover_every_property() -> None:
    assert len(MALFORMED) > 40
