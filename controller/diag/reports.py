"""What a diag request answers with: the report type of each op (a client decodes into it),
and `Refused`, a request the daemon will not carry out now. Light: the `diag` client imports
it without the operations themselves."""

from typing import Any

from controller.diag.config_view import ConfigReport
from controller.diag.events import EventsReport
from controller.diag.gpio import GpioReport
from controller.diag.protocol import ErrorCode, Op
from controller.diag.selftest import SelftestReport
from controller.diag.status import StatusReport
from controller.diag.tiles import EnrolReport, TilesReport
from controller.errors import TableError

REPORTS: dict[Op, type[Any]] = {
    Op.STATUS: StatusReport,
    Op.SELFTEST: SelftestReport,
    Op.TILES: TilesReport,
    Op.ENROLL: EnrolReport,
    Op.GPIO: GpioReport,
    Op.EVENTS: EventsReport,
    Op.CONFIG: ConfigReport,
}
"""The report type each op answers with (the client decodes into it)."""


class Refused(TableError):
    """A request the daemon will not carry out now, with its code."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code
