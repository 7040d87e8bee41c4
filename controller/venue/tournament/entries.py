"""What the tournament director enters at the dashboard, kept as an audit trail (who, when,
why) and applied to the standings:

- `forfeit`: a player forfeits one hand of a session (they left, never started, or ran out of
  time where the table could not tell), under the same rule as a table's forfeit incident;
- `penalty`: points taken from a player in a stage;
- `correction`: points given to (or taken from) a player in a stage, to put a recorded
  result right;
- `substitute`: who played a seat in place of a registered player in a session (the hands
  count for whoever played them; the entry says why the seat changed hands);
- `override`: a player is ranked in a stage although under its qualifying minimum.

Entries are stored as JSON and read back through `decode_entry`, which refuses anything that
is not an entry of a known kind (an unknown kind is an error, never skipped).
"""

from datetime import UTC, datetime
from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from controller.hub.contract.incidents import FORFEITS, IncidentKind

EntryKind = Literal["forfeit", "penalty", "correction", "substitute", "override"]
_Id = Annotated[str, Meta(pattern=r"^[\w.@-]{1,64}$")]
_Session = Annotated[str, Meta(max_length=128)]
_Reason = Annotated[str, Meta(min_length=1, max_length=500)]


class Entry(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One director's entry."""

    kind: EntryKind
    by: Annotated[str, Meta(min_length=1, max_length=64)]
    at: float
    reason: _Reason
    player: _Id
    stage: Annotated[str, Meta(max_length=24)] = ""
    session: _Session = ""
    hand: Annotated[int, Meta(ge=0, le=100000)] = 0
    points: Annotated[int, Meta(ge=-100000, le=100000)] = 0
    forfeit: IncidentKind | None = None
    substitute: _Id | None = None

    def __post_init__(self) -> None:
        if self.kind == "forfeit":
            if self.forfeit not in FORFEITS or not self.session or self.hand < 1:
                raise ValueError(
                    "a forfeit names its kind (time_forfeit, left_hand or no_start), the "
                    "session and the hand"
                )
        elif self.kind in ("penalty", "correction", "override") and not self.stage:
            raise ValueError(f"a {self.kind} names the stage")
        if self.kind == "penalty" and self.points <= 0:
            raise ValueError("a penalty takes a positive number of points")
        if self.kind == "correction" and self.points == 0:
            raise ValueError("a correction changes the points (not by 0)")
        if self.kind == "substitute" and (not self.substitute or not self.session):
            raise ValueError("a substitute names who played and the session")


class BadEntry(Exception):
    """A stored or submitted entry that is not a valid entry."""


def decode_entry(payload: bytes | str) -> Entry:
    """An entry from its JSON; BadEntry says what is wrong."""
    try:
        return msgspec.json.decode(payload, type=Entry)
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
        raise BadEntry(str(exc)) from exc


def encode_entry(entry: Entry) -> bytes:
    """The JSON an entry is stored as."""
    return msgspec.json.encode(entry)


def describe(entry: Entry) -> str:
    """One line for the audit trail."""
    what = {
        "forfeit": f"forfeit ({entry.forfeit}) of hand {entry.hand} of {entry.session}",
        "penalty": f"penalty of {entry.points} points in {entry.stage}",
        "correction": f"correction of {entry.points:+d} points in {entry.stage}",
        "substitute": f"{entry.substitute} played the seat in {entry.session}",
        "override": f"ranked in {entry.stage} although under the qualifying minimum",
    }[entry.kind]
    return f"{entry.player}: {what}; by {entry.by}: {entry.reason}"


def entry_from_form(form: dict[str, str], by: str, at: float) -> Entry:
    """An entry from the dashboard's form; ValueError says what is wrong."""
    fields: dict[str, object] = {"by": by, "at": at}
    for key in ("kind", "reason", "player", "stage", "session", "forfeit", "substitute"):
        value = form.get(key, "").strip()
        if value:
            fields[key] = value
    if fields.get("kind") != "forfeit":
        fields.pop("forfeit", None)  # the form always sends one
    for key in ("hand", "points"):
        value = form.get(key, "").strip()
        if value:
            try:
                fields[key] = int(value)
            except ValueError:
                raise ValueError(f"{key}: {value[:20]!r} is not a whole number") from None
    try:
        return msgspec.convert(fields, Entry)
    except msgspec.ValidationError as exc:
        raise ValueError(str(exc)) from exc


AUDIT_COLUMNS = ["at", "by", "kind", "player", "stage", "session", "hand", "points", "forfeit",
                 "substitute", "reason"]  # fmt: skip


def audit_row(entry: Entry) -> list[object]:
    """One entry as a row of the audit trail (AUDIT_COLUMNS; `at` as UTC ISO 8601)."""
    when = datetime.fromtimestamp(entry.at, UTC).isoformat(timespec="seconds")
    return [when, entry.by, entry.kind, entry.player, entry.stage, entry.session,
            entry.hand or "", entry.points or "", entry.forfeit or "", entry.substitute or "",
            entry.reason]  # fmt: skip
