"""One owner per fact in the referee: the steps of play (moves, claims, fouls, procedures,
timing, the machine) change the referee's memory only through the methods of its owners
(`Play`, `Places`, `Turn`, `Windows`, `Standing`, `Waits`, `HandClocks`), never by writing a
field of `play` themselves, directly or through a name bound to one. Two writers of one fact
are how a tile came to be kept in two places."""

import ast
from collections.abc import Iterator
from pathlib import Path

import controller.table.referee as referee

OWNERS = {
    "state.py",
    "places.py",
    "turn.py",
    "windows.py",
    "standing.py",
    "waits.py",
    "handclocks.py",
    "wall.py",
    "melds.py",
}
MUTATORS = {
    "add",
    "append",
    "appendleft",
    "clear",
    "difference_update",
    "discard",
    "extend",
    "insert",
    "pop",
    "popitem",
    "popleft",
    "remove",
    "setdefault",
    "sort",
    "update",
}


def _field(node: ast.expr, aliases: dict[str, str]) -> str | None:
    """The field of `play` an expression reaches (`play.x`, `play.x[i].y`, or a name bound to
    one of them), or None."""
    while isinstance(node, ast.Attribute | ast.Subscript):
        value = node.value
        if isinstance(node, ast.Attribute) and isinstance(value, ast.Name) and value.id == "play":
            return node.attr
        node = node.value
    return aliases.get(node.id) if isinstance(node, ast.Name) else None


def _position(node: ast.AST) -> tuple[int, int]:
    return getattr(node, "lineno", 0), getattr(node, "col_offset", 0)


def writes(source: str) -> Iterator[tuple[int, str]]:
    """(line, field) of each write to a field of `play` in a module's functions."""
    for function in ast.walk(ast.parse(source)):
        if not isinstance(function, ast.FunctionDef):
            continue
        aliases: dict[str, str] = {}
        for node in sorted(ast.walk(function), key=_position):
            if isinstance(node, ast.Assign) and isinstance(
                node.value, ast.Attribute | ast.Subscript
            ):
                bound = _field(node.value, aliases)
                for target in node.targets:
                    if bound and isinstance(target, ast.Name):
                        aliases[target.id] = bound
            targets: list[ast.expr] = []
            if isinstance(node, ast.Assign | ast.Delete):
                targets = list(node.targets)
            elif isinstance(node, ast.AugAssign | ast.AnnAssign):
                targets = [node.target]
            for target in targets:
                for element in target.elts if isinstance(target, ast.Tuple) else [target]:
                    field = None if isinstance(element, ast.Name) else _field(element, aliases)
                    if field:
                        yield element.lineno, field
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in MUTATORS
            ):
                field = _field(node.func.value, aliases)
                if field:
                    yield node.lineno, field


def test_the_finder_sees_writes_direct_and_through_a_name() -> None:
    source = (
        "def f(play):\n"
        "    play.turn = 1\n"
        "    seat = play.seats[0]\n"
        "    seat.concealed.add(5)\n"
        "    del play.where[3]\n"
        "    play.kinds([1])\n"
    )
    assert list(writes(source)) == [(2, "turn"), (4, "seats"), (5, "where")]


def test_only_the_owners_change_the_referees_memory() -> None:
    folder = Path(referee.__file__).parent
    found = {
        f"{path.name}:{line} writes play.{field}"
        for path in sorted(folder.glob("*.py"))
        if path.name not in OWNERS
        for line, field in writes(path.read_text())
    }
    assert not found, "change it through its owner's methods: " + ", ".join(sorted(found))
