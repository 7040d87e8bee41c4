"""`diag tiles`: audit the tile set from full wall reads; `diag tiles enroll NAME`: build a new
tile-set file from wall reads and the technician sorting the tiles face by face."""

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import msgspec

from controller.diag.ports import Action, BenchMcu, Prompt
from controller.diag.protocol import name_problem
from controller.diag.selftest import Prompter
from controller.errors import RuntimeFailure, UsageError

FULL_SET = 144
SET_NAMES = ("A", "B")
FACES = (
    [f"{n}{suit}" for suit in "mps" for n in range(1, 10)]
    + [f"{n}z" for n in range(1, 8)]
    + [f"{n}f" for n in range(1, 9)]
)
"""Every face of a full set: 34 kinds (four each) and 8 flowers (one each)."""


def copies(face: str) -> int:
    """How many tiles of a face a full set holds."""
    return 1 if face.endswith("f") else 4


class TileSetStore(Protocol):
    """Reads and writes tile-set files (format: hardware/tilesets/README.md)."""

    def read(self, path: Path) -> tuple[str, Mapping[str, Mapping[int, str]]]:
        """The file's name and its sets (UID -> face)."""
        ...

    def write(self, path: Path, name: str, sets: Mapping[str, Mapping[int, str]]) -> Path:
        """Write a new file."""
        ...


def uid_text(uid: int) -> str:
    """A tag UID as the tile-set files write it."""
    return f"{uid:016X}"


class SetAudit(msgspec.Struct, frozen=True):
    """One physical set as a wall read found it."""

    set: str
    tiles_read: int
    missing: list[str]
    """Faces of the file's set that were not read, once per tile."""
    duplicated: list[str]
    """Tags read more than once, as 'UID (face)'."""
    unknown: list[str]
    """Tags not in the tile-set file."""
    unread: int
    """Places where the reader got no tag at all."""


class TilesReport(msgspec.Struct, frozen=True):
    """`diag tiles`."""

    tileset: str
    sets: list[SetAudit]

    @property
    def healthy(self) -> bool:
        """Every set complete, no stray or doubled tag."""
        return all(not (s.missing or s.duplicated or s.unknown or s.unread) for s in self.sets)


def audit_read(sets: Mapping[str, Mapping[int, str]], uids: list[int]) -> SetAudit:
    """Compare one wall read with the tile-set file's set it comes from."""
    known = {uid: (name, face) for name, tiles in sets.items() for uid, face in tiles.items()}
    owners = Counter(known[uid][0] for uid in uids if uid in known)
    name = owners.most_common(1)[0][0] if owners else "?"
    counts = Counter(uids)
    expected = sets.get(name, {})
    missing = Counter(face for uid, face in expected.items() if uid not in counts)
    return SetAudit(
        set=name,
        tiles_read=len(uids),
        missing=sorted(missing.elements(), key=FACES.index),
        duplicated=[
            f"{uid_text(uid)} ({known[uid][1] if uid in known else 'unknown'}) x{n}"
            for uid, n in sorted(counts.items())
            if n > 1 and uid
        ],
        unknown=[uid_text(uid) for uid in sorted(counts) if uid and uid not in known],
        unread=counts.get(0, 0),
    )


async def read_set(mcu: BenchMcu, first: bool) -> list[int]:
    """Build the walls from the next set in the hopper; the tags read. A set built before is
    raised and dropped into the hopper first, so the other set comes next."""
    if not first:
        await mcu.raise_walls()
        await mcu.lower_platform()
    return await mcu.build_wall(FULL_SET)


async def audit(mcu: BenchMcu, store: TileSetStore, path: Path, builds: int) -> TilesReport:
    """Build the walls `builds` times (one set each) and audit each read."""
    name, sets = store.read(path)
    reads = [await read_set(mcu, first=index == 0) for index in range(builds)]
    return TilesReport(name, [audit_read(sets, uids) for uids in reads])


class EnrolReport(msgspec.Struct, frozen=True):
    """`diag tiles enroll`: the tags learnt, set by set (UID text -> face); the technician's
    own process writes the file (`path`), never the daemon."""

    name: str
    tiles: int
    problems: list[str]
    sets: dict[str, dict[str, str]]
    path: str = ""

    @property
    def healthy(self) -> bool:
        """The file was written and every face was found."""
        return not self.problems


@dataclass
class Enrolment:
    """Read each set's tags from a wall build, then learn each tag's face from the hand zone
    of seat E as the technician lays the tiles there face by face."""

    mcu: BenchMcu
    prompter: Prompter

    async def run(self, name: str, set_count: int = 2) -> EnrolReport:
        """Learn every tag of `set_count` sets, or say what went wrong."""
        sets: dict[str, dict[int, str]] = {}
        problems: list[str] = []
        for index, set_name in enumerate(SET_NAMES[:set_count]):
            text = f"enrolling set {set_name}: the table builds its walls now"
            await self.prompter.tell(Prompt(Action.CLEAR, "E-hand", text))
            wall = set(await read_set(self.mcu, first=index == 0))
            wall.discard(0)
            if len(wall) != FULL_SET:
                problems.append(f"set {set_name}: the wall read {len(wall)} distinct tags, not 144")
            again = [uid for tiles in sets.values() for uid in tiles if uid in wall]
            if again:
                problems.append(f"set {set_name}: {len(again)} tags were enrolled in another set")
            sets[set_name] = await self._faces(set_name, wall, problems)
        learnt = {
            set_name: {uid_text(uid): face for uid, face in tiles.items()}
            for set_name, tiles in sets.items()
        }
        return EnrolReport(name, sum(map(len, sets.values())), problems, learnt)

    async def _faces(self, set_name: str, wall: set[int], problems: list[str]) -> dict[int, str]:
        found: dict[int, str] = {}
        for face in FACES:
            text = f"set {set_name}: put every {face} of this set on seat E's hand zone"
            if not await self.prompter.ask(Prompt(Action.SORT, face, text)):
                raise RuntimeFailure("enrolment stopped by the technician: nothing written")
            uids = set(await self.mcu.read_zone(0, 0))
            new = uids - found.keys()
            stray = sorted(new - wall)
            if stray:
                problems.append(
                    f"set {set_name} {face}: tags {', '.join(map(uid_text, stray))} "
                    "were not in the wall read (a tile of the other set?)"
                )
            if len(new) != copies(face):
                problems.append(
                    f"set {set_name}: {len(new)} tiles read as {face}, not {copies(face)}"
                )
            found.update(dict.fromkeys(new & wall, face))
            await self.prompter.ask(Prompt(Action.CLEAR, "E-hand", "take those tiles away"))
        return found


def enrol_target(directory: Path, name: str) -> Path:
    """Where `tiles enroll NAME` writes (inside `directory`, whatever the name); refused if
    the name breaks the control socket's rule or a file is there already."""
    problem = name_problem(name)
    if problem:
        raise UsageError(f"tiles enroll: {problem}")
    path = directory / f"{name}.toml"
    if path.resolve().parent != directory.resolve():
        raise UsageError(f"tiles enroll: {name!r} would write outside {directory}")
    if path.exists():
        raise UsageError(f"{path} exists already: choose another name or remove it")
    return path


def write_enrolment(store: TileSetStore, path: Path, report: EnrolReport) -> EnrolReport:
    """Write a clean enrolment's tile-set file; returns the report with its path."""
    if report.problems:
        return report
    sets = {
        set_name: {int(uid, 16): face for uid, face in tiles.items()}
        for set_name, tiles in report.sets.items()
    }
    written = store.write(path, report.name, sets)
    return msgspec.structs.replace(report, path=str(written))
