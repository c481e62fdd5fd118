"""Value classes for the commit path, without the cost of `dataclasses`.

`@record` makes a class from its annotations as `@dataclass(frozen=True)` does: an `__init__`
taking the fields in order (defaults as written, `field(default_factory=...)`), equality and a
hash over the fields (`field(compare=False)` leaves one out of both and of the repr), a repr,
and no assignment after construction (`@record(frozen=False)` allows it, and has no hash).
`replace(obj, **changes)` is `dataclasses.replace` for records (which `dataclasses.replace`
also accepts: a record describes its fields to `dataclasses` when asked).

Why: `dataclasses` imports `inspect` and compiles every generated method with `exec`; for the
classes the guard loads when a covered file is staged, that was the largest cost of a commit
after starting Python (benchmarks/guard_latency.py).
"""

from __future__ import annotations

from collections.abc import Callable

# `typing` is not imported either (about as costly as what this module replaces): mypy treats
# any name TYPE_CHECKING as true, and the names below are only read by mypy.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeVar, dataclass_transform, overload

    T = TypeVar('T')
else:

    def dataclass_transform(**_: object) -> Callable[[object], object]:
        return lambda function: function

    def overload(function: object) -> object:
        return function


_MISSING: Any = object()


class Field:
    __slots__ = ('default', 'default_factory', 'compare')

    def __init__(
        self, default: Any, default_factory: Callable[[], Any] | None, compare: bool
    ) -> None:
        self.default, self.default_factory, self.compare = default, default_factory, compare


def field(
    *,
    default: Any = _MISSING,
    default_factory: Callable[[], Any] | None = None,
    compare: bool = True,
    hash: bool | None = None,
    repr: bool = True,
) -> Any:
    """`compare=False` also leaves the field out of the hash and the repr."""
    return Field(default, default_factory, compare)


@overload
@dataclass_transform(frozen_default=True, field_specifiers=(field,))
def record(cls: type[T], /) -> type[T]: ...


@overload
def record(*, frozen: bool = True) -> Callable[[type[T]], type[T]]: ...


def record(
    cls: type[T] | None = None, /, *, frozen: bool = True
) -> type[T] | Callable[[type[T]], type[T]]:
    if cls is None:
        return lambda c: _build(c, frozen)
    return _build(cls, frozen)


def replace(obj: T, /, **changes: Any) -> T:
    names: tuple[str, ...] = type(obj).__record_fields__  # type: ignore[attr-defined]
    unknown = set(changes).difference(names)
    if unknown:
        raise TypeError(f'{type(obj).__name__} has no field {sorted(unknown)[0]!r}')
    values = {name: getattr(obj, name) for name in names}
    values.update(changes)
    return type(obj)(**values)


def _build(cls: type[T], frozen: bool) -> type[T]:
    names = tuple(cls.__dict__.get('__annotations__', {}))
    known = frozenset(names)
    defaults: dict[str, Any] = {}
    factories: dict[str, Callable[[], Any]] = {}
    compared = []
    for name in names:
        value = cls.__dict__.get(name, _MISSING)
        if isinstance(value, Field):
            if value.default_factory is not None:
                factories[name] = value.default_factory
            elif value.default is not _MISSING:
                defaults[name] = value.default
            if value.compare:
                compared.append(name)
            delattr(cls, name)
            if name in defaults:
                setattr(cls, name, defaults[name])
        else:
            if value is not _MISSING:
                defaults[name] = value
            compared.append(name)
    title = cls.__name__
    shown = tuple(compared)

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if len(args) > len(names):
            raise TypeError(f'{title}() takes {len(names)} arguments but {len(args)} were given')
        values = dict(zip(names, args))
        for key, value in kwargs.items():
            if key not in known:
                raise TypeError(f'{title}() got an unexpected keyword argument {key!r}')
            if key in values:
                raise TypeError(f'{title}() got multiple values for argument {key!r}')
            values[key] = value
        for name in names:
            if name in values:
                value = values[name]
            elif name in defaults:
                value = defaults[name]
            elif name in factories:
                value = factories[name]()
            else:
                raise TypeError(f'{title}() missing required argument: {name!r}')
            object.__setattr__(self, name, value)

    def __repr__(self: Any) -> str:
        return (
            f'{type(self).__qualname__}('
            + ', '.join(f'{n}={getattr(self, n)!r}' for n in shown)
            + ')'
        )

    def __eq__(self: Any, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n) for n in shown)

    def __hash__(self: Any) -> int:
        return hash(tuple(getattr(self, n) for n in shown))

    def __setattr__(self: Any, name: str, value: Any) -> None:
        raise AttributeError(f'cannot assign to field {name!r} of {title}: it is frozen')

    def __delattr__(self: Any, name: str) -> None:
        raise AttributeError(f'cannot delete field {name!r} of {title}: it is frozen')

    methods: dict[str, Any] = {'__init__': __init__, '__repr__': __repr__, '__eq__': __eq__}
    if frozen:
        methods.update(__hash__=__hash__, __setattr__=__setattr__, __delattr__=__delattr__)
    else:
        methods['__hash__'] = None
    for name, method in methods.items():
        if method is not None:
            method.__qualname__ = f'{cls.__qualname__}.{name}'
        setattr(cls, name, method)
    setattr(cls, '__record_fields__', names)
    setattr(cls, '__match_args__', names)
    setattr(cls, '__dataclass_fields__', _DataclassFields())
    return cls


class _DataclassFields:
    """`__dataclass_fields__` made on first use, so that `dataclasses.replace`, `fields` and
    `asdict` take records too; only code that already imported `dataclasses` asks for it."""

    def __get__(self, instance: object, owner: type) -> dict[str, Any]:
        import dataclasses

        names = owner.__record_fields__  # type: ignore[attr-defined]
        annotations = {name: owner.__dict__['__annotations__'][name] for name in names}
        shadow: Any = dataclasses.dataclass(
            type(owner.__name__, (), {'__annotations__': annotations})
        )
        fields: dict[str, Any] = shadow.__dataclass_fields__
        setattr(owner, '__dataclass_fields__', fields)
        return fields
