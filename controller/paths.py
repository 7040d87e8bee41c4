"""Where an installed table keeps its files (deploy/install.sh and the systemd unit lay them out
so). Only the defaults: the config names the paths a table really uses.

The control socket's default comes from `MAHJONG_TABLE_RUN_DIR` when it is set, so a test
(or a second daemon on one machine) never falls back to the installed table's socket."""

import os
from pathlib import Path

CONFIG = Path("/etc/mahjong-table/table.toml")
"""The table's config file."""
TILESETS = Path("/etc/mahjong-table/tilesets")
"""Where `diag tiles enroll` writes new tile-set files."""
RUN_DIR_VARIABLE = "MAHJONG_TABLE_RUN_DIR"
INSTALLED_RUN_DIR = Path("/run/mahjong-table")


def run_dir() -> Path:
    """The daemon's runtime directory: $MAHJONG_TABLE_RUN_DIR, else /run/mahjong-table."""
    return Path(os.environ.get(RUN_DIR_VARIABLE) or INSTALLED_RUN_DIR)


def control_socket() -> Path:
    """The default control socket: control.sock in `run_dir()`."""
    return run_dir() / "control.sock"
