"""The venue's request/reply client: sign one command to a table, publish it, and wait for the
table's reply to that command's id."""

import asyncio
from pathlib import Path

from controller.clock import Clock
from controller.errors import RuntimeFailure, UsageError
from controller.hub.contract.envelopes import (
    CommandMessage,
    MalformedMessage,
    ReplyMessage,
    decode,
    encode,
)
from controller.hub.contract.hub_commands import Action
from controller.hub.contract.topics import Topics
from controller.hub.mqtt.transport import MqttConnector
from controller.venue.keyring import KeyRing
from controller.venue.recorder import make_command
from controller.venue.store import open_store


def signed_command(
    keys_path: Path, db: str, table: str, action: Action, clock: Clock, lifetime_s: float
) -> CommandMessage:
    """A command to `table` signed with its key from the keys file, numbered from the store."""
    key = KeyRing.load(keys_path).get(table)
    if key is None:
        raise UsageError(f"no key for table {table} in {keys_path}")
    store = open_store(db)
    try:
        boot, seq = store.bump("send_boot"), store.bump("seq")
    finally:
        store.close()
    return make_command(key, table, action, boot, seq, clock, lifetime_s)


async def request_reply(
    connector: MqttConnector, topics: Topics, command: CommandMessage, wait_s: float
) -> ReplyMessage:
    """Publish `command` and return the table's reply to it; RuntimeFailure after `wait_s`."""
    table = command.table
    async with connector.session(None) as session:
        await session.subscribe(topics.replies(table))
        await session.publish(topics.commands(table), encode(command))
        try:
            async with asyncio.timeout(wait_s):
                async for message in session.incoming():
                    try:
                        reply = decode(message.payload, ReplyMessage)
                    except MalformedMessage:
                        continue
                    if reply.command == command.id:
                        return reply
        except TimeoutError:
            pass
    raise RuntimeFailure(f"table {table} did not reply within {wait_s:g} s (is it connected?)")
