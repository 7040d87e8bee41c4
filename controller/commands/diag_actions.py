"""`mahjong-table diag status | selftest | tiles | gpio | mqtt | events | config`.

Through the daemon's control socket while it runs; directly on the hardware when it does not
(or on the simulated table with `--sim`). Readable output or `--json`; exit 0 healthy, 1 a
problem found (or a failure), 2 usage.
"""

import argparse
import asyncio
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from controller import paths
from controller.config import DEFAULT_PATH, TableConfig, load_config
from controller.diag import render, tiles
from controller.diag.client import ask, daemon_listening
from controller.diag.config_view import config_report
from controller.diag.events import EventLine
from controller.diag.gpio import GpioReport
from controller.diag.ports import Prompt
from controller.diag.protocol import VERSION, Op, Request, name_problem
from controller.diag.reports import Refused
from controller.diag.status import StatusReport
from controller.errors import RuntimeFailure, UsageError

if TYPE_CHECKING:
    from controller.diag.direct import DirectParts
    from controller.sim.daemon_parts import SimBench

TEXT: dict[Op, Callable[[Any], str]] = {
    Op.STATUS: render.status_text,
    Op.SELFTEST: render.selftest_text,
    Op.TILES: render.tiles_text,
    Op.ENROLL: render.enrol_text,
    Op.GPIO: render.gpio_text,
    Op.EVENTS: render.events_text,
    Op.CONFIG: render.config_text,
    Op.MQTT: lambda report: report.text(),
}


def read_config(args: argparse.Namespace) -> tuple[TableConfig, str]:
    """The config file (the defaults when none is given and the default file is absent)."""
    if args.config is not None:
        return load_config(args.config), str(args.config)
    if DEFAULT_PATH.exists():
        return load_config(DEFAULT_PATH), str(DEFAULT_PATH)
    return TableConfig(), "no config file: the defaults"


def build_request(args: argparse.Namespace) -> Request:
    """The request the command line asks for."""
    op = Op(args.op)
    name = None
    if op is Op.TILES and args.words:
        if args.words[0] != "enroll" or len(args.words) != 2:
            raise UsageError("use `diag tiles` or `diag tiles enroll NAME`")
        op, name = Op.ENROLL, args.words[1]
    if name is not None and (problem := name_problem(name)):
        raise UsageError(f"tiles enroll: {problem}")
    fields = {
        "v": VERSION,
        "op": op.value,
        "component": getattr(args, "component", None),
        "rolls": getattr(args, "rolls", 60),
        "name": name,
        "follow": getattr(args, "follow", False),
        "blink": getattr(args, "blink", None),
    }
    try:  # checked as the daemon checks a request line
        return msgspec.convert(fields, Request)
    except msgspec.ValidationError as error:
        raise UsageError(str(error)) from None


def sim_bench(args: argparse.Namespace) -> "SimBench | None":
    """The simulated table the options ask for (None: the real hardware)."""
    if not args.sim:
        return None
    from controller.sim.daemon_parts import SimBench  # only --sim loads the simulator
    from firmware_bridge.sim.faults import Faults

    try:
        faults = Faults(
            jam_at_tile=args.sim_jam_at,
            dead_antennas=tuple(args.sim_dead_antenna),
            missing_tiles=tuple(args.sim_missing_tile),
        )
    except ValueError as error:
        raise UsageError(str(error)) from None
    return SimBench(args.sim_seed, faults, tuple(args.sim_stuck))


def run_action(args: argparse.Namespace) -> int:
    """Carry out one diag action and print its report."""
    config, source = read_config(args)
    request = build_request(args)
    if request.rolls < 1:
        raise UsageError("--rolls must be at least 1")
    enrol_path = tiles.enrol_target(_enrol_dir(args), request.name) if request.name else None
    report = asyncio.run(_report(args, config, source, request))
    if enrol_path is not None:
        from controller.diag.bench import TileSetFiles

        report = tiles.write_enrolment(TileSetFiles(), enrol_path, report)
    if args.json:
        print(msgspec.json.format(msgspec.json.encode(report), indent=2).decode())
    else:
        print(TEXT[request.op](report))
    return 0 if report.healthy else 1


def _enrol_dir(args: argparse.Namespace) -> Path:
    """Where an enrolment is written: --dir; the table's tile-set folder; with --sim and no
    --dir a new scratch folder (a simulated table's tags never reach the real folder)."""
    if args.dir is not None:
        return Path(args.dir)
    if args.sim:
        import tempfile

        return Path(tempfile.mkdtemp(prefix="mahjong-enrol-sim-"))
    return paths.TILESETS


async def _report(
    args: argparse.Namespace, config: TableConfig, source: str, request: Request
) -> Any:
    socket = args.socket or config.control.socket
    sim = sim_bench(args)
    daemon = sim is None and await daemon_listening(socket)
    if request.op is Op.MQTT:
        from controller.diag.mqtt_check import check_mqtt

        status = await _daemon_status(socket) if daemon else None
        return await check_mqtt(config, args.timeout, status)
    if request.op is Op.CONFIG and not daemon:
        return config_report(config, source)
    if request.op is Op.GPIO and request.follow:
        return await _follow_gpio(args, config, source, request, socket, daemon, sim)
    prompts = _Terminal(args.yes, args.json)
    try:
        if daemon:
            return await ask(socket, request, prompts.answer, prompts.show, _printer(args.json))
        import tempfile

        from controller.diag.direct import direct_target

        with tempfile.TemporaryDirectory(prefix="mahjong-diag-") as scratch:
            parts = await _open_parts(config, sim, Path(scratch))
            async with direct_target(config, source, parts) as target:
                from controller.diag.service import carry_out

                return await carry_out(target, request, prompts, _async_printer(args.json))
    except Refused as error:
        raise RuntimeFailure(str(error)) from None


async def _open_parts(config: TableConfig, sim: "SimBench | None", scratch: Path) -> "DirectParts":
    """The simulated table's parts with --sim, else the real table's."""
    if sim is None:
        from controller.diag.direct import table_parts

        return await table_parts(config)
    from controller.sim.daemon_parts import simulated_parts

    return await simulated_parts(config, sim, scratch)


async def _daemon_status(socket: Path) -> StatusReport | None:
    async def never(_: Prompt) -> bool:
        return False

    try:
        report: StatusReport = await ask(socket, Request(VERSION, Op.STATUS), never, _quiet)
    except (Refused, RuntimeFailure):
        return None
    return report


async def _follow_gpio(
    args: argparse.Namespace,
    config: TableConfig,
    source: str,
    request: Request,
    socket: Path,
    daemon: bool,
    sim: "SimBench | None",
) -> Any:
    """A live view: the inputs again whenever one changes (a terminal tool; Ctrl-C ends)."""
    once = msgspec.structs.replace(request, follow=False)
    last: dict[str, bool] | None = None
    import tempfile

    from controller.diag.direct import direct_target

    with tempfile.TemporaryDirectory(prefix="mahjong-diag-") as scratch:
        if daemon:
            while True:
                report = await ask(socket, once, _never, _quiet)
                last = _show_change(last, report.inputs)
                await asyncio.sleep(0.2)
        parts = await _open_parts(config, sim, Path(scratch))
        async with direct_target(config, source, parts) as target:
            while True:
                from controller.diag.service import carry_out

                report = await carry_out(target, once, _Terminal(True, True))
                assert isinstance(report, GpioReport)
                last = _show_change(last, report.inputs)
                await asyncio.sleep(0.2)


def _show_change(last: dict[str, bool] | None, now: dict[str, bool]) -> dict[str, bool]:
    if now != last:
        pressed = [name for name, on in now.items() if on]
        print("pressed: " + (", ".join(pressed) if pressed else "nothing"), flush=True)
    return now


async def _never(_: Prompt) -> bool:
    return False


def _quiet(_: Prompt) -> None:
    pass


def _printer(as_json: bool) -> Callable[[EventLine], None]:
    def show(line: EventLine) -> None:
        text = msgspec.json.encode(line).decode() if as_json else render.event_text(line)
        print(text, flush=True)

    return show


def _async_printer(as_json: bool) -> Callable[[EventLine], Any]:
    show = _printer(as_json)

    async def print_line(line: EventLine) -> None:
        show(line)

    return print_line


class _Terminal:
    """Prompts on stderr; answers from stdin (Enter or y: done/yes, n: no) or `--yes`."""

    def __init__(self, yes: bool, quiet: bool) -> None:
        self.yes = yes
        self.quiet = quiet

    def show(self, prompt: Prompt) -> None:
        """Show a prompt."""
        suffix = " [Enter: done, n: no]" if prompt.answer and not self.yes else ""
        print(f">> {prompt.text}{suffix}", file=sys.stderr, flush=True)

    async def answer(self, prompt: Prompt) -> bool:
        """The technician's answer."""
        if self.yes:
            return True
        line = await asyncio.to_thread(sys.stdin.readline)
        if not line:
            return False
        return line.strip().lower() not in ("n", "no")

    async def tell(self, prompt: Prompt) -> None:
        """A prompt with no answer (direct mode)."""
        self.show(prompt)

    async def ask(self, prompt: Prompt) -> bool:
        """A prompt and its answer (direct mode)."""
        self.show(prompt)
        return await self.answer(prompt)
