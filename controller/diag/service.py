"""The diag operations, the same whether a request came over the control socket or from the
CLI with the daemon stopped: a request and a target in, a report out."""

from collections.abc import Awaitable, Callable

import msgspec

from controller import paths
from controller.diag import selftest, tiles
from controller.diag.config_view import config_report
from controller.diag.events import EventLine, EventsReport
from controller.diag.gpio import gpio_report
from controller.diag.ports import Prompt
from controller.diag.protocol import MOVES_MOTORS, ErrorCode, Op, Request
from controller.diag.reports import Refused
from controller.diag.selftest import Prompter
from controller.diag.status import build_status
from controller.diag.status_report import StatusReport
from controller.diag.target import DiagTarget
from controller.errors import UsageError
from controller.table.core import Phase

ENROL_DIR = paths.TILESETS


async def carry_out(
    target: DiagTarget,
    request: Request,
    prompter: Prompter,
    on_event: Callable[[EventLine], Awaitable[None]] | None = None,
) -> msgspec.Struct:
    """Answer one request (raises Refused or a TableError when it cannot)."""
    if request.op in MOVES_MOTORS or (request.op is Op.GPIO and request.blink):
        why = target.why_not_move()  # a blinking seat LED would tell the players something false
        if why:
            raise Refused(ErrorCode.BUSY, why)
    if request.op in MOVES_MOTORS:
        async with target.motors:
            return await _move(target, request, prompter)
    return await _read(target, request, on_event)


async def _move(target: DiagTarget, request: Request, prompter: Prompter) -> msgspec.Struct:
    technician = _Acting(prompter, target)
    if request.op is Op.SELFTEST:
        only = selftest.component(request.component)
        test = selftest.SelfTest(target.mcu, target.panel, technician, rolls=request.rolls)
        return await test.run(only)
    if request.op is Op.TILES:
        return await tiles.audit(target.mcu, target.store, target.tileset, builds=2)
    if request.name is None:
        raise UsageError("tiles enroll needs the new tile set's NAME")
    return await tiles.Enrolment(target.mcu, technician).run(request.name)


async def _read(
    target: DiagTarget,
    request: Request,
    on_event: Callable[[EventLine], Awaitable[None]] | None,
) -> msgspec.Struct:
    match request.op:
        case Op.STATUS:
            return await status_of(target)
        case Op.GPIO:
            if target.panel is None:
                raise Refused(ErrorCode.UNAVAILABLE, "this table has no panel on GPIO pins")
            view = target.view()
            playing = view is not None and view.phase is Phase.PLAYING
            return gpio_report(target.panel, request.blink, playing)
        case Op.CONFIG:
            return config_report(target.config, target.config_source)
        case Op.EVENTS:
            return await _events(target, request, on_event)
        case _:
            raise Refused(ErrorCode.UNAVAILABLE, f"{request.op.value} is not served here")


async def status_of(target: DiagTarget) -> StatusReport:
    """The status report now."""
    inputs = target.panel.inputs() if target.panel is not None else {}
    return build_status(target.status, await target.mcu.facts(), inputs, target.mode)


NO_MCU = (
    "the table MCU could not be opened, so it has no events to show: check the USB cable "
    "and [serial] port"
)


async def _events(
    target: DiagTarget,
    request: Request,
    on_event: Callable[[EventLine], Awaitable[None]] | None,
) -> EventsReport:
    feed = target.feed
    if feed is None:
        raise Refused(ErrorCode.UNAVAILABLE, "events come from the running daemon only")
    recent = list(feed.recent)
    if target.mode == "direct" and not (await target.mcu.facts()).connected:
        return EventsReport(recent, NO_MCU)
    if not request.follow or on_event is None:
        return EventsReport(recent)
    queue = feed.follow()
    try:
        for line in recent:
            await on_event(line)
        while True:
            await on_event(await queue.get())
    finally:
        feed.unfollow(queue)


class _Acting:
    """A prompter whose prompts the technician also carries out (on the simulated table)."""

    def __init__(self, prompter: Prompter, target: DiagTarget) -> None:
        self.prompter = prompter
        self.target = target

    async def tell(self, prompt: Prompt) -> None:
        await self.prompter.tell(prompt)
        self.target.technician.act(prompt)

    async def ask(self, prompt: Prompt) -> bool:
        self.target.technician.act(prompt)
        return await self.prompter.ask(prompt)
