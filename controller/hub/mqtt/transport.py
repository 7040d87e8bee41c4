"""Our own small MQTT interface: the hub link and the recorder depend on this, not on a library.

Every publish is QoS 1 and waits for the broker's PUBACK (which is not delivery: delivery is
the hub's end-to-end ack). A lost or stalled connection is a `BrokerDown`.
"""

import asyncio
from collections.abc import AsyncIterator, Coroutine
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlsplit

from controller.errors import RuntimeFailure, UsageError

CLEANUP_TIMEOUT_S = 5.0


class BrokerDown(RuntimeFailure):
    """The broker cannot be reached, refused us, or the connection was lost or stalled."""


@dataclass(frozen=True)
class Inbound:
    """One message received from the broker."""

    topic: str
    payload: bytes
    retain: bool = False
    received: float | None = None
    """Wall time it arrived, where the receiver stamps it (its handling may come later)."""


@dataclass(frozen=True)
class LastWill:
    """What the broker publishes for us if we vanish without saying goodbye."""

    topic: str
    payload: bytes
    retain: bool = True


@dataclass(frozen=True)
class BrokerAddress:
    """Where the broker is and how we prove who we are (TLS client cert or user/password)."""

    host: str
    port: int
    tls: bool = False
    ca_file: Path | None = None
    cert_file: Path | None = None
    key_file: Path | None = None
    username: str = ""
    password: str = ""
    client_id: str = ""
    persistent: bool = False

    @classmethod
    def from_url(cls, url: str, **options: object) -> "BrokerAddress":
        """Parse `mqtt://host[:port]` (plain, 1883) or `mqtts://host[:port]` (TLS, 8883)."""
        host, port, tls = parse_broker_url(url)
        return cls(host=host, port=port, tls=tls, **options)  # type: ignore[arg-type]


def parse_broker_url(url: str) -> tuple[str, int, bool]:
    """The host, port and TLS of `mqtt://host[:port]` (1883) or `mqtts://host[:port]` (8883);
    UsageError says what is wrong (the daemon, `config check` and `diag mqtt` all use this)."""
    parts = urlsplit(url)
    if parts.scheme not in ("mqtt", "mqtts") or not parts.hostname:
        raise UsageError(f"broker URL {url!r} must look like mqtt://host:1883 or mqtts://host")
    tls = parts.scheme == "mqtts"
    try:
        port = parts.port
    except ValueError:
        port = -1
    if port == 0 or port == -1:
        raise UsageError(f"broker URL {url!r} has a bad port: a port is 1 to 65535")
    return parts.hostname, port or (8883 if tls else 1883), tls


class MqttSession(Protocol):
    """One live connection to the broker."""

    async def publish(self, topic: str, payload: bytes, *, retain: bool = False) -> None:
        """Publish at QoS 1 and wait for the broker's PUBACK; BrokerDown if it does not come."""
        ...

    async def subscribe(self, *filters: str) -> None:
        """Subscribe at QoS 1 to topic filters."""
        ...

    def incoming(self) -> AsyncIterator[Inbound]:
        """Messages as they arrive; ends with BrokerDown when the connection is lost."""
        ...


class MqttConnector(Protocol):
    """Opens connections to one broker."""

    def session(self, will: LastWill | None) -> AbstractAsyncContextManager[MqttSession]:
        """Connect (BrokerDown on failure) with an optional last will; disconnect on exit."""
        ...


async def first_failure(*jobs: Coroutine[Any, Any, None]) -> None:
    """Run jobs together until one ends or fails; cancel the rest and re-raise its error."""
    tasks = [asyncio.ensure_future(job) for job in jobs]
    try:
        done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
        # Bounded: a library call that swallows its cancellation must not hang the link.
        await asyncio.wait(tasks, timeout=CLEANUP_TIMEOUT_S)
    for task in done:
        task.result()
    raise BrokerDown("the connection closed")
