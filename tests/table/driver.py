"""Drives the pure hand cycle by hand: inputs at chosen instants, effects collected."""

from controller.rules import get_ruleset
from controller.table import effects as fx
from controller.table import inputs as ev
from controller.table.cycle import CycleSettings, HandCycle, Phase, TableView
from controller.table.geometry import Slot
from controller.table.ports import (
    DicePressed,
    DiceRolled,
    McuOnline,
    Motion,
    MotionEnded,
    Outcome,
    WallTilePlaced,
    Zone,
    ZoneRead,
)
from controller.table.records import Instant
from controller.table.session import SessionPlan
from tests.table.helpers import full_wall, tile_map

PLAYERS = ("ann", "bo", "cy", "di")


class Driver:
    """One hand cycle, a clock of its own, and everything it asked for."""

    def __init__(self, ruleset: str = "zung-jung", settings: CycleSettings | None = None):
        self.ruleset = get_ruleset(ruleset)
        self.tiles = tile_map(self.ruleset)
        self.cycle = HandCycle(self.tiles, settings)
        self.t = 0.0
        self.effects: list[fx.Effect] = []

    def view(self) -> TableView:
        """The table as people see it now."""
        return self.cycle.view()

    def feed(self, event: ev.Input, after: float = 0.0) -> list[fx.Effect]:
        """One input, `after` seconds after the previous one."""
        self.t += after
        out = self.cycle.handle(event, Instant(self.t, 1_700_000_000.0 + self.t))
        self.effects += out
        return out

    def start(
        self,
        hands: int = 2,
        deadline_s: float = 0.0,
        margin_s: float = 60.0,
        seating_draw: bool = False,
    ) -> list[fx.Effect]:
        """The MCU is up and a session starts (with the ruleset's seating draw if asked)."""
        self.feed(McuOnline())
        session = SessionPlan(
            "s-1",
            self.ruleset.name,
            PLAYERS,
            hands,
            deadline_s=deadline_s,
            margin_s=margin_s,
            seating_draw=seating_draw,
        )
        return self.feed(ev.StartSession(session, self.ruleset))

    def build(self, wall: dict[Slot, int] | None = None, seed: int = 0) -> list[fx.Effect]:
        """The MCU streams a built wall and finishes building and lowering."""
        for (side, stack, layer), uid in (wall or full_wall(self.ruleset, seed)).items():
            self.feed(WallTilePlaced(side, stack, layer, uid))
        out = self.feed(MotionEnded(Motion.LOWER, Outcome.DONE), after=1.0)
        return out + self.feed(MotionEnded(Motion.BUILD, Outcome.DONE), after=10.0)

    def raise_and_roll(self, *dice: tuple[int, int]) -> None:
        """The walls rise and the dice button is pressed for each roll."""
        self.feed(MotionEnded(Motion.RAISE, Outcome.DONE), after=2.0)
        for d1, d2 in dice:
            self.feed(DicePressed(), after=1.0)
            self.feed(DiceRolled(d1, d2), after=1.0)

    def deal_as_planned(self) -> None:
        """Every seat takes exactly its tiles; the zones settle."""
        hand = self.cycle.hand
        assert hand is not None and hand.dealt is not None
        expected = hand.dealt.expected
        for place in range(4):
            self.feed(ZoneRead(place, Zone.HAND, expected.hands[place]), after=0.2)
            self.feed(ZoneRead(place, Zone.MELD, expected.flowers[place]))
        self.feed(ev.Tick(), after=self.cycle.settings.settle_s)

    def to_playing(self) -> None:
        """From power-on to play in the first hand."""
        self.start()
        self.build()
        self.raise_and_roll((3, 4), (2, 2))
        self.deal_as_planned()
        assert self.view().phase is Phase.PLAYING, self.view
