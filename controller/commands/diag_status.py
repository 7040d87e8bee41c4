"""`mahjong-table diag status` asking the running daemon: a plain request on a blocking
socket, the report printed as the daemon sent it. Light on purpose (no event loop, no config
loader, no decoder library), so a technician's first command answers at once. With `--sim`, or
when no daemon listens, `diag_actions` checks the table directly."""

import argparse
import json

from controller.diag import client, render, wire
from controller.diag.reports import Refused
from controller.diag.socket_path import configured_socket
from controller.diag.status_view import healthy
from controller.errors import RuntimeFailure


def run_status(args: argparse.Namespace) -> int:
    """Print the daemon's status (or the direct check's); exit 1 when something needs a
    technician."""
    if not args.sim:
        socket = args.socket or configured_socket(args.config)
        if socket is None:  # the config says more than its socket: its loader says what
            from controller.commands.diag_actions import read_config

            socket = read_config(args)[0].control.socket
        try:
            status = client.ask(socket, wire.plain_request(wire.Op.STATUS), _never, _quiet)
        except client.NoDaemon:
            pass
        except Refused as error:
            raise RuntimeFailure(str(error)) from None
        else:
            if args.json:
                print(json.dumps(status, indent=2, ensure_ascii=False))
            else:
                print(render.status_text(status))
            return 0 if healthy(status) else 1
    from controller.commands.diag_actions import run_action

    return run_action(args, daemon=False)


def _never(_: object) -> bool:
    return False


def _quiet(_: object) -> None:
    pass
