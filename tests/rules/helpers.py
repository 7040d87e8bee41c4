"""Small helpers for rules tests: score a hand written in notation."""

from controller.rules import Score, Seat, Win, WinType, get_ruleset


def win(
    hand: str,
    *melds: str,
    tile: str | None = None,
    how: WinType = WinType.DISCARD,
    seat: Seat = Seat.E,
    discarder: Seat | None = None,
) -> Win:
    """A declared win from notation (melds as KIND:TILES)."""
    return Win.of(hand, melds, tile, win_type=how, seat=seat, discarder=discarder)


def zj(hand: str, *melds: str, **context: object) -> Score:
    """The zung-jung score of a hand."""
    return get_ruleset("zung-jung").score(win(hand, *melds, **context))  # type: ignore[arg-type]


def names(score: Score) -> list[str]:
    """The counted pattern names of a score."""
    return [pattern.name for pattern in score.patterns]
