"""Fair-play audit: the hand-start commitment hides the wall and the result's reveal checks it."""

from hypothesis import given, settings
from hypothesis import strategies as st

from controller.hub.contract.audit import audit_wall, commitment_of
from controller.hub.contract.result import WallReveal
from tests.hub.factories import WALL

SALT = "cd" * 32


def test_a_faithful_reveal_matches_the_published_commitment() -> None:
    sealed = WallReveal.seal(WALL)
    assert audit_wall(sealed.commitment, sealed.commitment, sealed.order, sealed.salt) == "ok"


def test_a_swapped_pair_of_tiles_is_a_mismatch() -> None:
    published = commitment_of(WALL, SALT)
    swapped = [WALL[4], *WALL[1:4], WALL[0], *WALL[5:]]
    forged = commitment_of(swapped, SALT)
    assert audit_wall(published, forged, swapped, SALT) == "mismatch"


def test_a_reveal_that_contradicts_its_own_claim_is_a_mismatch_even_unseen() -> None:
    assert audit_wall(None, commitment_of(WALL, SALT), WALL, "ef" * 32) == "mismatch"


def test_without_the_hand_start_commitment_a_reveal_is_unverified() -> None:
    assert audit_wall(None, commitment_of(WALL, SALT), WALL, SALT) == "unverified"


def test_each_hand_gets_a_fresh_salt() -> None:
    assert WallReveal.seal(WALL).commitment != WallReveal.seal(WALL).commitment


@settings(max_examples=40)
@given(st.permutations(WALL[:20]))
def test_different_walls_under_one_salt_never_share_a_commitment(order: list[str]) -> None:
    if order != WALL[:20]:
        assert commitment_of(order, SALT) != commitment_of(WALL[:20], SALT)
