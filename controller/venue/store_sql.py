"""The recorder store's queries, each written once for both engines (the SQLite file and a
league's PostgreSQL database). In the text `?` stands for a parameter and `{arrival}` for the
column that orders a table's rows as they were added; a `Dialect` fills both in for its engine.
The schema is written once too (store_schema)."""

from dataclasses import dataclass, field

COUNTER_ADD = (
    "INSERT INTO meta (key, value) VALUES (?, ?) "
    "ON CONFLICT (key) DO UPDATE SET value = meta.value + excluded.value"
)
COUNTER = "SELECT value FROM meta WHERE key = ?"
COUNTER_SET = (
    "INSERT INTO meta (key, value) VALUES (?, ?) "
    "ON CONFLICT (key) DO UPDATE SET value = excluded.value"
)
RESULT_ADD = (
    "INSERT INTO results (id, table_id, boot, seq, session, hand, ruleset, ended_at, audit, "
    "received, payload, outbox) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (id) DO NOTHING"
)
COMMITMENT = "SELECT commitment FROM commitments WHERE table_id = ? AND session = ? AND hand = ?"
HANDS_WITHOUT_RESULT = (
    "SELECT session, hand FROM commitments c WHERE table_id = ? AND NOT EXISTS "
    "(SELECT 1 FROM results r WHERE r.table_id = c.table_id AND r.session = c.session "
    "AND r.hand = c.hand) ORDER BY seen, session, hand"
)
COMMITMENT_ADD = (
    "INSERT INTO commitments (table_id, session, hand, commitment, seen) "
    "VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING"
)
HAND_RESULTS = "SELECT id, payload FROM results WHERE table_id = ? AND session = ? AND hand = ?"
AUDIT_SET = "UPDATE results SET audit = ? WHERE id = ?"
REFUSAL_ADD = (
    "INSERT INTO refusals (at, table_id, id, reason, outbox, seq) VALUES (?, ?, ?, ?, ?, ?)"
)
REFUSALS = "SELECT table_id, id, reason FROM refusals ORDER BY at, {arrival}"
STATUS_SET = (
    "INSERT INTO statuses (table_id, payload, updated) VALUES (?, ?, ?) ON CONFLICT (table_id) "
    "DO UPDATE SET payload = excluded.payload, updated = excluded.updated"
)
STATUS = "SELECT payload FROM statuses WHERE table_id = ?"
REPLY_ADD = "INSERT INTO replies (table_id, command, payload, received) VALUES (?, ?, ?, ?)"
REPLIES = "SELECT payload FROM replies WHERE command = ?"
SEQS_ABOVE = (
    "SELECT seq FROM results WHERE table_id = ? AND outbox = ? AND seq > ? "
    "UNION SELECT seq FROM refusals WHERE table_id = ? AND outbox = ? AND seq > ? ORDER BY seq"
)
"""Parameters: table, outbox, floor, then the same three again."""
TOP_SEQ = "SELECT coalesce(max(seq), 0) FROM results WHERE table_id = ? AND outbox = ?"
REFUSED_SEQS = (
    "SELECT DISTINCT seq FROM refusals WHERE table_id = ? AND outbox = ? AND seq IS NOT NULL "
    "AND seq NOT IN (SELECT seq FROM results WHERE table_id = ? AND outbox = ?) ORDER BY seq"
)
"""Parameters: table, outbox, then the same two again."""
OUTBOXES = "SELECT outbox FROM sources WHERE table_id = ? ORDER BY first_seen, {arrival}"
SOURCE_ADD = (
    "INSERT INTO sources (table_id, outbox, first_seen) VALUES (?, ?, ?) ON CONFLICT DO NOTHING"
)
NOTICE_ADD = (
    "INSERT INTO notices (at, table_id, kind, text) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING"
)
NOTICES = "SELECT at, table_id, kind, text FROM notices ORDER BY at, {arrival}"
HEARD = (
    "INSERT INTO presence (table_id, heard) VALUES (?, ?) ON CONFLICT (table_id) "
    "DO UPDATE SET heard = excluded.heard, offline_at = NULL"
)
WENT_OFFLINE = (
    "INSERT INTO presence (table_id, offline_at, by_will) VALUES (?, ?, ?) "
    "ON CONFLICT (table_id) DO UPDATE SET offline_at = excluded.offline_at, "
    "by_will = excluded.by_will"
)
PRESENCE = (
    "SELECT t.table_id, p.heard, p.offline_at, coalesce(p.by_will, 0), s.payload FROM "
    "(SELECT table_id FROM presence UNION SELECT table_id FROM statuses) t "
    "LEFT JOIN presence p USING (table_id) LEFT JOIN statuses s USING (table_id) "
    "ORDER BY t.table_id"
)
COUNT = "SELECT count(*) FROM results"
RESULTS = (
    "SELECT id, table_id, seq, audit, payload FROM results ORDER BY table_id, session, hand, seq"
)


@dataclass(frozen=True)
class Dialect:
    """How one engine writes what the query texts leave open."""

    param: str
    """A positional parameter."""
    arrival: str
    """The column that orders rows as they were added."""
    _filled: dict[str, str] = field(default_factory=dict, compare=False, repr=False)

    def sql(self, query: str) -> str:
        """`query` as this engine runs it."""
        filled = self._filled.get(query)
        if filled is None:
            assert "%" not in query, "a literal % would need escaping for psycopg"
            filled = query.replace("?", self.param).replace("{arrival}", self.arrival)
            self._filled[query] = filled
        return filled


SQLITE = Dialect(param="?", arrival="rowid")
POSTGRES = Dialect(param="%s", arrival="n")

DIRECTOR_ENTRY_ADD = "INSERT INTO director_entries (at, operator, payload) VALUES (?, ?, ?)"
DIRECTOR_ENTRIES = "SELECT payload FROM director_entries ORDER BY {arrival}"
