"""The hub link as the daemon builds it from the table's config file."""

import dataclasses
from pathlib import Path

import pytest

from controller.config import MqttSection, OutboxSection, TableConfig
from controller.errors import UsageError
from controller.hub.mqtt.transport import BrokerAddress
from controller.hub.table_side.wiring import broker_address, build_hub_link
from tests.hub.factories import KEY_TEXT, SessionBook


def _config(tmp_path: Path, **mqtt: object) -> TableConfig:
    return dataclasses.replace(
        TableConfig(),
        mqtt=dataclasses.replace(MqttSection(), **({"result_key": KEY_TEXT} | mqtt)),  # type: ignore[arg-type]
        outbox=dataclasses.replace(OutboxSection(), path=tmp_path / "outbox.db"),
    )


def test_the_link_is_built_from_the_config_and_its_outbox_opened_apart(
    tmp_path: Path,
) -> None:
    link = build_hub_link(_config(tmp_path), SessionBook())
    assert link.settings.table == "table-01" and link.outbox.keep_acked == 10_000
    assert list(tmp_path.iterdir()) == [], "building the link touches no file"
    link.outbox.open()  # the daemon does it on its disk thread when it starts
    try:
        assert link.outbox.boot == 1 and (tmp_path / "outbox.db").exists()
    finally:
        link.outbox.close()


def test_an_empty_result_key_is_named(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"mqtt\.result_key: a table key needs at least 16"):
        build_hub_link(_config(tmp_path, result_key=""), SessionBook())


def test_tls_settings_come_from_the_config(tmp_path: Path) -> None:
    config = _config(
        tmp_path,
        url="mqtts://hub.local",
        ca_file=Path("/etc/ca.crt"),
        cert_file=Path("/etc/t.crt"),
        key_file=Path("/etc/t.key"),
    )
    address = broker_address(config)
    assert (address.host, address.port, address.tls) == ("hub.local", 8883, True)
    assert address.client_id == "table-table-01" and address.cert_file == Path("/etc/t.crt")


@pytest.mark.parametrize("url", ["http://hub", "mqtt://", "mqtt://hub:port"])
def test_a_bad_broker_url_is_a_usage_error(url: str) -> None:
    with pytest.raises(UsageError, match="broker URL"):
        BrokerAddress.from_url(url)
