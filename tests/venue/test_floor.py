"""The floor tells at a glance what each table is doing: playing (hand N of M, the last result
and when), stalled, fault, paused, finished, aborted, waiting; penalties this session; a
banner when the recorder cannot record; a kiosk view without controls; pattern names in
Chinese with the English beside them."""

import asyncio
import http.client
import re
from pathlib import Path

import pytest

from controller.hub.contract.incidents import IncidentKind
from controller.hub.contract.result import Incident
from controller.hub.contract.table_events import TableStatus
from controller.venue.dashboard.pages import CSS
from controller.venue.dashboard.pattern_names import shown
from controller.venue.export import decoded
from controller.venue.store import open_store
from controller.venue.tournament.commands import report_of, round_starts
from controller.venue.tournament.definition import load_tournament
from devsupport.mosquitto import Broker
from tests.hub.factories import START, hand_result
from tests.hub.helpers import eventually
from tests.venue.test_operator_browser import Floor, playing_floor
from tests.venue.test_tournament import DEFINITION, _play

pytestmark = [pytest.mark.broker]
PLAYERS = ("p01", "p02", "p03", "p04")


async def _get(floor: Floor, path: str) -> str:
    def fetch() -> str:
        conn = http.client.HTTPConnection("127.0.0.1", floor.port, timeout=10)
        conn.request("GET", path)
        body = conn.getresponse().read().decode()
        conn.close()
        return body

    return await asyncio.to_thread(fetch)


def _card(page: str, table: str) -> str:
    found = re.search(rf'<div class="card ([a-z-]+)" id="table-{table}".*?</div></div>', page)
    assert found, f"no card for {table}"
    return found.group(0)


async def _status(floor: Floor, table: str, status: TableStatus, state: str) -> str:
    """Publish a status and return the table's card once the floor shows `state`."""
    floor.links[table].update_status(status)
    for _ in range(50):
        version = floor.dashboard.views.version
        page = await _get(floor, "/")
        shown = f'id="table-{table}"' in page  # a table known only by its status: once heard
        if shown and f'class="card {state}"' in _card(page, table):
            return _card(page, table)
        await eventually(lambda v=version: floor.dashboard.views.version > v, "a recorder batch")  # type: ignore[misc]
    raise AssertionError(f"{table} never showed {state}")


async def test_each_state_reads_at_a_glance(broker: Broker, tmp_path: Path) -> None:
    definition = tmp_path / "cup.toml"
    definition.write_text(DEFINITION)
    async with playing_floor(broker, tmp_path, load_tournament(definition)) as floor:
        session = "cup.qualifying.r1.t{}"
        slow = Incident(at=START, seat=1, kind=IncidentKind.TURN_TIME, penalty=5)
        floor.links["t1"].record_result(
            hand_result(1, session.format(1), PLAYERS, incidents=(slow,))
        )
        for hand in (1, 2):
            floor.links["t4"].record_result(hand_result(hand, session.format(4), PLAYERS))
        floor.links["t3"].record_result(hand_result(1, session.format(3), PLAYERS))
        await eventually(lambda: floor.dashboard.live.count == 4, "four results recorded")

        t1 = await _status(floor, "t1", TableStatus(state="playing", session=session.format(1),
                           hand=2, players=list(PLAYERS)), "playing")  # fmt: skip
        assert "hand 2 of 2" in t1 and "zung-jung" in t1
        assert "last result: hand 1: p01 won +24 off p03" in t1
        assert "penalties: 5 pts" in t1
        # The last result is long past: the browser turns the card to stalled by itself.
        assert re.search(r'data-stall-after="\d+"', t1)

        fault = TableStatus(state="fault", fault="motor stalled: switch the table off")
        t2 = await _status(floor, "t2", fault, "fault")
        assert "FAULT: motor stalled" in t2
        paused = TableStatus(state="paused", session=session.format(3), hand=2)
        assert ">paused<" in await _status(floor, "t3", paused, "paused")
        over = TableStatus(state="session_over", session=session.format(3))
        assert ">aborted<" in await _status(floor, "t3", over, "aborted")  # 1 of 2 hands
        over = TableStatus(state="session_over", session=session.format(4))
        assert ">finished<" in await _status(floor, "t4", over, "finished")  # 2 of 2

        kiosk = await _get(floor, "/kiosk")
        assert "class=kiosk" in kiosk and "log in" not in kiosk and "table-t4" in kiosk

        broker.stop()
        await eventually(lambda: not floor.dashboard.recorder.connected.is_set(), "recorder down")
        page = await _get(floor, "/")
        assert "class='banner on'" in page and "not connected to the broker" in page
        broker.start()


def test_pattern_names_show_the_english_beside_the_chinese_and_fonts_fall_back() -> None:
    assert shown("清一色") == "清一色 (Pure One-Suit)"
    assert shown("All Chows") == "All Chows"
    assert '"Noto Sans CJK SC"' in CSS and '"Microsoft YaHei"' in CSS and "sans-serif" in CSS


async def test_a_make_up_session_shows_hand_n_of_m(broker: Broker, tmp_path: Path) -> None:
    definition = tmp_path / "cup.toml"
    definition.write_text(DEFINITION)
    t = load_tournament(definition)
    store = open_store(str(tmp_path / "hub.db"))  # what the recorder will find at start
    _play(t, store, "qualifying", 1, forfeit_at="t1")  # three players are left a hand short
    _play(t, store, "qualifying", 2)
    played = [m.result for _, m in decoded(store.results())]
    (start,) = round_starts(t, report_of(t, store), "qualifying", 3, played)
    store.close()
    assert start.hands == 1
    async with playing_floor(broker, tmp_path, t) as floor:
        playing = TableStatus(state="playing", session=start.session, hand=1,
                              players=start.players)  # fmt: skip
        assert "hand 1 of 1" in await _status(floor, "t1", playing, "playing")
