"""Frozen value classes of the rules engine (a hand, a meld, a ruleset's tables), made
without the `dataclasses` module.

`dataclasses` imports `inspect` and compiles six methods from source for every class: that was
half of the rules engine's import time (about 20 ms of 42 on the development machine), paid by
every `mahjong-table rules` command before it scores its one hand. A class decorated with
`value` is declared the same way (annotated fields, defaults, `field(default_factory=...)`, an
optional `__post_init__`) and behaves the same: positional or keyword construction, read-only
attributes, equality and hash by its fields, a repr that names them, `replace`. Only
`__init__` is compiled (one short function per class); equality and hash are closures over the
fields compared, the rest is shared by every value class.
"""

from collections.abc import Callable
from operator import attrgetter
from typing import Any, TypeVar, cast, dataclass_transform

__all__ = ["FrozenValueError", "field", "fields", "replace", "value"]

_T = TypeVar("_T")
_C = TypeVar("_C", bound=type)


class FrozenValueError(AttributeError):
    """An attribute of a value was assigned or deleted."""


class _Field:
    __slots__ = ("compare", "default_factory")

    def __init__(self, default_factory: Callable[[], object], compare: bool) -> None:
        self.default_factory = default_factory
        self.compare = compare


def field(*, default_factory: Callable[[], _T], compare: bool = True) -> _T:
    """A field whose default is made afresh for each value; `compare=False`: left out of
    equality and hash."""
    return cast(_T, _Field(default_factory, compare))


def _frozen_setattr(self: object, name: str, _value: object) -> None:
    raise FrozenValueError(f"cannot assign to field {name!r}")


def _frozen_delattr(self: object, name: str) -> None:
    raise FrozenValueError(f"cannot delete field {name!r}")


def _repr(self: object) -> str:
    shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in fields(self))
    return f"{type(self).__qualname__}({shown})"


def _init_source(names: tuple[str, ...], defaults: dict[str, object], post_init: bool) -> str:
    """An __init__ that stores each field in the instance's __dict__ (past the frozen
    __setattr__); a default is a name bound in the function's globals."""
    params, body = ["self"], ["    __values = self.__dict__"]
    for name in names:
        if name not in defaults:
            params.append(name)
        elif isinstance(defaults[name], _Field):
            params.append(f"{name}=_MISSING")
            body.append(f"    if {name} is _MISSING:\n        {name} = _make_{name}()")
        else:
            params.append(f"{name}=_default_{name}")
        body.append(f"    __values[{name!r}] = {name}")
    if post_init:
        body.append("    self.__post_init__()")
    return f"def __init__({', '.join(params)}) -> None:\n" + "\n".join(body) + "\n"


_MISSING = object()


@dataclass_transform(frozen_default=True, field_specifiers=(field,))
def value(cls: _C) -> _C:
    """Make `cls` a frozen value class from its annotated fields (see the module)."""
    if any(hasattr(base, "__value_fields__") for base in cls.__mro__[1:]):
        raise TypeError(f"{cls.__qualname__}: a value class does not extend another one")
    own = cls.__dict__.get("__annotations__", {})  # noqa: RUF063 (inspect: what this module avoids)
    names = tuple(name for name, hint in own.items() if "ClassVar" not in str(hint))
    defaults = {name: cls.__dict__[name] for name in names if name in cls.__dict__}
    scope: dict[str, Any] = {"_MISSING": _MISSING}
    for name, default in defaults.items():
        if isinstance(default, _Field):
            scope[f"_make_{name}"] = default.default_factory
            delattr(cls, name)
        else:
            scope[f"_default_{name}"] = default
    exec(_init_source(names, defaults, hasattr(cls, "__post_init__")), scope)
    compared = tuple(
        name
        for name in names
        if not isinstance(defaults.get(name), _Field) or cast(_Field, defaults[name]).compare
    )
    # (a tuple, as a dataclass hashes and compares: one field too, so hashes stay as they were)
    key = attrgetter(*compared) if len(compared) > 1 else lambda item: (getattr(item, *compared),)

    def equal(self: object, other: object) -> bool:
        if other.__class__ is self.__class__:
            return bool(key(self) == key(other))
        return NotImplemented  # type: ignore[no-any-return]

    def hashed(self: object) -> int:
        return hash(key(self))

    init = scope["__init__"]
    for made, name in ((init, "__init__"), (equal, "__eq__"), (hashed, "__hash__")):
        made.__name__, made.__qualname__ = name, f"{cls.__qualname__}.{name}"
    methods = {
        "__init__": init,
        "__repr__": _repr,
        "__eq__": equal,
        "__setattr__": _frozen_setattr,
        "__delattr__": _frozen_delattr,
    }
    for name, method in methods.items():  # (a method the class defines itself stays)
        if name not in cls.__dict__:
            setattr(cls, name, method)
    if cls.__dict__.get("__hash__") is None:  # (None: the class defines __eq__ alone)
        cls.__hash__ = hashed  # type: ignore[assignment]
    cls.__value_fields__ = names  # type: ignore[attr-defined]
    setattr(cls, "__match_args__", names)  # noqa: B010 (a name mypy will not let be assigned)
    return cls


def fields(item: object) -> tuple[str, ...]:
    """The field names of a value class or value, in declaration order."""
    return cast(tuple[str, ...], item.__value_fields__)  # type: ignore[attr-defined]


def replace(item: _T, /, **changes: Any) -> _T:
    """A copy of a value with some fields changed (checked again as when it was made)."""
    values = {name: getattr(item, name) for name in fields(item)}
    unknown = changes.keys() - values.keys()
    if unknown:
        raise TypeError(f"{type(item).__qualname__} has no field {', '.join(sorted(unknown))}")
    values.update(changes)
    made: _T = type(item)(**values)
    return made
