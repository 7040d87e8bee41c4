"""`mahjong-table run [--config PATH] [--sim ...]`: the table daemon, on the real table or on the
simulated one (software MCU in process or over a pty, panel on mock pins, simulated players)."""

import argparse
import asyncio
import dataclasses
import logging
import signal
import tempfile
from pathlib import Path
from typing import Any

from controller.app import TableApp, serial_hardware, simulated_hardware
from controller.config import DEFAULT_PATH, ControlSection, TableConfig, load_config
from controller.logs import setup_logging
from controller.sim.hardware import SimOptions
from firmware_bridge.sim.faults import Faults

log = logging.getLogger(__name__)


def register(commands: Any) -> None:
    """Add the `run` command to the CLI."""
    run = commands.add_parser(
        "run",
        help="run the table daemon",
        description="Run the table: build and check walls, roll, check the deal, keep sessions "
        "and scores, send results to the hub. Stops cleanly on SIGTERM or Ctrl-C.",
    )
    run.add_argument("--config", type=Path, help=f"config file (default {DEFAULT_PATH})")
    run.add_argument("--sim", action="store_true", help="run on the simulated table")
    run.add_argument("--socket", type=Path, help="control socket (default [control] socket)")
    sim = run.add_argument_group("simulated table (with --sim)")
    sim.add_argument("--sim-pty", action="store_true", help="serve the simulated MCU on a pty")
    sim.add_argument("--sim-seed", type=int, default=0, help="tile tags, shuffles and dice (0)")
    sim.add_argument("--sim-speed", type=float, default=1.0, help="machine time; 0 instant (1)")
    sim.add_argument("--sim-think", type=float, default=0.5, help="players' pause, s (0.5)")
    sim.add_argument("--sim-jam-at", type=int, metavar="N", help="first build jams after N tiles")
    sim.add_argument("--sim-dead-antenna", type=int, action="append", default=[], metavar="N")
    sim.add_argument("--sim-missing-tile", action="append", default=[], metavar="TILE")
    sim.add_argument("--sim-stuck", action="append", default=[], metavar="BUTTON")
    run.set_defaults(handler=run_daemon)


def read_config(args: argparse.Namespace) -> TableConfig:
    """The config file; with --sim and no file, the defaults."""
    if args.config is None and args.sim:
        config = TableConfig()
    else:
        config = load_config(args.config or DEFAULT_PATH)
    if args.socket is not None:
        config = dataclasses.replace(config, control=ControlSection(socket=args.socket))
    return config


def run_daemon(args: argparse.Namespace) -> int:
    """Run until SIGTERM or SIGINT; exit 0 when stopped that way."""
    config = read_config(args)
    secrets = (config.mqtt.password, config.mqtt.result_key)
    setup_logging(config.logging.level, config.logging.levels, secrets)
    asyncio.run(_serve(config, args))
    return 0


async def _serve(config: TableConfig, args: argparse.Namespace) -> None:
    main = asyncio.current_task()
    assert main is not None
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, main.cancel)
    with tempfile.TemporaryDirectory(prefix="mahjong-sim-") as scratch:
        if args.sim:
            options = SimOptions(
                args.sim_seed,
                args.sim_speed,
                args.sim_pty,
                think_s=args.sim_think,
                faults=Faults(
                    jam_at_tile=args.sim_jam_at,
                    dead_antennas=tuple(args.sim_dead_antenna),
                    missing_tiles=tuple(args.sim_missing_tile),
                ),
                stuck=tuple(args.sim_stuck),
            )
            hardware = await simulated_hardware(config, options, Path(scratch))
        else:
            hardware = serial_hardware(config)
        try:
            await TableApp(config, hardware).run()
        except asyncio.CancelledError:
            log.info("stopped")
