"""The test harness itself: the broker fixture delivers QoS 1 across a restart, ptys carry bytes,
MockFactory pins drive gpiozero devices, the manual clock moves only when told."""

import asyncio
import os

import aiomqtt
import pytest
from gpiozero import LED, Button

from controller.clock import ManualClock
from devsupport.mosquitto import Broker
from tests.conftest import PtyPair


async def _receive_one(client: aiomqtt.Client, seconds: float = 5.0) -> aiomqtt.Message:
    async with asyncio.timeout(seconds):
        async for message in client.messages:
            return message
    raise AssertionError("no message")


@pytest.mark.broker
async def test_qos1_message_round_trip(broker: Broker) -> None:
    async with aiomqtt.Client(broker.host, broker.port, identifier="sub-rt") as sub:
        await sub.subscribe("mahjong/test", qos=1)
        async with aiomqtt.Client(broker.host, broker.port) as pub:
            await pub.publish("mahjong/test", b"hand 1", qos=1)
        message = await _receive_one(sub)
    assert message.payload == b"hand 1"
    assert message.qos == 1


@pytest.mark.broker
async def test_queued_qos1_message_survives_broker_restart(broker: Broker) -> None:
    async with aiomqtt.Client(
        broker.host, broker.port, identifier="hub-recorder", clean_session=False
    ) as sub:
        await sub.subscribe("mahjong/results", qos=1)
    async with aiomqtt.Client(broker.host, broker.port) as pub:
        await pub.publish("mahjong/results", b"result 7", qos=1)

    broker.restart()

    async with aiomqtt.Client(
        broker.host, broker.port, identifier="hub-recorder", clean_session=False
    ) as sub:
        message = await _receive_one(sub)
    assert message.payload == b"result 7"


@pytest.mark.broker
async def test_broker_kill_and_restart_accepts_clients_again(broker: Broker) -> None:
    broker.kill()
    assert not broker.running
    with pytest.raises(aiomqtt.MqttError):
        async with aiomqtt.Client(broker.host, broker.port, timeout=1):
            pass
    broker.start()
    async with aiomqtt.Client(broker.host, broker.port) as client:
        await client.publish("mahjong/ping", b"up", qos=1)


def test_pty_pair_carries_raw_bytes_both_ways(pty_pair: PtyPair) -> None:
    client = os.open(pty_pair.device_path, os.O_RDWR | os.O_NOCTTY)
    try:
        os.write(pty_pair.controller_fd, b"\x00\x11\x13\xff")
        assert os.read(client, 16) == b"\x00\x11\x13\xff"
        os.write(client, b"\x7e\x00")
        assert os.read(pty_pair.controller_fd, 16) == b"\x7e\x00"
    finally:
        os.close(client)


def test_mock_pins_drive_gpiozero_devices(pins: object) -> None:
    button = Button(17)
    led = LED(27)
    button.pin.drive_low()
    assert button.is_pressed
    led.on()
    assert led.pin.state == 1


def test_manual_clock_moves_only_when_advanced(clock: ManualClock) -> None:
    start = clock.monotonic()
    clock.advance(15.0)
    assert clock.monotonic() - start == 15.0
    with pytest.raises(ValueError):
        clock.advance(-1)
