"""Live views rendered once per change and shared by every viewer, sent as the parts that
changed.

A view renders to a layout (its HTML with one `<!--part:ID-->` mark per part) and its parts
(HTML whose root element has that id). A viewer first gets the whole view; after a change it
gets only the parts whose HTML changed, and the page replaces just those elements, so a form
on the page (never inside a part) is not touched. When the layout itself changes (a table
appears, a session starts) the viewer gets the whole view again.
"""

import json
from collections.abc import Callable
from dataclasses import dataclass, field

CACHE_LIMIT = 256
"""Views kept rendered at once (each distinct table / session / stage view is one)."""
Event = tuple[str, str]
"""A server-sent event: its name and data."""


@dataclass(frozen=True)
class Rendered:
    """One view at one version."""

    layout: str
    parts: dict[str, str] = field(default_factory=dict)

    def whole(self) -> str:
        """The view's HTML with every part in place."""
        text = self.layout
        for key, html in self.parts.items():
            text = text.replace(mark(key), html, 1)
        return text


def mark(key: str) -> str:
    """Where part `key` goes in a layout."""
    return f"<!--part:{key}-->"


def single(key: str, html: str) -> Rendered:
    """A view that is one part (its root element must carry id `key`)."""
    return Rendered(mark(key), {key: html})


@dataclass
class RenderCache:
    """Each view rendered at most once per version of what the recorder knows."""

    render: Callable[[str], Rendered]
    version: int = 0
    renders: int = 0
    _kept: dict[str, tuple[int, Rendered]] = field(default_factory=dict)
    _events: dict[tuple[str, int], tuple[Rendered | None, Event | None]] = field(
        default_factory=dict
    )

    def changed(self) -> None:
        """What the views show has changed (the recorder committed a batch)."""
        self.version += 1

    def get(self, view: str) -> Rendered:
        """The view at the current version, rendered now only if no viewer asked yet."""
        kept = self._kept.get(view)
        if kept is not None and kept[0] == self.version:
            return kept[1]
        if len(self._kept) >= CACHE_LIMIT:
            self._kept.clear()
        rendered = self.render(view)
        self.renders += 1
        self._kept[view] = (self.version, rendered)
        self._events = {k: v for k, v in self._events.items() if k[0] != view}
        return rendered

    def since(self, view: str, before: Rendered | None) -> tuple[Rendered, Event | None]:
        """The view now and the event that brings a viewer who has `before` up to it; viewers
        who had the same version share one event (diffed and encoded once)."""
        now = self.get(view)
        key = (view, id(before))
        kept = self._events.get(key)
        if kept is not None and kept[0] is before:
            return now, kept[1]
        event = update(before, now)
        self._events[key] = (before, event)
        return now, event


def update(before: Rendered | None, now: Rendered) -> Event | None:
    """The event that brings a viewer from `before` to `now`: ("view", whole HTML),
    ("parts", JSON of the changed parts by id), or None when nothing it shows changed."""
    if before is None or before.layout != now.layout:
        return "view", now.whole()
    changed = {k: v for k, v in now.parts.items() if before.parts.get(k) != v}
    return ("parts", json.dumps(changed, separators=(",", ":"))) if changed else None
