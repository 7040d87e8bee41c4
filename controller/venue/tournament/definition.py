"""The tournament definition file (TOML), checked as strictly as the table config: an unknown
key, a wrong type or a value out of bounds is an error naming the file and line.

    [tournament]             name, ruleset, seat_draw ("random" | "avoid_repeats"), seed, tables
    [forfeit]                incident kinds that mean a player forfeits a hand, points it costs
    [[stages]]               name, rounds, hands per round, qualifying_minimum, cut
    [prizes]                 bands of final ranks: "1", "2", ..., "5-8", "9-16"
    [[players]]              id, name
"""

import re
from dataclasses import dataclass, field
from pathlib import Path

from controller.config_loader import TomlSource, load_dataclass, option, parse_toml
from controller.hub.contract.incidents import FORFEITS
from controller.rules.names import RULESET_NAMES

_ID = r"^[\w.@-]{1,64}$"
_NAME = r"^[a-z0-9][a-z0-9_-]{0,23}$"
_BAND = re.compile(r"^(\d+)(?:-(\d+))?$")


@dataclass(frozen=True)
class TournamentSection:
    """What the tournament is called and how it is played."""

    name: str = field(metadata=option("short id, the prefix of every session id", pattern=_NAME))
    ruleset: str = field(metadata=option("ruleset of every session", choices=RULESET_NAMES))
    tables: tuple[str, ...] = field(metadata=option("the table ids the tournament plays on"))
    seat_draw: str = field(
        default="avoid_repeats",
        metadata=option("how players are seated each round", choices=("random", "avoid_repeats")),
    )
    seed: int = field(default=1, metadata=option("seed of the seat draws", minimum=0))


@dataclass(frozen=True)
class ForfeitSection:
    """A player who does not start a hand, or leaves it, loses it: the hand counts for them
    only (they lose `points`); the other three neither score it nor count it."""

    incidents: tuple[str, ...] = field(
        default=tuple(sorted(FORFEITS)),
        metadata=option(
            "incident kinds that mean the incident's seat forfeited the hand (any of "
            + ", ".join(sorted(FORFEITS))
            + ")"
        ),
    )
    points: int = field(
        default=24, metadata=option("points a forfeited hand costs", minimum=0, maximum=100000)
    )


@dataclass(frozen=True)
class Stage:
    """One stage: rounds of sessions; who has played enough hands is ranked; the top `cut`
    go on (0: the last stage)."""

    name: str = field(metadata=option("stage id", pattern=_NAME))
    rounds: int = field(metadata=option("rounds (one session per table)", minimum=1, maximum=200))
    hands: int = field(metadata=option("hands per session", minimum=1, maximum=1000))
    qualifying_minimum: int = field(
        default=0, metadata=option("hands a player must complete to be ranked", minimum=0)
    )
    cut: int = field(default=0, metadata=option("players who go on to the next stage", minimum=0))


@dataclass(frozen=True)
class PrizeSection:
    """Prize bands by final rank."""

    bands: tuple[str, ...] = field(
        default=("1", "2", "3", "4", "5-8", "9-16", "17-32", "33-128"),
        metadata=option("rank bands, best first: '1' or '5-8'"),
    )


@dataclass(frozen=True)
class Player:
    """A registered player."""

    id: str = field(metadata=option("the player's venue id", pattern=_ID))
    name: str = field(metadata=option("the name shown in standings"))


@dataclass(frozen=True)
class Tournament:
    """A whole tournament definition."""

    tournament: TournamentSection
    stages: tuple[Stage, ...]
    players: tuple[Player, ...]
    forfeit: ForfeitSection = field(default_factory=ForfeitSection)
    prizes: PrizeSection = field(default_factory=PrizeSection)

    def stage(self, name: str) -> Stage:
        """The stage called `name` (KeyError if none)."""
        found = [s for s in self.stages if s.name == name]
        if not found:
            raise KeyError(name)
        return found[0]

    def session_prefix(self, stage: str) -> str:
        """Every session of a stage has an id starting with this."""
        return f"{self.tournament.name}.{stage}."

    def session_id(self, stage: str, round_: int, table: str) -> str:
        """The session id of one table in one round."""
        return f"{self.session_prefix(stage)}r{round_}.{table}"

    def prize_bands(self) -> list[tuple[int, int, str]]:
        """(first rank, last rank, label) of each prize band."""
        bands = []
        for label in self.prizes.bands:
            match = _BAND.match(label)
            assert match is not None  # checked when loaded
            first = int(match.group(1))
            bands.append((first, int(match.group(2) or first), label))
        return bands


def load_tournament(path: Path) -> Tournament:
    """Load and check a tournament file; ConfigError names the file and line of a mistake."""
    data, source = parse_toml(path)
    for key in ("tournament", "stages", "players"):
        if key not in data:
            raise source.error((key,), f"missing [{key}] (see docs/venue-operator.md)")
    for key in ("stages", "players"):
        if not isinstance(data[key], list):
            raise source.error((key,), f"'{key}' must be a list of [[{key}]] tables")
    # Each [[stages]] and [[players]] entry is first checked alone, against a view of the file
    # that starts at its own header, so a mistake names its own line (not the first entry's).
    for key, kind in (("stages", _OneStage), ("players", _OnePlayer)):
        for index, item in enumerate(data[key]):
            load_dataclass(kind, {key: [item]}, entry_source(source, key, index))
    definition = load_dataclass(Tournament, data, source)
    _check(definition, source)
    return definition


@dataclass(frozen=True)
class _OneStage:
    stages: tuple[Stage, ...]


@dataclass(frozen=True)
class _OnePlayer:
    players: tuple[Player, ...]


def entry_source(source: TomlSource, key: str, index: int) -> TomlSource:
    """The file as seen from the `index`-th `[[key]]` header on (earlier lines blanked, so
    line numbers stay those of the file)."""
    header = re.compile(rf"^\s*\[\[\s*{re.escape(key)}\s*\]\]")
    starts = [n for n, line in enumerate(source.lines) if header.match(line)]
    if index >= len(starts):
        return source
    view = TomlSource(source.path, "")
    view.lines = [""] * starts[index] + source.lines[starts[index] :]
    return view


def _check(t: Tournament, source: TomlSource) -> None:
    for kind in t.forfeit.incidents:
        if kind not in FORFEITS:
            raise source.error(
                ("forfeit", "incidents"),
                f"'{kind}' is not a forfeit kind the tables or the director record (the "
                f"kinds are {', '.join(sorted(FORFEITS))})",
            )
    ids = [p.id for p in t.players]
    if len(set(ids)) != len(ids):
        again = next(n for n, i in enumerate(ids) if i in ids[:n])
        raise entry_source(source, "players", again).error(
            ("players", "id"), f"player id '{ids[again]}' is registered twice"
        )
    seats = 4 * len(t.tournament.tables)
    if len(set(t.tournament.tables)) != len(t.tournament.tables):
        raise source.error(("tournament", "tables"), "'tables' names the same table twice")
    names = [s.name for s in t.stages]
    if len(set(names)) != len(names):
        raise source.error(("stages",), "two stages have the same name")
    field_size = len(ids)
    for number, stage in enumerate(t.stages):
        if field_size % 4 or field_size > seats:
            raise source.error(
                ("stages",),
                f"stage '{stage.name}' has {field_size} players: it needs a multiple of 4, "
                f"at most {seats} (4 per table)",
            )
        last = number == len(t.stages) - 1
        if last and stage.cut:
            raise source.error(("stages",), f"the last stage '{stage.name}' cannot have a cut")
        if not last and not 4 <= stage.cut <= field_size:
            raise source.error(
                ("stages",), f"stage '{stage.name}' needs a cut between 4 and {field_size}"
            )
        field_size = stage.cut or field_size
    previous = 0
    for label in t.prizes.bands:
        match = _BAND.match(label)
        first, last_rank = (
            (int(match.group(1)), int(match.group(2) or match.group(1))) if match else (0, 0)
        )
        if match is None or first != previous + 1 or last_rank < first:
            raise source.error(
                ("prizes", "bands"),
                f"prize band '{label}' must follow rank {previous} (like '{previous + 1}' or "
                f"'{previous + 1}-{previous + 4}')",
            )
        previous = last_rank
