"""Zig (locate/zig.py): `fn` in a file or in a struct namespace; on a sample and on real code
(TigerBeetle, tests/fixtures/real/)."""

from __future__ import annotations

from pathlib import Path

import pytest

from execlease_hook.core.errors import CannotRun
from execlease_hook.fingerprint.scheme import fingerprint
from execlease_hook.locate.entry import find_functions, locate
from execlease_hook.manifest.model import CoveredEntry

FIXTURES = Path(__file__).parents[1] / 'fixtures'


def read(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def entry(path: str, qualname: str) -> CoveredEntry:
    return CoveredEntry(id='lease-entry', path=path, action='Renew', function=qualname)


LOCATED = (
    ('locate/sample.zig', 'acquire', 3, 5, 'pub fn acquire('),
    ('locate/sample.zig', 'Lease.renew', 10, 12, 'pub fn renew(self: *Lease)'),
    ('locate/sample.zig', 'Lease.Token.check', 15, 17, 'fn check() bool'),
    ('locate/sample.zig', 'Queue', 21, 30, 'pub fn Queue(comptime T: type) type'),
    ('locate/sample.zig', 'Queue.push', 25, 28, 'pub fn push(self: *@This(), item: T)'),
    ('real/common.zig', 'listen', 32, 60, 'pub fn listen('),
    ('real/common.zig', 'tcp_options', 65, 117, 'pub fn tcp_options('),
    ('real/common.zig', 'Stats.trace', 191, 199, 'pub fn trace(stats: *Stats) void {'),
    (
        'real/common.zig',
        'Stats.Timings.add',
        184,
        188,
        'pub fn add(total: *Timings, increment: Timings) void {',
    ),
    (
        'real/bit_set.zig',
        'BitSetType.is_set',
        20,
        23,
        'pub fn is_set(bit_set: BitSet, index: usize) bool {',
    ),
    ('real/bit_set.zig', 'BitSetType.Iterator.next', 81, 86, 'pub fn next(it: *@This()) ?usize {'),
)


@pytest.mark.parametrize(
    ('name', 'qualname', 'start_line', 'end_line', 'opening'),
    LOCATED,
    ids=[f'{r[0]}:{r[1]}' for r in LOCATED],
)
def test_locate_function(name, qualname, start_line, end_line, opening):
    located = locate(entry(name, qualname), read(name))
    assert (located.start_line, located.end_line) == (start_line, end_line)
    assert located.text.startswith(opening)
    assert located.text.rstrip().endswith('}')


def test_an_extern_prototype_is_not_a_definition():
    assert find_functions('a.zig', read('locate/sample.zig'), 'outside') == []
    with pytest.raises(CannotRun, match="'renew' not found .*did you mean: Lease.renew"):
        locate(entry('a.zig', 'renew'), read('locate/sample.zig'))


INLINE = (
    ('const E = enum {\n    a,\n    pub fn f() void {}\n};\n', 'E.f', 3, 3),
    ('const U = union(enum) {\n    a: u8,\n    fn g() void {}\n};\n', 'U.g', 3, 3),
    (
        'fn h() void {\n    const S = struct {\n        fn m() void {}\n    };\n    _ = S;\n}\n',
        'h.S.m',
        3,
        3,
    ),
    ('export fn exported() void {}\n', 'exported', 1, 1),
    ('inline fn fast() void {}\n', 'fast', 1, 1),
)


@pytest.mark.parametrize(
    ('source', 'qualname', 'start_line', 'end_line'), INLINE, ids=[r[1] for r in INLINE]
)
def test_more_shapes(source, qualname, start_line, end_line):
    (located,) = find_functions('a.zig', source.encode(), qualname)
    assert (located.start_line, located.end_line) == (start_line, end_line)


EDITS = (
    ('real/common.zig', 'tcp_options', 'options.rcvbuf > 0', 'options.rcvbuf >= 0'),
    ('real/common.zig', 'Stats.Timings.add', 'total.', 'increment.'),
    ('real/bit_set.zig', 'BitSetType.Iterator.next', 'it.bits_remain - 1', 'it.bits_remain - 2'),
)


@pytest.mark.parametrize(('name', 'qualname', 'old', 'new'), EDITS, ids=[r[1] for r in EDITS])
def test_a_one_token_edit_of_real_code_moves_only_its_fingerprint(name, qualname, old, new):
    source = read(name)
    located = locate(entry(name, qualname), source)
    assert old in located.text
    edited = source.replace(located.text.encode(), located.text.replace(old, new, 1).encode())
    assert fingerprint(locate(entry(name, qualname), edited)) != fingerprint(located)
    for other in [r[1] for r in LOCATED if r[0] == name and r[1] != qualname]:
        assert fingerprint(locate(entry(name, other), edited)) == fingerprint(
            locate(entry(name, other), source)
        )
