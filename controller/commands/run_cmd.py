"""`mahjong-table run [--config PATH] [--sim ...]`: the table daemon, on the real table or on the
simulated one (software MCU in process or over a pty, panel on mock pins, simulated players).

Before it touches hardware it runs the same checks as `config check` (controller.preflight)
and takes the table's lock (controller.instance_lock): one daemon per table."""

import argparse
import asyncio
import contextlib
import dataclasses
import logging
import math
import signal
import sys
import tempfile
from pathlib import Path
from typing import Any

from controller.config import DEFAULT_PATH, TableConfig, read_config_file
from controller.errors import UsageError

log = logging.getLogger(__name__)
SIM_DEFAULTS: dict[str, Any] = {
    "sim_pty": False,
    "sim_seed": 0,
    "sim_speed": 1.0,
    "sim_think": 0.5,
    "sim_jam_at": None,
    "sim_dead_antenna": [],
    "sim_missing_tile": [],
    "sim_stuck": [],
    "sim_firmware": None,
}


def register(commands: Any) -> None:
    """Add the `run` command to the CLI."""
    run = commands.add_parser(
        "run",
        description="Run the table: build and check walls, roll, check the deal, keep sessions "
        "and scores, send results to the hub. Stops cleanly on SIGTERM or Ctrl-C.",
    )
    run.add_argument("--config", type=Path, help=f"config file (default {DEFAULT_PATH})")
    run.add_argument("--socket", type=Path, help="control socket (default [control] socket)")
    run.add_argument("--sim", action="store_true", help="run on the simulated table")
    sim = run.add_argument_group("simulated table (with --sim)")
    # Defaults are None so that an --sim-* option given without --sim can be refused.
    sim.add_argument("--sim-pty", action="store_true", default=None, help="serve the MCU on a pty")
    sim.add_argument("--sim-seed", type=int, help="tile tags, shuffles and dice (0)")
    sim.add_argument("--sim-speed", type=float, help="machine time; 0 instant (1)")
    sim.add_argument("--sim-think", type=float, help="players' pause, s (0.5)")
    sim.add_argument("--sim-jam-at", type=int, metavar="N", help="first build jams after N tiles")
    sim.add_argument("--sim-dead-antenna", type=int, action="append", metavar="N")
    sim.add_argument("--sim-missing-tile", action="append", metavar="TILE")
    sim.add_argument("--sim-stuck", action="append", metavar="BUTTON")
    sim.add_argument(
        "--sim-firmware",
        type=Path,
        metavar="BINARY",
        help="the MCU is this host build of the C firmware (make -C hardware/firmware host)",
    )
    run.set_defaults(handler=run_daemon)


def sim_options(args: argparse.Namespace) -> dict[str, Any]:
    """The --sim-* values with their defaults filled in; UsageError names a bad one."""
    given = [name for name in SIM_DEFAULTS if getattr(args, name) is not None]
    if given and not args.sim:
        flags = ", ".join("--" + name.replace("_", "-") for name in given)
        raise UsageError(f"{flags}: only with --sim (the simulated table)")
    values = {name: getattr(args, name) for name in SIM_DEFAULTS}
    values = {
        name: default if values[name] is None else values[name]
        for name, default in SIM_DEFAULTS.items()
    }
    for name in ("sim_speed", "sim_think"):
        value = values[name]
        if not math.isfinite(value) or value < 0:
            raise UsageError(
                f"--{name.replace('_', '-')} must be a number of 0 or more, not {value}"
            )
    return values


def read_config(args: argparse.Namespace) -> TableConfig:
    """The config file, checked as `config check` checks it; with --sim and no file, the
    defaults (the outbox then in the simulation's scratch folder). Warnings go to stderr."""
    from controller.preflight import preflight

    if args.config is None and args.sim:
        config, source = TableConfig(), None
    else:
        config, source = read_config_file(args.config or DEFAULT_PATH)
    if args.socket is not None:
        config = dataclasses.replace(
            config, control=dataclasses.replace(config.control, socket=args.socket)
        )
    for warning in preflight(config, source, simulated=args.sim).warnings:
        print(f"mahjong-table: warning: {warning}", file=sys.stderr)
    return config


def run_daemon(args: argparse.Namespace) -> int:
    """Run until SIGTERM or SIGINT; exit 0 when stopped that way."""
    from controller.logs import setup_logging

    options = sim_options(args)
    config = read_config(args)
    with _table_lock(config, args.sim):
        secrets = (config.mqtt.password, config.mqtt.result_key)
        setup_logging(config.logging.level, config.logging.levels, secrets)
        asyncio.run(_serve(config, args.sim, options, scratch_outbox=args.sim and not args.config))
    return 0


@contextlib.contextmanager
def _table_lock(config: TableConfig, simulated: bool) -> Any:
    """One daemon per table: the outbox's lock file, and nobody else on the serial port.
    A simulated table without a hub key shares nothing, so it takes no lock."""
    from controller.instance_lock import InstanceLock, lock_path_for, refuse_if_held

    if simulated and not config.mqtt.result_key:
        yield
        return
    with InstanceLock(lock_path_for(config.outbox.path)):
        if not simulated:
            refuse_if_held(config.serial.port)
        yield


async def _serve(
    config: TableConfig, simulated: bool, options: dict[str, Any], scratch_outbox: bool
) -> None:
    from controller.app import TableApp, serial_hardware

    main = asyncio.current_task()
    assert main is not None
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, main.cancel)
    with tempfile.TemporaryDirectory(prefix="mahjong-sim-") as scratch:
        if scratch_outbox:  # a try-out table with no config file keeps nothing
            outbox = dataclasses.replace(config.outbox, path=Path(scratch) / "outbox.sqlite3")
            config = dataclasses.replace(config, outbox=outbox)
        if simulated:  # only a simulated table loads the simulator
            from controller.sim.daemon_parts import simulated_table
            from controller.sim.hardware import SimOptions
            from firmware_bridge.sim.faults import Faults

            sim = SimOptions(
                options["sim_seed"],
                options["sim_speed"],
                options["sim_pty"],
                think_s=options["sim_think"],
                faults=Faults(
                    jam_at_tile=options["sim_jam_at"],
                    dead_antennas=tuple(options["sim_dead_antenna"]),
                    missing_tiles=tuple(options["sim_missing_tile"]),
                ),
                stuck=tuple(options["sim_stuck"]),
                firmware=options["sim_firmware"],
            )
            hardware = (await simulated_table(config, sim, Path(scratch))).hardware
        else:
            hardware = serial_hardware(config)
        try:
            await TableApp(config, hardware).run()
        except asyncio.CancelledError:
            log.info("stopped")
