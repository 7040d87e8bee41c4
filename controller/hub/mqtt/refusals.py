"""Counting and logging the network input a hub program refuses.

Each refused message is counted; the first from each source is logged as a warning with the
reason, later ones from the same source only at debug level, so a flood from one broken or
hostile client neither fills the log nor hides a second source.
"""

import logging
from collections import Counter
from dataclasses import dataclass, field


@dataclass
class InputRefusals:
    """Refused inputs per source (a table id, or a topic on the table's side)."""

    log: logging.Logger
    by_source: Counter[str] = field(default_factory=Counter)

    @property
    def total(self) -> int:
        """Messages refused since start."""
        return sum(self.by_source.values())

    def refuse(self, source: str, what: str, reason: str) -> None:
        """Count one refused `what` from `source`; log it if it is the source's first."""
        self.by_source[source] += 1
        first = self.by_source[source] == 1
        level = logging.WARNING if first else logging.DEBUG
        more = " (further ones from there are only counted)" if first else ""
        self.log.log(level, "refused a %s from %s: %s%s", what, source, reason[:300], more)
