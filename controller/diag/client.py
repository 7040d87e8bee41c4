"""The `diag` commands' end of the control socket: send a request, answer prompts, collect
event lines, decode the report into its type."""

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import msgspec

from controller.diag import protocol as wire
from controller.diag.events import EventLine
from controller.diag.ports import Prompt
from controller.diag.protocol import Answer, ErrorCode, Kind, Request
from controller.diag.reports import REPORTS, Refused
from controller.errors import RuntimeFailure

Answerer = Callable[[Prompt], Awaitable[bool]]
"""Shows a prompt and returns the technician's answer (only called when one is needed)."""


async def daemon_listening(path: Path) -> bool:
    """A daemon answers on this socket."""
    try:
        _, writer = await asyncio.open_unix_connection(path)
    except (FileNotFoundError, ConnectionRefusedError):
        return False
    except PermissionError:
        raise RuntimeFailure(
            f"{path}: permission denied: ask to be added to the group 'mahjong' "
            "(sudo usermod -aG mahjong $USER, then log in again)"
        ) from None
    writer.close()
    with contextlib.suppress(ConnectionError):
        await writer.wait_closed()
    return True


async def ask(
    path: Path,
    request: Request,
    answer: Answerer,
    show: Callable[[Prompt], None],
    on_event: Callable[[EventLine], None] | None = None,
) -> Any:
    """Send one request and return its report (typed); Refused if the daemon refused it."""
    try:
        reader, writer = await asyncio.open_unix_connection(path, limit=wire.MAX_REPLY_BYTES)
    except (FileNotFoundError, ConnectionRefusedError):
        raise RuntimeFailure(f"no daemon answers on {path}") from None
    except PermissionError:
        raise RuntimeFailure(f"{path}: permission denied: join the group 'mahjong'") from None
    try:
        with contextlib.suppress(ConnectionError):  # the daemon may have said why already
            writer.write(wire.encode(request))
            await writer.drain()
        while True:
            try:
                line = await reader.readline()
            except ConnectionError as error:
                raise RuntimeFailure(
                    f"the daemon closed the connection without an answer ({error.strerror})"
                ) from None
            if not line:
                raise RuntimeFailure("the daemon closed the connection without an answer")
            reply = wire.decode_reply(line)
            if reply.kind is Kind.RESULT:
                return msgspec.json.decode(reply.data, type=REPORTS[request.op])
            if reply.kind is Kind.ERROR:
                raise Refused(reply.code or ErrorCode.FAILED, reply.message)
            if reply.kind is Kind.EVENT and on_event is not None:
                on_event(msgspec.json.decode(reply.data, type=EventLine))
            elif reply.kind is Kind.PROMPT:
                prompt = msgspec.json.decode(reply.data, type=Prompt)
                show(prompt)
                if prompt.answer:
                    yes = await answer(prompt)
                    writer.write(wire.encode(Answer(wire.VERSION, yes)))
                    await writer.drain()
    finally:
        writer.close()
        with contextlib.suppress(ConnectionError):
            await writer.wait_closed()
