"""Running the dashboard beside the recorder (`hub --http HOST:PORT`)."""

import argparse
import asyncio
import contextlib
import ssl
import sys

from controller.errors import UsageError
from controller.hub.mqtt.transport import first_failure
from controller.venue.async_store import AsyncStore, StoreDown
from controller.venue.dashboard.app import Dashboard
from controller.venue.dashboard.auth import Sessions, load_operators
from controller.venue.dashboard.http import HttpServer
from controller.venue.dashboard.options import http_address
from controller.venue.recorder import Recorder
from controller.venue.store_view import StoreView
from controller.venue.tournament.definition import load_tournament


def build(args: argparse.Namespace, recorder: Recorder, view: StoreView) -> Dashboard:
    """The dashboard the options ask for (nothing is served yet)."""
    sessions = Sessions.fresh(load_operators(args.http_users)) if args.http_users else None
    tournament = load_tournament(args.tournament) if args.tournament else None
    return Dashboard(recorder, view, sessions, tournament)


def _tls(args: argparse.Namespace) -> ssl.SSLContext | None:
    if (args.http_cert is None) != (args.http_key is None):
        raise UsageError("--http-cert and --http-key go together")
    if args.http_cert is None:
        return None
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    try:
        context.load_cert_chain(args.http_cert, args.http_key)
    except (OSError, ssl.SSLError) as exc:
        raise UsageError(f"--http-cert/--http-key: {exc}") from exc
    return context


async def record_and_serve(args: argparse.Namespace, recorder: Recorder, store: AsyncStore) -> None:
    """Run the recorder, and the dashboard beside it when --http is given."""
    if not args.http:
        await recorder.run()
        return
    host, port = http_address(args.http)
    view = StoreView()
    with contextlib.suppress(StoreDown):  # the floor fills in once the store returns
        await store.call(view.load)
    recorder.view = view
    dashboard = build(args, recorder, view)
    dashboard.attach()
    server = HttpServer(dashboard.handle, dashboard.stream, {"/events"})
    started = asyncio.Event()
    scheme = "https" if args.http_cert else "http"

    async def announce() -> None:
        await started.wait()
        sys.stdout.write(f"dashboard on {scheme}://{host}:{server.port}/\n")
        sys.stdout.flush()
        await asyncio.Event().wait()

    await first_failure(
        recorder.run(), server.serve(host, port, _tls(args), started), announce(), dashboard.watch()
    )
