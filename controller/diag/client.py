"""The `diag` commands' end of the control socket: send a request, answer prompts, collect
event lines, decode the report into its type.

A plain blocking socket: a technician's command does one thing at a time, and a cold start
that loads no event loop is a quick one (`diag status` is typed while something is wrong).
The lines are those of `protocol`, the daemon's own definition of the wire.
"""

import contextlib
import socket
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from controller.diag import protocol as wire
from controller.diag.ports import Prompt
from controller.diag.protocol import Answer, ErrorCode, Kind, Request
from controller.diag.reports import Refused, report_type
from controller.errors import RuntimeFailure

if TYPE_CHECKING:  # only a live tail decodes event lines
    from controller.diag.events import EventLine

Answerer = Callable[[Prompt], bool]
"""Shows a prompt and returns the technician's answer (only called when one is needed)."""


class NoDaemon(RuntimeFailure):
    """No daemon listens on the socket (no such socket, or nobody behind it)."""


def _connect(path: Path) -> socket.socket:
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(str(path))
    except (FileNotFoundError, ConnectionRefusedError):
        conn.close()
        raise NoDaemon(f"no daemon answers on {path}") from None
    except PermissionError:
        conn.close()
        raise RuntimeFailure(
            f"{path}: permission denied: ask to be added to the group 'mahjong' "
            "(sudo usermod -aG mahjong $USER, then log in again)"
        ) from None
    except OSError:
        conn.close()
        raise
    return conn


def ask(
    path: Path,
    request: Request,
    answer: Answerer,
    show: Callable[[Prompt], None],
    on_event: "Callable[[EventLine], None] | None" = None,
) -> Any:
    """Send one request and return its report (typed); Refused if the daemon refused it,
    NoDaemon if no daemon listens on `path`."""
    with _connect(path) as conn, conn.makefile("rb") as replies:
        with contextlib.suppress(ConnectionError):  # the daemon may have said why already
            conn.sendall(wire.encode(request))
        while True:
            try:
                line = replies.readline(wire.MAX_REPLY_BYTES + 1)
            except ConnectionError as error:
                raise RuntimeFailure(
                    f"the daemon closed the connection without an answer ({error.strerror})"
                ) from None
            if not line:
                raise RuntimeFailure("the daemon closed the connection without an answer")
            if len(line) > wire.MAX_REPLY_BYTES:
                raise RuntimeFailure(f"the daemon's reply is longer than {wire.MAX_REPLY_BYTES}")
            reply = wire.decode_reply(line)
            if reply.kind is Kind.RESULT:
                return msgspec.json.decode(reply.data, type=report_type(request.op))
            if reply.kind is Kind.ERROR:
                raise Refused(reply.code or ErrorCode.FAILED, reply.message)
            if reply.kind is Kind.EVENT and on_event is not None:
                from controller.diag.events import EventLine  # a live tail only

                on_event(msgspec.json.decode(reply.data, type=EventLine))
            elif reply.kind is Kind.PROMPT:
                prompt = msgspec.json.decode(reply.data, type=Prompt)
                show(prompt)
                if prompt.answer:
                    conn.sendall(wire.encode(Answer(wire.VERSION, answer(prompt))))
