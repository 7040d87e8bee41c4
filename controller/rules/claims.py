"""Who may claim a discard, and whose claim wins (from a ruleset's `[claims]`)."""

from collections.abc import Mapping
from enum import StrEnum

from controller.rules.data import Table, get
from controller.rules.errors import RulesError
from controller.rules.seats import Seat
from controller.rules.values import value


class Claim(StrEnum):
    """What a player calls on a discard, highest priority first."""

    WIN = "win"
    KONG = "kong"
    PUNG = "pung"
    CHOW = "chow"


class KongKind(StrEnum):
    """How a kong was made."""

    EXPOSED = "exposed"
    """Three concealed tiles plus a discard."""
    ADDED = "added"
    """An exposed pung plus the fourth tile (can be robbed in most rules)."""
    CONCEALED = "concealed"


_PRIORITY = {Claim.WIN: 0, Claim.KONG: 1, Claim.PUNG: 1, Claim.CHOW: 2}


@value
class ClaimRules:
    """Which claims exist and how competing claims on one discard resolve."""

    chow: bool
    pung: bool
    kong: bool
    multiple_winners: bool
    """True: everyone who calls a win on the discard wins; False: head bump (first in turn)."""
    rob_kong: frozenset[KongKind]
    last_discard_win_only: bool

    @classmethod
    def from_data(cls, data: Table) -> "ClaimRules":
        """The `[claims]` table of a ruleset's data."""
        robbable = get(data, "claims.rob_kong", list)
        try:
            rob = frozenset(KongKind(kind) for kind in robbable)
        except ValueError:
            raise RulesError(
                f"claims.rob_kong: kinds are exposed, added, concealed; got {robbable}"
            ) from None
        return cls(
            chow=get(data, "claims.chow", bool),
            pung=get(data, "claims.pung", bool),
            kong=get(data, "claims.kong", bool),
            multiple_winners=get(data, "claims.multiple_winners", bool),
            rob_kong=rob,
            last_discard_win_only=get(data, "claims.last_discard_win_only", bool),
        )

    def allowed(
        self, claim: Claim, claimant: Seat, discarder: Seat, last_discard: bool = False
    ) -> bool:
        """Whether `claimant` may make `claim` on a discard by `discarder`."""
        if claimant is discarder:
            return False
        if claim is Claim.WIN:
            return True
        if last_discard and self.last_discard_win_only:
            return False
        if claim is Claim.CHOW:
            return self.chow and claimant is discarder.next
        return self.pung if claim is Claim.PUNG else self.kong

    def resolve(
        self, discarder: Seat, claims: Mapping[Seat, Claim], last_discard: bool = False
    ) -> tuple[tuple[Seat, Claim], ...]:
        """The claims that take effect: the winner(s), else the single best other claim."""
        valid = {s: c for s, c in claims.items() if self.allowed(c, s, discarder, last_discard)}
        order = discarder.others()
        winners = [seat for seat in order if valid.get(seat) is Claim.WIN]
        if winners:
            chosen = winners if self.multiple_winners else winners[:1]
            return tuple((seat, Claim.WIN) for seat in chosen)
        ranked = sorted((_PRIORITY[valid[seat]], order.index(seat), seat) for seat in valid)
        return ((ranked[0][2], valid[ranked[0][2]]),) if ranked else ()

    def can_rob(self, kind: KongKind) -> bool:
        """Whether a kong of this kind may be robbed (won on)."""
        return kind in self.rob_kong
