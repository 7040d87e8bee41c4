"""`diag mqtt`: the table's way to the venue broker, step by step: reachable, TLS handshake and
the broker certificate's expiry, login, topic permissions, the recorder's state, the outbox.

Runs in the technician's process with the table's config (never on the daemon's own
connection, which it must not disturb); the outbox depth comes from the daemon's status."""

import asyncio
import contextlib
import json
import ssl
import time
from dataclasses import dataclass
from typing import Any

import aiomqtt
import msgspec

from controller.config import TableConfig
from controller.diag.status_report import StatusReport
from controller.errors import UsageError
from controller.hub.mqtt.tls import TlsFileRefused, tls_context
from controller.hub.mqtt.transport import parse_broker_url

EXPIRY_WARN_DAYS = 30
MAX_STATE_BYTES = 65536


class MqttStep(msgspec.Struct, frozen=True):
    """One step of the check."""

    name: str
    passed: bool
    detail: str


class MqttReport(msgspec.Struct, frozen=True):
    """`diag mqtt`."""

    broker: str
    steps: list[MqttStep]

    @property
    def healthy(self) -> bool:
        """Every step passed."""
        return all(step.passed for step in self.steps)

    def text(self) -> str:
        """The steps in words."""
        lines = [f"Broker {self.broker}:"]
        lines += [f"  {'PASS' if s.passed else 'FAIL'}  {s.name}: {s.detail}" for s in self.steps]
        lines.append("Result: OK" if self.healthy else "Result: PROBLEM (see above)")
        return "\n".join(lines)


@dataclass(frozen=True)
class Broker:
    """Where the config says the broker is."""

    host: str
    port: int
    tls: bool


def broker_of(url: str) -> Broker:
    """mqtt://host[:port] or mqtts://host[:port]."""
    try:
        host, port, tls = parse_broker_url(url)
    except UsageError as error:
        raise UsageError(f"[mqtt] url: {error}") from None
    return Broker(host, port, tls)


def _tls_context(config: TableConfig) -> ssl.SSLContext:
    mqtt = config.mqtt
    return tls_context(mqtt.ca_file, mqtt.cert_file, mqtt.key_file)


async def _reach(broker: Broker, within: float) -> MqttStep:
    try:
        async with asyncio.timeout(within):
            _, writer = await asyncio.open_connection(broker.host, broker.port)
    except (OSError, TimeoutError) as error:
        return MqttStep(
            "reachable",
            False,
            f"cannot connect: {error or 'timed out'}; check the "
            "network, the broker's address and that mosquitto runs",
        )
    writer.close()
    return MqttStep("reachable", True, f"TCP {broker.host}:{broker.port} answers")


async def _handshake(config: TableConfig, broker: Broker, within: float) -> MqttStep:
    name = "TLS handshake"
    try:
        context = _tls_context(config)
        async with asyncio.timeout(within):
            _, writer = await asyncio.open_connection(
                broker.host, broker.port, ssl=context, server_hostname=broker.host
            )
    except TlsFileRefused as error:
        return MqttStep(name, False, f"{error}: check [mqtt] {error.key}")
    except ssl.SSLCertVerificationError as error:
        return MqttStep(
            name,
            False,
            f"the broker's certificate is not trusted: "
            f"{error.verify_message}; check [mqtt] ca_file and the broker's names",
        )
    except (OSError, ssl.SSLError, TimeoutError) as error:
        return MqttStep(name, False, f"failed: {error or 'timed out'}; check the certificates")
    cert = writer.get_extra_info("peercert") or {}
    writer.close()
    not_after = cert.get("notAfter")
    if not isinstance(not_after, str):
        return MqttStep(name, True, "done (the broker sent no expiry date)")
    days = (ssl.cert_time_to_seconds(not_after) - time.time()) / 86400
    if days < 0:
        return MqttStep(name, False, f"the broker's certificate expired {not_after}: renew it")
    if days < EXPIRY_WARN_DAYS:
        return MqttStep(
            name,
            False,
            f"the broker's certificate expires in {days:.0f} days "
            f"({not_after}): renew it with make-certs.sh",
        )
    return MqttStep(name, True, f"trusted; broker certificate valid {days:.0f} more days")


class _PubackClient(aiomqtt.Client):
    """aiomqtt drops the reason code of an MQTT 5 PUBACK; the broker's refusal of a publish
    (0x87 not authorized: the ACL) is exactly what this check needs, so keep it."""

    refusals: list[str]

    def _on_publish(
        self, client: Any, userdata: Any, mid: int, reason_code: Any, properties: Any
    ) -> None:
        if getattr(reason_code, "value", 0) >= 0x80:
            self.refusals.append(str(reason_code))
        super()._on_publish(client, userdata, mid, reason_code, properties)


def _client(config: TableConfig, broker: Broker, within: float) -> _PubackClient:
    mqtt = config.mqtt
    client = _PubackClient(
        broker.host,
        broker.port,
        username=mqtt.username or None,
        password=mqtt.password or None,
        identifier=f"{config.table.id}-diag",
        timeout=within,
        tls_context=_tls_context(config) if broker.tls else None,
        protocol=aiomqtt.ProtocolVersion.V5,  # MQTT 5 says when a publish is refused
    )
    client.refusals = []
    return client


async def _session(config: TableConfig, broker: Broker, within: float) -> list[MqttStep]:
    """Login, the right to publish its own topics and the recorder's retained state, on one
    short connection."""
    root, table = config.mqtt.topic_root, config.table.id
    steps: list[MqttStep] = []
    try:
        async with _client(config, broker, within) as client:
            steps.append(MqttStep("login", True, f"accepted as client {table}-diag"))
            await client.subscribe(f"{root}hub/state", qos=1, timeout=within)
            topic = f"{root}tables/{table}/diag"
            await client.publish(topic, b"", qos=1, timeout=within)
            steps.append(_publish_step(topic, table, client.refusals))
            steps.append(await _hub_state(client, f"{root}hub/state", within))
    except aiomqtt.MqttError as error:
        steps.append(
            MqttStep(
                "login",
                False,
                f"refused or lost: {error}; check the table's certificate (its name is the "
                "MQTT user) or user and password",
            )
        )
    return steps


def _publish_step(topic: str, table: str, refusals: list[str]) -> MqttStep:
    name = "may publish its topics"
    if not refusals:
        return MqttStep(name, True, f"{topic} accepted")
    return MqttStep(
        name,
        False,
        f"{topic} refused ({refusals[0]}): the broker's ACL lets a table write only under its "
        f"own id, the name in its certificate: is this the certificate of {table}?",
    )


async def _hub_state(client: aiomqtt.Client, topic: str, within: float) -> MqttStep:
    name = "recorder"
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(within):
            async for message in client.messages:
                if str(message.topic) != topic:
                    continue
                payload = message.payload
                if not isinstance(payload, bytes) or len(payload) > MAX_STATE_BYTES:
                    return MqttStep(name, False, "its retained state is unreadable")
                try:
                    online = bool(json.loads(payload).get("online"))
                except (ValueError, AttributeError):
                    return MqttStep(name, False, "its retained state is unreadable")
                if online:
                    return MqttStep(name, True, "online (results are being recorded)")
                return MqttStep(name, False, "offline: start `mahjong-table hub` on the venue host")
    return MqttStep(name, False, "never announced itself: is `mahjong-table hub` running?")


def _outbox(status: StatusReport | None) -> MqttStep:
    if status is None:
        return MqttStep("outbox", True, "the daemon is not running: nothing is being sent")
    hub = status.hub
    if not hub.configured:
        return MqttStep("outbox", True, "no [mqtt] result_key: results go to the log only")
    detail = f"{hub.outbox_depth} results waiting, {hub.refused_results} refused"
    if hub.oldest_unacked:
        detail += f", oldest {hub.oldest_unacked}"
    link = "daemon connected" if hub.connected else "the daemon is NOT connected"
    ok = hub.connected and not hub.refused_results
    return MqttStep(
        "outbox", ok, f"{link}; {detail}" + (f"; {hub.attention}" if hub.attention else "")
    )


async def check_mqtt(config: TableConfig, within: float, status: StatusReport | None) -> MqttReport:
    """Every step; a step that cannot run because an earlier one failed is left out."""
    broker = broker_of(config.mqtt.url)
    steps = [await _reach(broker, within)]
    if steps[-1].passed and broker.tls:
        steps.append(await _handshake(config, broker, within))
    if all(step.passed for step in steps):
        steps += await _session(config, broker, within)
    steps.append(_outbox(status))
    return MqttReport(config.mqtt.url, steps)
