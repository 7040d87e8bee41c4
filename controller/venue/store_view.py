"""What the dashboard reads of the store, kept in memory: the recorder refreshes it on the
store's worker thread after each batch that changed it, so showing a page never waits for the
database, and the floor stays up (showing what was last known) while the store is down."""

from collections import OrderedDict
from collections.abc import Iterator

from controller.venue.store import Notice, Presence, ResultStore, StoredResult

REPLIES_KEPT = 500
"""Replies to this many of the latest commands are kept for the dashboard."""


class StoreView:
    """The store's presence, notices, refusals and recent replies as of the last batch."""

    def __init__(self) -> None:
        self._presence: list[Presence] = []
        self._notices: list[Notice] = []
        self._refusals: list[tuple[str, str | None, str]] = []
        self._replies: OrderedDict[str, list[bytes]] = OrderedDict()
        self._results: list[StoredResult] = []
        self._entries: list[bytes] = []
        self.stale = True
        """Nothing read yet (the store was down when the dashboard started)."""

    def load(self, store: ResultStore) -> None:
        """Read everything once (on the store's worker, before the dashboard serves)."""
        self.refresh(store, presence=True, notices=True, refusals=True)
        self._results = list(store.results())
        self._entries = store.director_entries()
        self.stale = False

    def refresh(self, store: ResultStore, presence: bool, notices: bool, refusals: bool) -> None:
        """Read again what a batch changed (on the store's worker)."""
        presence, notices, refusals = (x or self.stale for x in (presence, notices, refusals))
        self.stale = False
        if presence:
            self._presence = store.presence()
        if notices:
            self._notices = store.notices()
        if refusals:
            self._refusals = store.refusals()

    def add_reply(self, command: str | None, payload: bytes) -> None:
        """A reply the recorder just stored."""
        if command is None:
            return
        self._replies.setdefault(command, []).append(payload)
        self._replies.move_to_end(command)
        while len(self._replies) > REPLIES_KEPT:
            self._replies.popitem(last=False)

    def presence(self) -> list[Presence]:
        """Every table heard, by table id."""
        return self._presence

    def notices(self) -> list[Notice]:
        """Every notice, oldest first."""
        return self._notices

    def refusals(self) -> list[tuple[str, str | None, str]]:
        """(table, result id, reason) of every refusal, oldest first."""
        return self._refusals

    def replies(self, command: str) -> list[bytes]:
        """Replies received to one recent command."""
        return list(self._replies.get(command, []))

    def director_entries(self) -> list[bytes]:
        """The tournament director's entries kept when the dashboard started (the dashboard
        keeps those entered since)."""
        return list(self._entries)

    def results(self) -> Iterator[StoredResult]:
        """The results recorded before the dashboard started (given once, then dropped)."""
        results, self._results = self._results, []
        yield from results
