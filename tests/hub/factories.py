"""Hand results, keys and a session keeper for the hub tests: real objects, valid by default."""

from dataclasses import dataclass, field

from controller.hub.contract.envelopes import MAX_REPLY_DATA
from controller.hub.contract.hub_commands import StartSession
from controller.hub.contract.table_events import TableStatus
from controller.hub.mqtt.link_timing import Backoff, LinkTiming
from controller.hub.table_side.dispatcher import CommandRefused
from controller.table.blackbox_files import BlackBoxFiles, BlackBoxMissing
from controller.table.referee.blackbox import box_name
from devsupport.hub_samples import KEY_TEXT as KEY_TEXT
from devsupport.hub_samples import OTHER_KEY_TEXT as OTHER_KEY_TEXT
from devsupport.hub_samples import PLAYERS as PLAYERS
from devsupport.hub_samples import START as START
from devsupport.hub_samples import WALL as WALL
from devsupport.hub_samples import hand_result as hand_result

# Tests run real brokers and sockets; these durations keep each wait short.
FAST = LinkTiming(
    reconnect=Backoff(0.05, 1.5, 0.4),
    resend=Backoff(1.0, 2.0, 4.0),
    tick_s=0.02,
    connect_timeout_s=2.0,
    publish_timeout_s=2.0,
    keepalive_s=5,
    window=64,
    gap_grace_s=0.3,
)


@dataclass
class SessionBook:
    """The table side of hub commands, kept as small as a real session keeper can be:
    idle -> playing <-> paused -> idle, refusing what makes no sense."""

    state: str = "idle"
    session: str | None = None
    players: list[str] = field(default_factory=list)
    log: list[str] = field(default_factory=list)
    boxes: BlackBoxFiles | None = None

    async def start_session(self, order: StartSession) -> None:
        if self.state != "idle":
            raise CommandRefused(f"session {self.session} is still {self.state}")
        self.state, self.session, self.players = "playing", order.session, list(order.players)
        self.log.append(f"start {order.session}")

    async def pause_session(self, reason: str) -> None:
        if self.state != "playing":
            raise CommandRefused("no session is being played")
        self.state = "paused"
        self.log.append(f"pause {reason}")

    async def resume_session(self) -> None:
        if self.state != "paused":
            raise CommandRefused("the session is not paused")
        self.state = "playing"
        self.log.append("resume")

    async def end_session(self, reason: str) -> None:
        if self.state == "idle":
            raise CommandRefused("no session to end")
        self.state, self.session = "idle", None
        self.log.append(f"end {reason}")

    def status(self) -> TableStatus:
        return TableStatus(state=self.state, session=self.session, players=self.players)

    async def black_box(self, hand: int, session: str | None) -> tuple[str, bytes]:
        """A hand's black box from the files `boxes` keeps (as the table's control does)."""
        session = session or self.session
        if self.boxes is None or session is None:
            raise CommandRefused("no session has been played")
        name = box_name(session, hand)
        try:
            return name, await self.boxes.compressed(name, MAX_REPLY_DATA)
        except BlackBoxMissing as error:
            raise CommandRefused(str(error)) from None
