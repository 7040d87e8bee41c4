"""The `diag` commands' end of the control socket: send a request line, answer prompts, pass
event lines on, return the report.

A plain blocking socket and the standard library's json (`wire`): a technician's command does
one thing at a time, and a cold start that loads no event loop and no decoder library is a
quick one (`diag status` is typed while something is wrong). The report comes back as the
JSON the daemon sent; callers that need it typed decode it into its report type. Prompts and
event lines are typed here, loading what they need only when one comes.
"""

import contextlib
import socket
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from controller.diag import wire
from controller.diag.reports import Refused
from controller.errors import RuntimeFailure

if TYPE_CHECKING:
    from controller.diag.events import EventLine
    from controller.diag.ports import Prompt

Answerer = Callable[["Prompt"], bool]
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
    request: bytes,
    answer: Answerer,
    show: "Callable[[Prompt], None]",
    on_event: "Callable[[EventLine], None] | None" = None,
) -> Any:
    """Send one request line and return its report as the daemon sent it (JSON values);
    Refused if the daemon refused it, NoDaemon if no daemon listens on `path`."""
    with _connect(path) as conn, conn.makefile("rb") as replies:
        with contextlib.suppress(ConnectionError):  # the daemon may have said why already
            conn.sendall(request)
        while True:
            try:
                line = replies.readline(wire.MAX_REPLY_BYTES + 1)
            except ConnectionError as error:
                raise RuntimeFailure(
                    f"the daemon closed the connection without an answer ({error.strerror})"
                ) from None
            if not line:
                raise RuntimeFailure("the daemon closed the connection without an answer")
            try:
                reply = wire.read_reply(line)
            except ValueError as error:
                raise RuntimeFailure(f"the daemon's reply cannot be read: {error}") from None
            if reply.kind is wire.Kind.RESULT:
                return reply.data
            if reply.kind is wire.Kind.ERROR:
                raise Refused(reply.code or wire.ErrorCode.FAILED, reply.message)
            if reply.kind is wire.Kind.EVENT and on_event is not None:
                on_event(_typed_event(reply.data))
            elif reply.kind is wire.Kind.PROMPT:
                prompt = _typed_prompt(reply.data)
                show(prompt)
                if prompt.answer:
                    conn.sendall(wire.answer_line(answer(prompt)))


def _typed_prompt(data: Any) -> "Prompt":
    from controller.diag.ports import Prompt  # only a self-test or an enrolment prompts

    prompt: Prompt = typed(data, Prompt)
    return prompt


def _typed_event(data: Any) -> "EventLine":
    from controller.diag.events import EventLine  # only a live tail needs it

    line: EventLine = typed(data, EventLine)
    return line


def typed(data: Any, kind: type[Any]) -> Any:
    """The daemon's JSON as `kind` (msgspec, loaded here when a client needs a type);
    RuntimeFailure if it is not one."""
    import msgspec

    try:
        return msgspec.convert(data, kind)
    except msgspec.ValidationError as error:
        raise RuntimeFailure(f"the daemon's answer cannot be read: {error}") from None
