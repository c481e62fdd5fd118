from __future__ import annotations

import subprocess
import sys

import pytest

from execlease_hook.core.record import field, record, replace


@record
class Point:
    x: int
    y: int = 0
    tags: tuple[str, ...] = field(default_factory=tuple)
    note: str = field(default='', compare=False)


@record(frozen=False)
class Tally:
    items: list[str] = field(default_factory=list)
    count: int = 0


def test_init_defaults_factories_and_repr():
    assert (Point(1).x, Point(1).y, Point(1).tags, Point(1).note) == (1, 0, (), '')
    assert Point(1, 2, ('a',), note='n') == Point(x=1, y=2, tags=('a',))
    assert repr(Point(1, 2)) == 'Point(x=1, y=2, tags=())'
    assert Tally().items is not Tally().items


EQUALITY = (
    ('same-fields', Point(1, 2), Point(1, 2), True),
    ('other-field', Point(1, 2), Point(1, 3), False),
    ('not-compared-field', Point(1, note='a'), Point(1, note='b'), True),
    ('other-class', Point(1, 2), (1, 2), False),
)


@pytest.mark.parametrize(
    ('one', 'other', 'equal'), [r[1:] for r in EQUALITY], ids=[r[0] for r in EQUALITY]
)
def test_equality_and_hash(one, other, equal):
    assert (one == other) is equal
    if equal:
        assert hash(one) == hash(other)


# Calls mypy refuses too: each is wrong on purpose.
ERRORS = (
    ('missing', lambda: Point(), "missing required argument: 'x'"),  # type: ignore[call-arg]
    ('unknown-keyword', lambda: Point(1, z=2), "unexpected keyword argument 'z'"),  # type: ignore[call-arg]
    ('twice', lambda: Point(1, x=2), "multiple values for argument 'x'"),  # type: ignore[misc]
    ('too-many', lambda: Point(1, 2, (), '', 5), 'takes 4 arguments but 5 were given'),  # type: ignore[call-arg]
    ('replace-unknown', lambda: replace(Point(1), z=1), "Point has no field 'z'"),
)


@pytest.mark.parametrize(('make', 'message'), [r[1:] for r in ERRORS], ids=[r[0] for r in ERRORS])
def test_errors(make, message):
    with pytest.raises(TypeError, match=message):
        make()


def test_frozen_unless_asked():
    point = Point(1)
    with pytest.raises(AttributeError, match="cannot assign to field 'x' of Point"):
        point.x = 2  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del point.x
    tally = Tally()
    tally.count += 1
    tally.items.append('a')
    assert tally == Tally(['a'], 1)
    with pytest.raises(TypeError):
        hash(tally)


def test_replace_copies_with_changes():
    point = Point(1, 2, ('a',), note='n')
    moved = replace(point, y=5)
    assert (moved.x, moved.y, moved.tags, moved.note) == (1, 5, ('a',), 'n')
    assert point.y == 2


def test_dataclasses_functions_take_records():
    import dataclasses

    point = Point(1, 2, ('a',), note='n')
    assert dataclasses.is_dataclass(point)
    assert dataclasses.replace(point, y=5) == Point(1, 5, ('a',))
    assert dataclasses.replace(point, y=5).note == 'n'
    assert [f.name for f in dataclasses.fields(point)] == ['x', 'y', 'tags', 'note']
    assert dataclasses.asdict(Point(1)) == {'x': 1, 'y': 0, 'tags': (), 'note': ''}


def test_the_guard_path_does_not_import_dataclasses():
    # The reason this module exists: `dataclasses` (and `inspect`) cost the commit.
    code = (
        'import sys\nimport execlease_hook.manifest.read, execlease_hook.manifest.write, execlease_hook.coverage.compare, execlease_hook.guard.check, '
        'execlease_hook.locate.entry, execlease_hook.fingerprint.ts2\nprint(sorted(m for m in ("dataclasses", '
        '"inspect") if m in sys.modules))'
    )
    out = subprocess.run(
        (sys.executable, '-c', code), capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == '[]'
