"""`diag mqtt` against the venue broker as shipped (TLS, a certificate per table, the ACL):
each step passes on a good setup, and the failing step is named on a bad one."""

import asyncio
import json
from pathlib import Path

import aiomqtt
import pytest

from devsupport.mosquitto import Broker
from tests.diag.rig import daemon, diag, diag_json
from tests.hub.test_venue_broker import Venue, venue

pytestmark = pytest.mark.broker
__all__ = ["venue"]


def _config(tmp_path: Path, venue: Venue, table: str, cert: str, ca: Path | None = None) -> Path:
    tls = venue.tls(cert)
    path = tmp_path / f"{table}-{cert}.toml"
    path.write_text(
        f'[table]\nid = "{table}"\n[mqtt]\nurl = "{venue.url}"\n'
        f'ca_file = "{ca or tls["ca_file"]}"\ncert_file = "{tls["cert_file"]}"\n'
        f'key_file = "{tls["key_file"]}"\n'
    )
    return path


async def _announce_recorder(venue: Venue) -> None:
    tls = venue.tls("hub")
    params = aiomqtt.TLSParameters(
        ca_certs=str(tls["ca_file"]), certfile=str(tls["cert_file"]), keyfile=str(tls["key_file"])
    )
    async with aiomqtt.Client("127.0.0.1", venue.broker.port, tls_params=params) as client:
        state = json.dumps({"online": True, "hub": "hub"}).encode()
        await client.publish("mahjong/hub/state", state, qos=1, retain=True)


def _steps(report: dict[str, list[dict[str, object]]]) -> dict[object, object]:
    return {step["name"]: step["passed"] for step in report["steps"]}


def test_every_step_of_a_good_table(venue: Venue, tmp_path: Path) -> None:
    config = _config(tmp_path, venue, "table-a", "table-a")
    sock = str(tmp_path / "no.sock")
    status, report = diag_json("mqtt", "--config", str(config), "--socket", sock)
    assert status == 1  # no recorder has announced itself yet
    assert _steps(report) == {
        "reachable": True,
        "TLS handshake": True,
        "login": True,
        "may publish its topics": True,
        "recorder": False,
        "outbox": True,
    }
    asyncio.run(_announce_recorder(venue))
    done = diag("mqtt", "--config", str(config), "--socket", sock)
    assert done.returncode == 0, done.stdout
    assert "PASS  recorder: online" in done.stdout
    assert "broker certificate valid" in done.stdout


def test_a_table_with_another_tables_certificate_may_not_publish_as_itself(
    venue: Venue, tmp_path: Path
) -> None:
    config = _config(tmp_path, venue, "table-a", "table-b")
    status, report = diag_json("mqtt", "--config", str(config), "--socket", str(tmp_path / "x"))
    assert status == 1
    failed = [step for step in report["steps"] if not step["passed"]]
    assert failed[0]["name"] == "may publish its topics"
    assert "mahjong/tables/table-a/diag refused (Not authorized)" in failed[0]["detail"]
    assert "is this the certificate of table-a?" in failed[0]["detail"]


def test_an_untrusted_broker_and_a_dead_one(venue: Venue, tmp_path: Path) -> None:
    other = tmp_path / "other-ca"
    from tests.hub.test_venue_broker import _make_certs

    _make_certs(other, "ca")
    config = _config(tmp_path, venue, "table-a", "table-a", ca=other / "venue-ca.crt")
    done = diag("mqtt", "--config", str(config), "--socket", str(tmp_path / "x"))
    assert done.returncode == 1
    assert "FAIL  TLS handshake: the broker's certificate is not trusted" in done.stdout
    venue.broker.kill()
    done = diag("mqtt", "--config", str(config), "--socket", str(tmp_path / "x"))
    assert done.returncode == 1
    assert "FAIL  reachable: cannot connect" in done.stdout


def test_through_the_daemon_the_outbox_and_its_link_are_shown(
    broker: Broker, tmp_path: Path
) -> None:
    extra = f'[mqtt]\nurl = "{broker.url}"\nresult_key = "{"ab" * 32}"\n'
    with daemon(tmp_path, "--sim-think", "0", extra_config=extra) as table:
        table.wait_all("over (", "hub link up")
        sock = ("--socket", str(table.socket), "--config", str(table.config))
        _, report = diag_json("status", *sock)
        hub = report["hub"]
        assert hub["configured"] is True
        assert hub["outbox_depth"] == 1  # the one hand played waits for a recorder's ack
        assert hub["oldest_unacked"].startswith("#1 (")
        assert report["problems"] == [
            "the venue recorder is offline: results wait in the outbox; start "
            "`mahjong-table hub` on the venue host"
        ]
        status, mqtt = diag_json("mqtt", *sock)
        assert status == 1  # no recorder
        outbox = mqtt["steps"][-1]
        assert outbox["name"] == "outbox"
        assert outbox["detail"].startswith("daemon connected; 1 results waiting, 0 refused")
