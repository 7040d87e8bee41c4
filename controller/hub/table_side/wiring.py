"""Builds the hub link from the table's configuration (used by the daemon's composition root)."""

from concurrent.futures import Executor

from controller.clock import Clock
from controller.config import TableConfig
from controller.errors import UsageError
from controller.hub.contract.signing import TableKey
from controller.hub.contract.topics import Topics
from controller.hub.mqtt.aiomqtt_transport import AiomqttConnector
from controller.hub.mqtt.link_timing import LinkTiming
from controller.hub.mqtt.transport import BrokerAddress
from controller.hub.table_side.dispatcher import TableControl
from controller.hub.table_side.hub_link import HubLink, HubLinkSettings
from controller.hub.table_side.outbox import Outbox


def broker_address(config: TableConfig) -> BrokerAddress:
    """The broker and credentials of [mqtt]; the table id is the MQTT client id."""
    mqtt = config.mqtt
    return BrokerAddress.from_url(
        mqtt.url,
        ca_file=mqtt.ca_file,
        cert_file=mqtt.cert_file,
        key_file=mqtt.key_file,
        username=mqtt.username,
        password=mqtt.password,
        client_id=f"table-{config.table.id}",
    )


def outbox_of(config: TableConfig, executor: Executor | None = None) -> Outbox:
    """The outbox of [outbox], not open yet (`Outbox.open` counts a new boot), written on
    `executor` (the daemon's disk thread; None: a thread of its own)."""
    box = config.outbox
    return Outbox(
        box.path,
        max_feed=box.max_status_backlog,
        keep_acked=box.keep_acked_results,
        executor=executor,
    )


def build_hub_link(
    config: TableConfig,
    control: TableControl,
    clock: Clock | None = None,
    executor: Executor | None = None,
) -> HubLink:
    """A HubLink, ready to run once its outbox is open (`link.outbox.open`, on the disk thread);
    UsageError if mqtt.result_key is too short to sign with. Touches no file."""
    timing = LinkTiming(keepalive_s=config.mqtt.keepalive_s)
    try:
        key = TableKey(config.mqtt.result_key)
    except UsageError as exc:
        raise UsageError(f"mqtt.result_key: {exc}") from exc
    settings = HubLinkSettings(
        table=config.table.id,
        key=key,
        topics=Topics(config.mqtt.topic_root),
        timing=timing,
    )
    connector = AiomqttConnector(broker_address(config), timing)
    return HubLink(settings, outbox_of(config, executor), connector, control, clock)
