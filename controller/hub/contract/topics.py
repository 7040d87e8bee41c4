"""The MQTT topic tree of the contract: one place that builds and parses every topic name."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Topics:
    """Topic names under a configurable root (default `mahjong/`)."""

    root: str = "mahjong/"

    def status(self, table: str) -> str:
        """Retained table status; the table's last will says offline."""
        return f"{self.root}tables/{table}/status"

    def events(self, table: str) -> str:
        """Public play-by-play of one table."""
        return f"{self.root}tables/{table}/events"

    def results(self, table: str) -> str:
        """Signed hand results of one table."""
        return f"{self.root}tables/{table}/results"

    def replies(self, table: str) -> str:
        """The table's replies to hub commands."""
        return f"{self.root}tables/{table}/replies"

    def commands(self, table: str) -> str:
        """Commands from the hub to one table."""
        return f"{self.root}cmd/{table}"

    def acks(self, table: str) -> str:
        """End-to-end acknowledgements of result ids, hub to one table."""
        return f"{self.root}hub/ack/{table}"

    @property
    def hub_state(self) -> str:
        """The hub's retained state (online or offline through its will)."""
        return f"{self.root}hub/state"

    def all_tables(self, leaf: str) -> str:
        """Subscription filter for one leaf (status, events, ...) of every table."""
        return f"{self.root}tables/+/{leaf}"

    def table_of(self, topic: str) -> tuple[str, str] | None:
        """(table, leaf) of a `tables/<table>/<leaf>` topic, or None for any other topic."""
        prefix = f"{self.root}tables/"
        if not topic.startswith(prefix):
            return None
        parts = topic[len(prefix) :].split("/")
        if len(parts) != 2 or not parts[0]:
            return None
        return parts[0], parts[1]
