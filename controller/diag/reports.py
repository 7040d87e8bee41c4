"""What a diag request answers with: the report type of each op (a client decodes into it),
and `Refused`, a request the daemon will not carry out now. Light: the `diag` client imports
it without the operations themselves, and loads only the report type of the op it asked."""

from importlib import import_module
from typing import Any

from controller.diag.wire import ErrorCode, Op
from controller.errors import TableError

REPORTS: dict[Op, tuple[str, str]] = {
    Op.STATUS: ("controller.diag.status_report", "StatusReport"),
    Op.SELFTEST: ("controller.diag.selftest", "SelftestReport"),
    Op.TILES: ("controller.diag.tiles", "TilesReport"),
    Op.ENROLL: ("controller.diag.tiles", "EnrolReport"),
    Op.GPIO: ("controller.diag.gpio", "GpioReport"),
    Op.EVENTS: ("controller.diag.events", "EventsReport"),
    Op.CONFIG: ("controller.diag.config_view", "ConfigReport"),
}
"""The report type each op answers with, by module and name (`report_type` loads it)."""


def report_type(op: Op) -> type[Any]:
    """The report type `op` answers with (its module is loaded now, and only it)."""
    module, name = REPORTS[op]
    found: type[Any] = getattr(import_module(module), name)
    return found


class Refused(TableError):
    """A request the daemon will not carry out now, with its code."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code
