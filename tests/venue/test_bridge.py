"""Two real mosquittos bridged as deploy/mosquitto/bridge.conf ships: a venue broker forwards
its tables' results and status over TLS (the bridge's own certificate, signed by the league
CA) to a league broker run with deploy/mosquitto's config and league ACL; a result from a
table on the venue reaches the league's recorder, while the venue's recorder acks it."""

import asyncio
import os
import subprocess
from pathlib import Path

import pytest

from controller.hub.contract.envelopes import StatusMessage, decode
from devsupport.mosquitto import Broker, find_mosquitto
from tests.hub.factories import SessionBook, hand_result
from tests.hub.helpers import connector, eventually, make_link, make_recorder, running

pytestmark = pytest.mark.broker
DEPLOY = Path(__file__).parents[2] / "deploy" / "mosquitto"


def _certs(folder: Path, *args: str) -> None:
    subprocess.run([DEPLOY / "make-certs.sh", str(folder), *args], check=True,
                   capture_output=True)  # fmt: skip


def _league(tmp_path: Path) -> tuple[Broker, Path]:
    certs = tmp_path / "league-certs"
    for args in (["ca"], ["broker", "127.0.0.1"], ["hub"], ["bridge", "venue-a"]):
        _certs(certs, *args)
    (certs / "acl").write_text((DEPLOY / "league-acl").read_text())
    broker = Broker(tmp_path / "league")
    config = (
        (DEPLOY / "mosquitto.conf").read_text()
        .replace("/etc/mosquitto/mahjong/", f"{certs}/")
        .replace("/var/lib/mosquitto/", f"{broker.workdir / 'data'}/")
        .replace("listener 8883", f"listener {broker.port} 127.0.0.1")
        .replace("log_dest syslog", f"log_dest file {broker.log_path}")
    )  # fmt: skip
    broker.config_path.write_text(config + ("user root\n" if os.geteuid() == 0 else ""))
    return broker, certs


def _venue(tmp_path: Path, league: Broker, league_certs: Path) -> Broker:
    bridge = (
        (DEPLOY / "bridge.conf").read_text()
        .replace("VENUE", "venue-a")
        .replace("league.example.org:8883", f"127.0.0.1:{league.port}")
        .replace("/etc/mosquitto/mahjong/league-ca.crt", str(league_certs / "venue-ca.crt"))
        .replace("/etc/mosquitto/mahjong/", f"{league_certs}/")
        .replace("restart_timeout 5 60", "restart_timeout 1 2")
    )  # fmt: skip
    return Broker(tmp_path / "venue", extra_config=bridge)


async def _bridge_up(url: str, tls: dict[str, Path]) -> None:
    """Wait until the venue's bridge says (retained, on the league broker) it is connected."""
    async with connector(url, tls=tls).session(None) as watcher:
        await watcher.subscribe("mahjong/bridges/venue-a/state")
        async with asyncio.timeout(20):
            async for message in watcher.incoming():
                if message.payload == b"1":
                    return


async def test_a_result_on_venue_a_reaches_the_league_recorder(tmp_path: Path) -> None:
    if find_mosquitto() is None:
        pytest.fail("mosquitto is not installed: run ./scripts/test, which installs it")
    league, certs = _league(tmp_path)
    league.start()
    venue = _venue(tmp_path, league, certs)
    venue.start()
    try:
        tls = {"ca_file": certs / "venue-ca.crt", "cert_file": certs / "hub.crt",
               "key_file": certs / "hub.key"}  # fmt: skip
        league_url = f"mqtts://127.0.0.1:{league.port}"
        league_recorder = make_recorder(league_url, tmp_path / "league.db", tls=tls)
        venue_recorder = make_recorder(venue.url, tmp_path / "venue.db")
        link = make_link(venue.url, tmp_path / "outbox.db", SessionBook())
        async with running(league_recorder.run()), running(venue_recorder.run()):
            await eventually(league_recorder.connected.is_set, "league recorder online")
            await _bridge_up(league_url, tls)
            async with running(link.run()):
                ids = {link.record_result(hand_result(h)).id for h in (1, 2, 3)}
                await eventually(lambda: link.pending_results == 0, "acked by the venue")
                await eventually(lambda: league_recorder.store.sync.count() == 3,
                                 "the results on the league recorder")  # fmt: skip
        assert {s.id for s in league_recorder.store.sync.results()} == ids
        status = league_recorder.store.sync.status("t1")
        assert status is not None and decode(status, StatusMessage).table == "t1"
    finally:
        venue.kill()
        league.kill()
