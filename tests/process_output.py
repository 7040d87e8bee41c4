"""Waiting, bounded, for a line from a child process's pipe."""

import os
import selectors
import time
from typing import IO


def lines_until(stream: IO[str], text: str, within: float) -> list[str]:
    """The lines a child process writes to `stream` (a pipe) up to the first one holding
    `text`; AssertionError, quoting them, if none comes within `within` s or the pipe closes.

    Read from the pipe itself, not through `stream`'s buffer: a buffered `readline` may take
    several lines off the pipe at once, and a wait on the pipe then sleeps while the line
    looked for sits in the buffer. Bytes read past that line are dropped."""
    fd = stream.fileno()
    lines: list[str] = []
    pending = b""
    deadline = time.monotonic() + within
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while (left := deadline - time.monotonic()) > 0 and selector.select(timeout=left):
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            *whole, pending = (pending + chunk).split(b"\n")
            for raw in whole:
                lines.append(raw.decode(errors="replace").rstrip())
                if text in lines[-1]:
                    return lines
    said = "\n".join([*lines, pending.decode(errors="replace")])
    raise AssertionError(f"no '{text}' within {within} s; the process said:\n{said}")
