"""The venue broker as shipped in deploy/mosquitto: TLS, a certificate per table whose name is
its MQTT user, and ACLs so that a table cannot speak for another or read its commands."""

import asyncio
import dataclasses
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from controller.hub.mqtt.aiomqtt_transport import AiomqttConnector
from controller.hub.mqtt.transport import BrokerAddress, BrokerDown, MqttSession
from devsupport.mosquitto import Broker, find_mosquitto, venue_broker
from tests.hub.factories import FAST, SessionBook, hand_result
from tests.hub.helpers import connector, eventually, make_link, make_recorder, running

pytestmark = pytest.mark.broker
DEPLOY = Path(__file__).parents[2] / "deploy" / "mosquitto"


@dataclass
class Venue:
    broker: Broker
    certs: Path

    @property
    def url(self) -> str:
        return f"mqtts://127.0.0.1:{self.broker.port}"

    def tls(self, name: str) -> dict[str, Path]:
        return {
            "ca_file": self.certs / "venue-ca.crt",
            "cert_file": self.certs / f"{name}.crt",
            "key_file": self.certs / f"{name}.key",
        }


def _make_certs(certs: Path, *args: str) -> None:
    subprocess.run([DEPLOY / "make-certs.sh", str(certs), *args], check=True, capture_output=True)


@pytest.fixture
def venue(tmp_path: Path) -> Iterator[Venue]:
    if find_mosquitto() is None:
        pytest.fail("mosquitto is not installed: run ./scripts/test, which installs it")
    certs = tmp_path / "certs"
    for args in (
        ["ca"],
        ["broker", "127.0.0.1", "localhost"],
        ["table", "table-a", "table-b"],
        ["hub"],
    ):
        _make_certs(certs, *args)
    broker = venue_broker(tmp_path / "broker", certs, DEPLOY)
    broker.start()
    yield Venue(broker, certs)
    broker.kill()


async def _collect(session: MqttSession, until_topic: str, into: list[str]) -> None:
    async for message in session.incoming():
        into.append(message.topic)
        if message.topic == until_topic:
            return


async def test_table_a_cannot_publish_into_table_b_topics(venue: Venue) -> None:
    forbidden = [
        "mahjong/tables/table-b/results",
        "mahjong/tables/table-b/status",
        "mahjong/tables/table-b/events",
        "mahjong/cmd/table-b",
        "mahjong/hub/ack/table-b",
        "mahjong/hub/state",
    ]
    hub_saw: list[str] = []
    b_saw: list[str] = []
    hub_c = connector(venue.url, tls=venue.tls("hub"))
    a_c = connector(venue.url, tls=venue.tls("table-a"))
    b_c = connector(venue.url, tls=venue.tls("table-b"))
    async with hub_c.session(None) as hub, a_c.session(None) as a, b_c.session(None) as b:
        await hub.subscribe("mahjong/tables/#", "mahjong/hub/state")
        await b.subscribe("mahjong/cmd/table-b", "mahjong/hub/ack/table-b")
        for topic in forbidden:
            await a.publish(topic, b'{"forged": true}')
        await a.publish("mahjong/tables/table-a/status", b"{}")
        await hub.publish("mahjong/hub/ack/table-b", b"{}")
        async with asyncio.timeout(10):
            await _collect(hub, "mahjong/tables/table-a/status", hub_saw)
            await _collect(b, "mahjong/hub/ack/table-b", b_saw)
    assert hub_saw == ["mahjong/tables/table-a/status"]
    assert b_saw == ["mahjong/hub/ack/table-b"]


async def test_table_a_cannot_read_table_b_commands(venue: Venue) -> None:
    a_saw: list[str] = []
    hub_c = connector(venue.url, tls=venue.tls("hub"))
    a_c = connector(venue.url, tls=venue.tls("table-a"))
    async with hub_c.session(None) as hub, a_c.session(None) as a:
        await a.subscribe("mahjong/cmd/#", "mahjong/hub/ack/#", "mahjong/tables/#")
        for topic in ("mahjong/cmd/table-b", "mahjong/hub/ack/table-b", "mahjong/cmd/table-a"):
            await hub.publish(topic, b"{}")
        async with asyncio.timeout(10):
            await _collect(a, "mahjong/cmd/table-a", a_saw)
    assert a_saw == ["mahjong/cmd/table-a"]


@pytest.mark.parametrize("who", ["nobody", "stranger"])
async def test_a_client_without_a_venue_certificate_is_turned_away(
    venue: Venue, tmp_path: Path, who: str
) -> None:
    tls = {"ca_file": venue.certs / "venue-ca.crt"}
    if who == "stranger":
        other = tmp_path / "other-venue"
        _make_certs(other, "ca")
        _make_certs(other, "table", "table-a")
        tls |= {"cert_file": other / "table-a.crt", "key_file": other / "table-a.key"}
    address = BrokerAddress.from_url(venue.url, **tls)
    impatient = AiomqttConnector(address, dataclasses.replace(FAST, connect_timeout_s=0.5))
    with pytest.raises(BrokerDown):
        async with impatient.session(None) as session:
            await session.publish("mahjong/tables/table-a/status", b"{}")


async def test_a_table_and_the_recorder_work_through_the_venue_broker(
    venue: Venue, tmp_path: Path
) -> None:
    link = make_link(venue.url, tmp_path / "outbox.db", SessionBook(), table="table-a",
                     tls=venue.tls("table-a"))  # fmt: skip
    recorder = make_recorder(venue.url, tmp_path / "hub.db", tables=("table-a",),
                             tls=venue.tls("hub"))  # fmt: skip
    async with running(recorder.run()), running(link.run()):
        ids = {link.record_result(hand_result(h)).id for h in range(1, 6)}
        await eventually(lambda: link.pending_results == 0, "results acked over TLS")
    assert {s.id for s in recorder.store.sync.results()} == ids
