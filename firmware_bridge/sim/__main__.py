"""`python -m firmware_bridge.sim --pty | --tcp PORT [options]`: run the simulated table.

The first line on stdout is the device path (or socket:// URL) to connect to; logs go to stderr.
"""

import argparse
import asyncio
import logging
import signal
import sys
from pathlib import Path

from firmware_bridge.messages import Zone
from firmware_bridge.sim.faults import Faults
from firmware_bridge.sim.table import SimulatedTable


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """The simulator's command line."""
    parser = argparse.ArgumentParser(prog="python -m firmware_bridge.sim", description=__doc__)
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--pty", action="store_true", help="serve on a new pseudo-terminal")
    where.add_argument("--tcp", type=int, metavar="PORT", help="serve socket://127.0.0.1:PORT")
    parser.add_argument("--link", type=Path, help="with --pty: also a stable symlink to the pty")
    parser.add_argument("--seed", type=int, default=0, help="tile UIDs, shuffles, dice (0)")
    parser.add_argument("--speed", type=float, default=1.0, help="machine time factor; 0 instant")
    parser.add_argument("--corrupt", type=float, default=0.0, help="chance a byte is damaged")
    parser.add_argument("--drop", type=float, default=0.0, help="chance a frame is lost")
    parser.add_argument("--late-reply", type=float, default=0.0, help="chance a reply is late")
    parser.add_argument("--jam-at", type=int, help="the first build jams after N tiles")
    parser.add_argument("--missing-tile", action="append", default=[], metavar="TILE")
    parser.add_argument("--duplicate-uids", type=int, default=0, metavar="N")
    parser.add_argument("--zone-miss", type=float, default=0.0, help="chance a zone read misses")
    parser.add_argument("--dead-antenna", type=int, action="append", default=[], metavar="N")
    parser.add_argument("--inventory-period", type=float, default=2.0, metavar="SECONDS")
    parser.add_argument("--tileset-dir", type=Path, help="write sim-<seed>.toml there")
    parser.add_argument(
        "--firmware",
        type=Path,
        metavar="BINARY",
        help="with --pty: the MCU is this host build of the C firmware (hardware/firmware), "
        "the simulator its machine",
    )
    return parser.parse_args(argv)


def faults_from(args: argparse.Namespace) -> Faults:
    """The fault injection the options ask for."""
    return Faults(
        corrupt=args.corrupt,
        drop=args.drop,
        late_reply=args.late_reply,
        jam_at_tile=args.jam_at,
        missing_tiles=tuple(args.missing_tile),
        duplicate_uids=args.duplicate_uids,
        zone_miss=dict.fromkeys(Zone, args.zone_miss) if args.zone_miss else {},
        dead_antennas=tuple(args.dead_antenna),
    )


async def serve(args: argparse.Namespace) -> None:
    """Run until SIGINT or SIGTERM."""
    period = args.inventory_period or None
    if args.firmware is not None and not args.pty:
        raise ValueError("--firmware serves on a pty only")
    sim = SimulatedTable(
        args.seed,
        args.speed,
        faults_from(args),
        inventory_period=period,
        firmware=args.firmware,
    )
    async with sim:
        if args.tileset_dir:
            logging.info("tile set written to %s", sim.write_tileset(args.tileset_dir))
        where = await sim.serve_pty(args.link) if args.pty else await sim.serve_tcp(args.tcp)
        print(where, flush=True)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, stop.set)
        await stop.wait()


def main(argv: list[str] | None = None) -> int:
    """Entry point."""
    args = parse_args(argv)
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="sim: %(message)s")
    try:
        asyncio.run(serve(args))
    except ValueError as error:
        print(f"python -m firmware_bridge.sim: error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
