"""Which control socket a `diag` command talks to: `[control] socket` of the config file, read
without loading the whole config (its checks, the ruleset names, the hardware's signals), so a
command that only talks to the daemon starts quickly. The key and its default are those of
`controller.config.ControlSection`; a test holds the two readings equal."""

import tomllib
from pathlib import Path

from controller import paths


def configured_socket(config: Path | None) -> Path | None:
    """The socket `config` names (None: the default config file): its `[control] socket`, or
    the default when the file does not set it (or, for the default file, does not exist).
    None when this reading cannot tell (a file missing, unreadable or not TOML, a value of the
    wrong type): the full config loader then says what is wrong."""
    path = paths.CONFIG if config is None else config
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return paths.control_socket() if config is None else None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    control = data.get("control", {})
    if not isinstance(control, dict):
        return None
    socket = control.get("socket")
    if socket is None:
        return paths.control_socket()
    return Path(socket) if isinstance(socket, str) else None
