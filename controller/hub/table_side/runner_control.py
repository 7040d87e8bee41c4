"""Hub commands as hand-cycle inputs: start, pause, resume and end sessions; report status."""

from collections.abc import Callable

from controller.hub.contract.envelopes import MAX_REPLY_DATA
from controller.hub.contract.hub_commands import StartSession as StartOrder
from controller.hub.contract.table_events import TableStatus
from controller.hub.table_side.dispatcher import CommandRefused
from controller.hub.table_side.table_report import table_status
from controller.rules import RulesError, Ruleset
from controller.table import inputs as ev
from controller.table.blackbox_files import BlackBoxFiles, BlackBoxMissing
from controller.table.core import Phase
from controller.table.referee.blackbox import box_name
from controller.table.runner import TableRunner
from controller.table.session import SessionPlan

QUIET = (Phase.IDLE, Phase.SESSION_OVER)


class RunnerControl:
    """What the hub may ask of the table (the hub link's TableControl)."""

    def __init__(
        self, rulesets: Callable[[str], Ruleset], margin_s: float = 60.0, software: str = ""
    ) -> None:
        self.rulesets = rulesets
        self.margin_s = margin_s
        self.software = software
        self._runner: TableRunner | None = None
        self._boxes: BlackBoxFiles | None = None

    def attach(self, runner: TableRunner, boxes: BlackBoxFiles | None = None) -> None:
        """The runner commands go to (built after the hub link, which needs this object),
        and where the hands' black boxes are kept."""
        self._runner = runner
        self._boxes = boxes

    @property
    def runner(self) -> TableRunner:
        """The table runner (refuses while the daemon is still starting)."""
        if self._runner is None:
            raise CommandRefused("the table is still starting")
        return self._runner

    async def start_session(self, order: StartOrder) -> None:
        """Start a session unless one is in play."""
        view = self.runner.view
        if view.session is not None and view.phase not in QUIET:
            raise CommandRefused(f"session {view.session} is in play: end it first")
        try:
            ruleset = self.rulesets(order.ruleset)
        except RulesError as error:
            raise CommandRefused(str(error)) from None
        plan = SessionPlan(
            order.session,
            order.ruleset,
            tuple(order.players),
            hands=order.hands,
            deadline_s=order.deadline_minutes * 60.0,
            margin_s=self.margin_s,
        )
        self.runner.submit(ev.StartSession(plan, ruleset))

    async def pause_session(self, reason: str) -> None:
        """No new hand starts until resumed."""
        self._need_session()
        self.runner.submit(ev.PauseSession(reason))

    async def resume_session(self) -> None:
        """Hands start again."""
        self._need_session()
        self.runner.submit(ev.ResumeSession())

    async def end_session(self, reason: str) -> None:
        """End after the hand in play (at once if none is dealt)."""
        self._need_session()
        self.runner.submit(ev.EndSession(reason or "ended by the venue"))

    def status(self) -> TableStatus:
        """The table's status now."""
        if self._runner is None:
            return TableStatus(state="idle", software=self.software)
        return table_status(self._runner.view, self.software)

    async def black_box(self, hand: int, session: str | None) -> tuple[str, bytes]:
        """One hand's black box for a dispute (default: of the current or last session)."""
        session = session or self.runner.view.session
        if session is None or self._boxes is None:
            raise CommandRefused("no session has been played since the table started: name one")
        name = box_name(session, hand)
        try:
            return name, await self._boxes.compressed(name, MAX_REPLY_DATA)
        except BlackBoxMissing as error:
            raise CommandRefused(str(error)) from None

    def _need_session(self) -> None:
        view = self.runner.view
        if view.session is None or view.phase is Phase.SESSION_OVER:
            raise CommandRefused("no session is in play")
