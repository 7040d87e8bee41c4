"""One hand on its way through the cycle: the wall being built and checked, the dice, the
deal the dice decide, the declarations and wins. Pure data plus the steps that need no I/O."""

from dataclasses import dataclass, field

from controller.rules import Ruleset, Seat, WallPlan
from controller.table.deal import DealMismatch, ExpectedDeal, check_deal, expected_deal
from controller.table.geometry import Slot, physical_slot
from controller.table.ports import Zone
from controller.table.records import FinishedHand, HandStart, IncidentRecord, Instant
from controller.table.referee import Referee
from controller.table.referee.blackbox import BlackBox
from controller.table.session import Session
from controller.table.tiles import TileMap
from controller.table.wallcheck import WallVerdict, check_wall
from controller.table.zones import ZoneBoard


@dataclass(frozen=True)
class Dealt:
    """What the dice decided: the wall plan, the deal it gives, the hand's start record."""

    plan: WallPlan
    expected: ExpectedDeal
    start: HandStart

    def deal_size(self) -> int:
        """Tiles the four seats hold once the deal is done (flowers set aside included)."""
        hands = self.expected.hands.values()
        return sum(len(h) for h in hands) + sum(len(f) for f in self.expected.flowers.values())

    def check(self, board: ZoneBoard) -> list[DealMismatch]:
        """Compare every seat's HAND and MELD zones with the deal."""
        hands = {place: board.tiles(place, Zone.HAND) for place in range(4)}
        melds = {place: board.tiles(place, Zone.MELD) for place in range(4)}
        return check_deal(self.expected, hands, melds)


@dataclass
class InPlay:
    """What a hand in play carries: its referee, its black box and the zones the referee saw."""

    referee: Referee
    blackbox: BlackBox
    box_name: str
    shown: dict[tuple[int, Zone], frozenset[int]]
    shown_at: int = -1
    """The board's change count when `shown` was taken (ZoneBoard.changes)."""


@dataclass
class HandState:
    """Everything known about the hand in play."""

    number: int
    attempt: int = 1
    placed: dict[Slot, int] = field(default_factory=dict)
    built: bool = False
    lowered: bool = False
    verdict: WallVerdict | None = None
    rolling: bool = False
    dealer_rolled: bool = False
    dice: list[int] = field(default_factory=list)
    dealt: Dealt | None = None
    """Set once the dice have decided the deal."""
    play: InPlay | None = None
    """Set once the deal is checked: the referee follows play until the hand's end."""
    incidents: list[IncidentRecord] = field(default_factory=list)
    finished: FinishedHand | None = None
    """The result once the hand is over (stored again if storing failed)."""
    recorded: bool = False

    def new_attempt(self, attempt: int) -> None:
        """Forget the last build: a new shuffle is on its way."""
        self.attempt = attempt
        self.placed.clear()
        self.built = False
        self.verdict = None

    def read_side(self, side: int, tiles: tuple[tuple[int, int, int], ...]) -> None:
        """Replace one side's tiles with a full re-read of it."""
        for slot in [s for s in self.placed if s[0] == side]:
            del self.placed[slot]
        for stack, layer, uid in tiles:
            self.placed[(side, stack, layer)] = uid

    def check(self, ruleset: Ruleset, tiles: TileMap) -> WallVerdict:
        """Check the built wall (once per build)."""
        if self.verdict is None:
            self.verdict = check_wall(self.placed, ruleset.wall, ruleset.tiles, tiles)
        return self.verdict

    def penalties(self) -> tuple[int, ...]:
        """Penalty points each seat has lost in this hand so far (>= 0), from its incidents."""
        totals = [0, 0, 0, 0]
        for incident in self.incidents:  # one pass: the view asks after every input
            if incident.place is not None and 0 <= incident.place < 4:
                totals[incident.place] += incident.penalty
        return tuple(totals)

    def dice_needed(self, ruleset: Ruleset) -> int:
        """Dice values still to roll for the break."""
        return 2 * ruleset.wall.dice_rolls - len(self.dice)

    def decide_deal(self, session: Session, tiles: TileMap, now: Instant) -> Dealt:
        """Turn the dice into the break and the deal."""
        ruleset, dealer = session.ruleset, session.deal.dealer
        plan = ruleset.wall_plan(tuple(self.dice))
        expected = expected_deal(plan, self.placed, tiles, dealer)
        order = tiles.kinds(self.placed[physical_slot(p, dealer)] for p in plan.sequence)
        start = HandStart(
            session=session.plan.id,
            hand=self.number,
            ruleset=ruleset.name,
            round_wind=Seat[session.round_wind],
            dealer=dealer,
            players=session.plan.players,
            winds=tuple(Seat[session.wind_of(place)] for place in range(4)),
            dice=tuple(self.dice),
            wall_order=tuple(order),
            started_at=now,
            seating=session.seating if not session.history else None,
        )
        self.dealt = Dealt(plan, expected, start)
        return self.dealt

    @property
    def start(self) -> HandStart | None:
        """The hand's start record, once the deal is decided."""
        return self.dealt.start if self.dealt else None

    @property
    def winners(self) -> tuple[int, ...]:
        """Places of the winners so far, in order."""
        return self.play.referee.winners if self.play else ()

    @property
    def moves(self) -> int:
        """Moves the referee has followed so far."""
        return len(self.play.referee.play.moves) if self.play else 0

    @property
    def declared(self) -> tuple[int, ...]:
        """Seats whose declaration the referee has still to judge."""
        return self.play.referee.declared if self.play else ()
