"""Fair-play audit of the wall: a SHA-256 commitment published at hand start, checked at the end.

The commitment is SHA-256 over the 32-byte salt, a colon, and the wall's tiles in draw order
joined by commas (`salt || b":" || b"1m,5p,7z,..."`), written as lower-case hex. The salt is
random, so the commitment tells nothing about the wall while the hand is live.
"""

import hashlib
import secrets
from collections.abc import Sequence
from typing import Literal

AuditVerdict = Literal["ok", "unverified", "mismatch"]


def new_salt() -> str:
    """32 random bytes as hex, from the operating system's secure generator."""
    return secrets.token_hex(32)


def commitment_of(order: Sequence[str], salt: str) -> str:
    """The commitment to a wall order under a hex salt."""
    digest = hashlib.sha256()
    digest.update(bytes.fromhex(salt))
    digest.update(b":")
    digest.update(",".join(order).encode("ascii"))
    return digest.hexdigest()


def audit_wall(
    published: str | None, claimed: str, order: Sequence[str], salt: str
) -> AuditVerdict:
    """Compare a revealed wall with the commitment seen at hand start.

    `published` is the commitment the hub saw at hand start (None if it never saw it),
    `claimed` the commitment the result repeats. 'ok': the reveal matches what was published
    before play; 'unverified': it matches the result's own claim but the hand-start
    commitment was never seen (that event was dropped); 'mismatch': anything else.
    """
    revealed = commitment_of(order, salt)
    if revealed != claimed or (published is not None and published != revealed):
        return "mismatch"
    return "unverified" if published is None else "ok"
