"""Claims on a discard and the dealer's rotation under WMC rules."""

from controller.rules import Claim, DealState, HandOutcome, KongKind, Seat, get_ruleset

ZJ = get_ruleset("zung-jung")


def test_head_bump_the_first_winner_in_turn_order_takes_the_discard() -> None:
    claims = {Seat.W: Claim.WIN, Seat.N: Claim.WIN, Seat.S: Claim.PUNG}
    assert ZJ.claims.resolve(Seat.E, claims) == ((Seat.W, Claim.WIN),)
    assert ZJ.claims.resolve(Seat.S, claims) == ((Seat.W, Claim.WIN),)
    assert ZJ.claims.resolve(Seat.W, {Seat.S: Claim.WIN, Seat.E: Claim.WIN}) == (
        (Seat.E, Claim.WIN),
    )


def test_pung_beats_chow_and_chow_only_from_the_previous_player() -> None:
    assert ZJ.claims.resolve(Seat.E, {Seat.S: Claim.CHOW, Seat.N: Claim.PUNG}) == (
        (Seat.N, Claim.PUNG),
    )
    assert ZJ.claims.resolve(Seat.E, {Seat.W: Claim.CHOW}) == ()
    assert ZJ.claims.resolve(Seat.E, {Seat.S: Claim.CHOW}) == ((Seat.S, Claim.CHOW),)


def test_the_last_discard_may_only_be_won_on() -> None:
    assert ZJ.claims.resolve(Seat.E, {Seat.S: Claim.PUNG}, last_discard=True) == ()
    assert ZJ.claims.resolve(Seat.E, {Seat.S: Claim.WIN}, last_discard=True) == (
        (Seat.S, Claim.WIN),
    )


def test_only_an_added_kong_can_be_robbed() -> None:
    assert ZJ.claims.can_rob(KongKind.ADDED)
    assert not ZJ.claims.can_rob(KongKind.EXPOSED)
    assert not ZJ.claims.can_rob(KongKind.CONCEALED)


def test_the_dealer_rotates_every_hand_and_four_hands_make_a_round() -> None:
    state = DealState()
    outcomes = [HandOutcome((Seat.E,)), HandOutcome(), HandOutcome((Seat.W,)), HandOutcome()]
    dealers = []
    for outcome in outcomes:
        state = ZJ.next_deal(state, outcome)
        dealers.append((state.dealer, state.hand, state.round))
    assert dealers == [(1, 2, 1), (2, 3, 1), (3, 4, 1), (0, 1, 2)]


def test_seats_follow_the_dealer() -> None:
    state = DealState(dealer=2)
    assert state.seat_of(2) is Seat.E and state.seat_of(3) is Seat.S and state.seat_of(1) is Seat.N
    assert state.place_of(Seat.W) == 0


def test_draw_streak_counts_drawn_hands_in_a_row() -> None:
    state = ZJ.next_deal(ZJ.next_deal(DealState(), HandOutcome()), HandOutcome())
    assert state.draw_streak == 2
    assert ZJ.next_deal(state, HandOutcome((Seat.S,))).draw_streak == 0
