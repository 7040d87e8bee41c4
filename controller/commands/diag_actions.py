"""`mahjong-table diag status | selftest | tiles | gpio | mqtt | events | config`.

Through the daemon's control socket while it runs; directly on the hardware when it does not
(or on the simulated table with `--sim`). Readable output or `--json`; exit 0 healthy, 1 a
problem found (or a failure), 2 usage.
"""

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from controller import paths
from controller.diag import client, render
from controller.diag.ports import Prompt
from controller.diag.protocol import VERSION, Op, Request, encode, name_problem
from controller.diag.reports import Refused, report_type
from controller.diag.socket_path import configured_socket
from controller.errors import RuntimeFailure, UsageError

if TYPE_CHECKING:  # what only the direct check or one action needs is loaded when it runs
    from controller.config import TableConfig
    from controller.diag.direct import DirectParts
    from controller.diag.events import EventLine
    from controller.diag.status_report import StatusReport
    from controller.sim.daemon_parts import SimBench

TEXT: dict[Op, Callable[[Any], str]] = {
    Op.STATUS: lambda report: render.status_text(msgspec.to_builtins(report)),
    Op.SELFTEST: render.selftest_text,
    Op.TILES: render.tiles_text,
    Op.ENROLL: render.enrol_text,
    Op.GPIO: render.gpio_text,
    Op.EVENTS: render.events_text,
    Op.CONFIG: render.config_text,
    Op.MQTT: lambda report: report.text(),
}


def read_config(args: argparse.Namespace) -> "tuple[TableConfig, str]":
    """The config file (the defaults when none is given and the default file is absent)."""
    from controller.config import DEFAULT_PATH, TableConfig, load_config

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


def run_action(args: argparse.Namespace, daemon: bool = True) -> int:
    """Carry out one diag action and print its report (`daemon` False: none listens, as
    `diag_status` found)."""
    request = build_request(args)
    if request.rolls < 1:
        raise UsageError("--rolls must be at least 1")
    enrol_path = None
    if request.name:
        from controller.diag import tiles

        enrol_path = tiles.enrol_target(_enrol_dir(args), request.name)
    report = _report(args, request, daemon)
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


def _report(args: argparse.Namespace, request: Request, daemon: bool = True) -> Any:
    """Through the daemon when one listens (a blocking socket: no event loop, no config beyond
    the socket's path); else directly on the hardware or the simulated table."""
    if request.op is Op.MQTT:
        return _mqtt(args)
    sim = sim_bench(args)
    prompts = _Terminal(args.yes, args.json)
    try:
        if sim is None and daemon:
            socket = _socket(args)
            try:
                if request.op is Op.GPIO and request.follow:
                    return _follow_gpio_daemon(socket, request)
                return _ask(socket, request, prompts, _printer(args.json))
            except client.NoDaemon:
                pass
        config, source = read_config(args)
        if request.op is Op.CONFIG:
            from controller.diag.config_view import config_report

            return config_report(config, source)
        import asyncio

        return asyncio.run(_direct(args, config, source, request, sim, prompts))
    except Refused as error:
        raise RuntimeFailure(str(error)) from None


def _ask(
    socket: Path,
    request: Request,
    prompts: "_Terminal | None" = None,
    on_event: "Callable[[EventLine], None] | None" = None,
) -> Any:
    """The daemon's report to `request`, typed."""
    answer, show = (prompts.answer_now, prompts.show) if prompts else (_never, _quiet)
    data = client.ask(socket, encode(request), answer, show, on_event)
    return client.typed(data, report_type(request.op))


def _socket(args: argparse.Namespace) -> Path:
    """--socket, else `[control] socket` of the config (read alone when it can be)."""
    if args.socket is not None:
        return Path(args.socket)
    found = configured_socket(args.config)
    return found if found is not None else read_config(args)[0].control.socket


def _mqtt(args: argparse.Namespace) -> Any:
    import asyncio

    from controller.diag.mqtt_check import check_mqtt

    config, _ = read_config(args)
    status = None if args.sim else _daemon_status(args.socket or config.control.socket)
    return asyncio.run(check_mqtt(config, args.timeout, status))


async def _direct(
    args: argparse.Namespace,
    config: "TableConfig",
    source: str,
    request: Request,
    sim: "SimBench | None",
    prompts: "_Terminal",
) -> Any:
    """The request carried out on the hardware opened directly (or the simulated table)."""
    import tempfile

    from controller.diag.direct import direct_target
    from controller.diag.service import carry_out

    with tempfile.TemporaryDirectory(prefix="mahjong-diag-") as scratch:
        parts = await _open_parts(config, sim, Path(scratch))
        async with direct_target(config, source, parts) as target:
            if request.op is Op.GPIO and request.follow:
                return await _follow_gpio_direct(target, request)
            return await carry_out(target, request, prompts, _async_printer(args.json))


async def _open_parts(
    config: "TableConfig", sim: "SimBench | None", scratch: Path
) -> "DirectParts":
    """The simulated table's parts with --sim, else the real table's."""
    if sim is None:
        from controller.diag.direct import table_parts

        return await table_parts(config)
    from controller.sim.daemon_parts import simulated_parts

    return await simulated_parts(config, sim, scratch)


def _daemon_status(socket: Path) -> "StatusReport | None":
    try:
        report: StatusReport = _ask(socket, Request(VERSION, Op.STATUS))
    except (Refused, RuntimeFailure):
        return None
    return report


FOLLOW_S = 0.2
"""How often `gpio --follow` reads the inputs again."""


def _follow_gpio_daemon(socket: Path, request: Request) -> Any:
    """A live view through the daemon: the inputs again whenever one changes (a terminal
    tool; Ctrl-C ends). NoDaemon when none listens."""
    import time

    once = msgspec.structs.replace(request, follow=False)
    report = _ask(socket, once)
    last: dict[str, bool] | None = None
    while True:
        last = _show_change(last, report.inputs)
        time.sleep(FOLLOW_S)
        try:
            report = _ask(socket, once)
        except client.NoDaemon as gone:
            raise RuntimeFailure(f"the daemon stopped: {gone}") from None


async def _follow_gpio_direct(target: Any, request: Request) -> Any:
    """As `_follow_gpio_daemon`, on the hardware opened directly."""
    import asyncio

    from controller.diag.gpio import GpioReport
    from controller.diag.service import carry_out

    once = msgspec.structs.replace(request, follow=False)
    last: dict[str, bool] | None = None
    while True:
        report = await carry_out(target, once, _Terminal(True, True))
        assert isinstance(report, GpioReport)
        last = _show_change(last, report.inputs)
        await asyncio.sleep(FOLLOW_S)


def _show_change(last: dict[str, bool] | None, now: dict[str, bool]) -> dict[str, bool]:
    if now != last:
        pressed = [name for name, on in now.items() if on]
        print("pressed: " + (", ".join(pressed) if pressed else "nothing"), flush=True)
    return now


def _never(_: Prompt) -> bool:
    return False


def _quiet(_: Prompt) -> None:
    pass


def _printer(as_json: bool) -> "Callable[[EventLine], None]":
    def show(line: "EventLine") -> None:
        text = msgspec.json.encode(line).decode() if as_json else render.event_text(line)
        print(text, flush=True)

    return show


def _async_printer(as_json: bool) -> "Callable[[EventLine], Any]":
    show = _printer(as_json)

    async def print_line(line: "EventLine") -> None:
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

    def answer_now(self, prompt: Prompt) -> bool:
        """The technician's answer (blocks until they give it)."""
        if self.yes:
            return True
        line = sys.stdin.readline()
        if not line:
            return False
        return line.strip().lower() not in ("n", "no")

    async def answer(self, prompt: Prompt) -> bool:
        """The technician's answer, while the event loop runs on (direct mode)."""
        if self.yes:
            return True
        import asyncio

        return await asyncio.to_thread(self.answer_now, prompt)

    async def tell(self, prompt: Prompt) -> None:
        """A prompt with no answer (direct mode)."""
        self.show(prompt)

    async def ask(self, prompt: Prompt) -> bool:
        """A prompt and its answer (direct mode)."""
        self.show(prompt)
        return await self.answer(prompt)
