"""The MQTT interface implemented with aiomqtt 2.x (paho-mqtt underneath)."""

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import aiomqtt

from controller.hub.mqtt.link_timing import LinkTiming
from controller.hub.mqtt.transport import BrokerAddress, BrokerDown, Inbound, LastWill, MqttSession

_log = logging.getLogger(__name__)
UNLIMITED = 0
"""paho's own limit on publishes waiting for their PUBACK, off: ours bound them (the table's
send window, the recorder's acks in flight, every other publish awaited), and with a limit paho
looks through every message it holds at each PUBACK (a window's worth of work per result)."""


class AiomqttSession:
    """A connected aiomqtt client behind our MqttSession interface."""

    def __init__(self, client: aiomqtt.Client, publish_timeout_s: float) -> None:
        self._client = client
        self._timeout = publish_timeout_s

    async def publish(self, topic: str, payload: bytes, *, retain: bool = False) -> None:
        """Publish at QoS 1 and wait for PUBACK."""
        try:
            await self._client.publish(topic, payload, qos=1, retain=retain, timeout=self._timeout)
        except aiomqtt.MqttError as exc:
            raise BrokerDown(f"publish to {topic} failed: {exc}") from exc

    async def subscribe(self, *filters: str) -> None:
        """Subscribe at QoS 1."""
        try:
            await self._client.subscribe([(f, 1) for f in filters], timeout=self._timeout)
        except aiomqtt.MqttError as exc:
            raise BrokerDown(f"subscribe failed: {exc}") from exc

    async def incoming(self) -> AsyncIterator[Inbound]:
        """Received messages until the connection drops."""
        try:
            async for message in self._client.messages:
                payload = message.payload
                data = payload if isinstance(payload, bytes) else str(payload or "").encode()
                yield Inbound(str(message.topic), data, bool(message.retain))
        except aiomqtt.MqttError as exc:
            raise BrokerDown(f"connection lost: {exc}") from exc


class AiomqttConnector:
    """Connects to one broker with aiomqtt."""

    def __init__(self, address: BrokerAddress, timing: LinkTiming | None = None) -> None:
        self.address = address
        self.timing = timing or LinkTiming()

    @asynccontextmanager
    async def session(self, will: LastWill | None) -> AsyncIterator[MqttSession]:
        """Connect, yield the session, disconnect."""
        client = self._client(will)
        try:
            async with client:
                yield AiomqttSession(client, self.timing.publish_timeout_s)
        except aiomqtt.MqttError as exc:
            where = f"broker {self.address.host}:{self.address.port}"
            raise BrokerDown(f"{where}: {_why_down(exc)}") from exc

    def _client(self, will: LastWill | None) -> aiomqtt.Client:
        a = self.address
        client = aiomqtt.Client(
            a.host,
            a.port,
            username=a.username or None,
            password=a.password or None,
            identifier=a.client_id or None,
            clean_session=not a.persistent,
            will=None if will is None else aiomqtt.Will(will.topic, will.payload, 1, will.retain),
            timeout=self.timing.connect_timeout_s,
            keepalive=self.timing.keepalive_s,
            max_inflight_messages=UNLIMITED,
            tls_params=self._tls(),
            logger=_log,
        )
        # A full window of results in flight is normal here, not worth a warning.
        client.pending_calls_threshold = 4 * max(20, self.timing.window)
        return client

    def _tls(self) -> aiomqtt.TLSParameters | None:
        a = self.address
        if not (a.tls or a.ca_file or a.cert_file):
            return None
        return aiomqtt.TLSParameters(
            ca_certs=str(a.ca_file) if a.ca_file else None,
            certfile=str(a.cert_file) if a.cert_file else None,
            keyfile=str(a.key_file) if a.key_file else None,
        )


def _why_down(exc: aiomqtt.MqttError) -> str:
    """The reason a connection failed in words: aiomqtt keeps the socket error as the context."""
    cause = exc.__cause__ or exc.__context__
    if isinstance(cause, ConnectionRefusedError):
        return "connection refused (is the broker running and listening on that port?)"
    if isinstance(cause, OSError) and cause.strerror:
        return cause.strerror[:1].lower() + cause.strerror[1:]
    return str(exc)
