"""Shanghai invariants on random special hands: payments sum to zero, limits hold, order free."""

from collections import Counter

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from controller.rules import Meld, MeldKind, Score, Seat, Win, WinType, get_ruleset
from controller.rules.values import replace

SH = get_ruleset("shanghai")
LIMIT = 50
DISCARD_WINS = [
    WinType.DISCARD,
    WinType.ROBBING_KONG,
    WinType.LAST_DISCARD,
    WinType.AFTER_KONG_DISCARD,
]
SELF_DRAWN = [WinType.SELF_DRAW, WinType.LAST_TILE, WinType.KONG_REPLACEMENT]

Block = tuple[str, int]  # ("chow" | "pung", lowest tile)


@st.composite
def special_hand(draw: st.DrawFn) -> tuple[list[Block], int]:
    """Four sets and a pair that are one suit (with or without honours) or all pungs."""
    if draw(st.booleans()):
        suit = draw(st.integers(0, 2))
        kinds = [9 * suit + n for n in range(9)] + list(range(27, 34))
        chow = st.tuples(st.just("chow"), st.integers(9 * suit, 9 * suit + 6))
        sets = st.one_of(chow, st.tuples(st.just("pung"), st.sampled_from(kinds)))
    else:
        kinds = list(range(34))
        sets = st.tuples(st.just("pung"), st.sampled_from(kinds))
    blocks = draw(st.lists(sets, min_size=4, max_size=4))
    pair = draw(st.sampled_from(kinds))
    counts = _counts(blocks, pair)
    assume(max(counts.values()) <= 4)
    return blocks, pair


def _counts(blocks: list[Block], pair: int) -> Counter[int]:
    counts = Counter(tile for block in blocks for tile in _tiles(block, 3))
    counts[pair] += 2
    return counts


def _tiles(block: Block, size: int) -> list[int]:
    kind, low = block
    return [low, low + 1, low + 2] if kind == "chow" else [low] * size


@st.composite
def special_win(draw: st.DrawFn) -> Win:
    """A special hand with some sets declared, flowers, a way of winning and a draw streak."""
    blocks, pair = draw(special_hand())
    declared = draw(st.integers(0, 4))
    melds: list[Meld] = []
    concealed = [pair, pair]
    for index, block in enumerate(blocks):
        if index >= declared:
            concealed += _tiles(block, 3)
        elif block[0] == "chow":
            melds.append(Meld(MeldKind.CHOW, tuple(_tiles(block, 3))))
        else:
            room = _counts(blocks, pair)[block[1]] < 4  # a kong needs the fourth tile
            how = draw(st.sampled_from(list(MeldKind)[1:] if room else [MeldKind.PUNG]))
            melds.append(Meld(how, tuple(_tiles(block, 3 if how is MeldKind.PUNG else 4))))
    flowers = draw(st.lists(st.integers(34, 41), unique=True, max_size=7))
    seat = draw(st.sampled_from(list(Seat)))
    how_won = draw(st.sampled_from(DISCARD_WINS + SELF_DRAWN))
    if how_won is WinType.KONG_REPLACEMENT and not flowers and not any(m.is_kong for m in melds):
        how_won = WinType.SELF_DRAW
    held = concealed + [tile for meld in melds for tile in meld.tiles]
    if how_won is WinType.ROBBING_KONG and held.count(concealed[-1]) > 1:
        how_won = WinType.DISCARD  # the robbed kong holds the other three of that tile
    if len(flowers) == 8 and how_won not in SELF_DRAWN:
        how_won = WinType.SELF_DRAW  # all the flowers win at once, never on a discard
    discarder = draw(st.sampled_from(seat.others()))
    return Win(
        tuple(concealed),
        tuple(melds),
        win_tile=concealed[-1],
        win_type=how_won,
        seat=seat,
        discarder=None if how_won in SELF_DRAWN else discarder,
        flowers=tuple(flowers),
        draw_streak=draw(st.integers(0, 3)),
    )


def _is_limit(score: Score) -> bool:
    return any("limit hand" in note for note in score.limits)


@settings(max_examples=150, deadline=None)
@given(special_win())
def test_a_special_hand_wins_and_payments_sum_to_zero(win: Win) -> None:
    score = SH.score(win)
    assert score.valid, (win.describe(), score.reason)
    assert sum(score.payments.values()) == 0
    payers = [seat for seat in win.seat.others() if score.payments[seat]]
    assert all(score.payments[seat] == -score.score for seat in payers)
    assert len(payers) == (3 if SH.discarder(win) is None else 1)


@settings(max_examples=150, deadline=None)
@given(special_win())
def test_the_limit_holds_and_the_draw_bonus_doubles(win: Win) -> None:
    score = SH.score(win)
    bonus = 2**win.draw_streak
    assert score.score % bonus == 0
    if _is_limit(score):
        assert score.score in {m * LIMIT * bonus for m in (1, 2, 4, 6, 8, 10)}
    else:
        assert 0 < score.score == min(score.total, LIMIT * bonus)
    assert score.score == SH.score(replace(win, draw_streak=0)).score * bonus


@settings(max_examples=80, deadline=None)
@given(special_win(), st.randoms(use_true_random=False))
def test_scoring_does_not_depend_on_tile_order(win: Win, rng: object) -> None:
    shuffled = list(win.concealed)
    rng.shuffle(shuffled)  # type: ignore[attr-defined]
    other = replace(win, concealed=tuple(shuffled), flowers=win.flowers[::-1])
    first, second = SH.score(win), SH.score(other)
    assert (first.patterns, first.total, first.score, first.payments) == (
        second.patterns,
        second.total,
        second.score,
        second.payments,
    )
