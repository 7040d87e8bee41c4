"""The one reconnect loop of both MQTT ends (table link and venue recorder)."""

import logging
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from controller.hub.mqtt.link_timing import Backoff, Pacer
from controller.hub.mqtt.transport import BrokerDown, LastWill, MqttConnector, MqttSession


@dataclass(frozen=True)
class Reconnect:
    """How one end stays connected: its connector, its backoff, and what it says when down."""

    connector: MqttConnector
    backoff: Backoff
    pacer: Pacer
    rng: random.Random
    log: logging.Logger
    down_message: str

    async def forever(
        self,
        will: Callable[[], Awaitable[LastWill]],
        serve: Callable[[MqttSession], Awaitable[None]],
        disconnected: Callable[[], None],
    ) -> None:
        """Connect, serve, and after every loss wait a jittered, growing delay; until cancelled."""
        attempt = 0
        while True:
            try:
                async with self.connector.session(await will()) as session:
                    attempt = 0
                    await serve(session)
            except BrokerDown as exc:
                self.log.warning("%s: %s", self.down_message, exc)
            finally:
                disconnected()
            await self.pacer.sleep(self.backoff.delay(attempt, self.rng))
            attempt += 1
