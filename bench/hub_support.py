"""What the hub benchmarks take from devsupport (the throwaway mosquitto, sample results and
links the tests use too), and a table that refuses every hub command."""

from pathlib import Path

from controller.hub.contract.hub_commands import StartSession
from controller.hub.contract.result import HandResult
from controller.hub.contract.table_events import TableStatus
from controller.hub.mqtt.link_timing import LinkTiming
from controller.hub.table_side.dispatcher import CommandRefused
from controller.hub.table_side.hub_link import HubLink
from controller.hub.table_side.outbox import Outbox
from devsupport.hub_samples import KEY_TEXT, hand_result, table_link
from devsupport.mosquitto import Broker

__all__ = ["KEY_TEXT", "Broker", "IdleTable", "make_link", "sample_result", "start_broker"]


def start_broker(workdir: Path, extra_config: str = "") -> Broker:
    """A mosquitto in `workdir`, listening; kill it at the end."""
    workdir.mkdir(parents=True, exist_ok=True)
    broker = Broker(workdir, extra_config)
    broker.start()
    return broker


def sample_result(hand: int) -> HandResult:
    """A valid result of the benchmark's session: seat 0 wins 24 points off seat 2's discard."""
    return hand_result(hand, session="bench")


class IdleTable:
    """A table that plays nothing: every session command is refused."""

    async def start_session(self, order: StartSession) -> None:
        raise CommandRefused("this is a benchmark table")

    async def pause_session(self, reason: str) -> None:
        raise CommandRefused("this is a benchmark table")

    async def resume_session(self) -> None:
        raise CommandRefused("this is a benchmark table")

    async def end_session(self, reason: str) -> None:
        raise CommandRefused("this is a benchmark table")

    def status(self) -> TableStatus:
        return TableStatus()

    async def black_box(self, hand: int, session: str | None) -> tuple[str, bytes]:
        raise CommandRefused("this is a benchmark table: it keeps no black box")


def make_link(url: str, outbox: Path, table: str, timing: LinkTiming) -> HubLink:
    """A benchmark table's hub link with its own outbox file."""
    return table_link(url, Outbox(outbox).open(), IdleTable(), table, timing)
