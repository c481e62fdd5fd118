"""Formatter round trips for C, C++ and Zig with the real formatters: clang-format (several
styles) and `zig fmt`, both from the `test` extra (the clang-format and ziglang wheels).

The corpus is tests/fixtures/formatters/lease.{c,cpp,zig} (written to exercise each
normalisation) and the real code in tests/fixtures/real/. After formatting, every definition the
file holds once keeps its fingerprint; the copies with one semantic edit each must move the
fingerprint of the edited definition. The real Zig files are already `zig fmt`-clean, so they are
first stripped of their indentation: `zig fmt` must give back the original bytes.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from execlease_hook.fingerprint.scheme import fingerprint
from execlease_hook.locate.entry import every_definition, find_functions
from execlease_hook.locate.source import language_for
from tests.fingerprint.formatter_test import region_fingerprints, verbatim
from tests.needs import missing

FIXTURES = Path(__file__).parents[1] / 'fixtures'
CORPUS = {
    'lease.c': FIXTURES / 'formatters' / 'lease.c',
    'lease.cpp': FIXTURES / 'formatters' / 'lease.cpp',
    'lease.zig': FIXTURES / 'formatters' / 'lease.zig',
    'ae.c': FIXTURES / 'real' / 'ae.c',
    'RaftConsensus.cc': FIXTURES / 'real' / 'RaftConsensus.cc',
    'common.zig': FIXTURES / 'real' / 'common.zig',
    'bit_set.zig': FIXTURES / 'real' / 'bit_set.zig',
}

# file -> regions as (from, to), anchored on lines the formatters rewrite: found by their tokens
REGIONS: dict[str, tuple[tuple[str, str], ...]] = {
    'lease.c': (
        ('int weights[] = {1, 2, 3,};', 'for (int i = 0; i < 3; i++) { now += weights[i]; }'),
    ),
    'lease.cpp': (
        ('if (now > expires_) { return -1; }', 'expires_ = now + (extra ? extra : 30);'),
    ),
    'lease.zig': (
        (
            'if (self.expires_at>now and !std.mem.eql(u8, self.owner, run)) return error.Held;',
            'self.expires_at = now + 0x1E;',
        ),
        ('const ok = switch (gen) { 0 => false, else => gen == expected, };', 'return ok;'),
    ),
}

# file -> (entry or region's `from`, old text (once in the file), new text): one semantic edit each
EDITS: dict[str, tuple[tuple[str, str, str], ...]] = {
    'lease.c': (
        ('describe', '"lease of %s " "expired"', '"lease of %s" "expired"'),
        ('describe', 'sizeof(buf)', 'sizeof(buf) - 1'),
        ('claim', '{1, 2, 3,}', '{1, 2, 4,}'),
        ('claim', '!= 0) return -1', '== 0) return -1'),
        ('claim', 'LEASE_TTL * 0X10', 'LEASE_TTL * 0X11'),
        ('claim', 'return (int)(l->generation)', 'return (int)(l->generation + 1)'),
        ('int weights[] = {1, 2, 3,};', '!= 0) return -1', '== 0) return -1'),
        ('int weights[] = {1, 2, 3,};', '{1, 2, 3,}', '{1, 2, 4,}'),
        ('remaining', '#if 0', '#if 1'),
    ),
    'lease.cpp': (
        ('lease.Lease.Lease', 'generation_(0)', 'generation_(1)'),
        ('lease.Lease.renew', 'now > expires_', 'now >= expires_'),
        ('lease.Lease.renew', '(extra ? extra : 30)', '(extra ? extra : 31)'),
        ('lease.Lease.operator==', '&& owner_', '|| owner_'),
        ('lease.Lease.expired', '[this]', '[=]'),
        ('lease.describe', 'R"(lease: )"', 'R"(lease:  )"'),
        ('lease.describe', '"nobody"', '"nobody "'),
        ('lease.fenced', 'gen != expected', 'gen == expected'),
        ('if (now > expires_) { return -1; }', 'now > expires_', 'now >= expires_'),
        ('if (now > expires_) { return -1; }', '(extra ? extra : 30)', '(extra ? extra : 31)'),
    ),
    'lease.zig': (
        ('Lease.claim', 'self.expires_at>now', 'self.expires_at>=now'),
        ('Lease.claim', '0x1E', '0x1F'),
        ('Lease.describe', '\\\\until', '\\\\until '),
        ('Lease.describe', '"lease of {s} "', '"lease of {s}"'),
        ('fenced', '0 => false', '1 => false'),
        (
            'if (self.expires_at>now and !std.mem.eql(u8, self.owner, run)) return error.Held;',
            'self.generation += 1',
            'self.generation += 2',
        ),
        (
            'if (self.expires_at>now and !std.mem.eql(u8, self.owner, run)) return error.Held;',
            'self.expires_at>now',
            'self.expires_at>=now',
        ),
        (
            'const ok = switch (gen) { 0 => false, else => gen == expected, };',
            '0 => false',
            '1 => false',
        ),
        (
            'const ok = switch (gen) { 0 => false, else => gen == expected, };',
            'return ok',
            'return !ok',
        ),
    ),
    'ae.c': (
        ('aeMain', 'while (!eventLoop->stop)', 'while (eventLoop->stop)'),
        ('aeCreateEventLoop', 'eventLoop->maxfd = -1', 'eventLoop->maxfd = 1'),
    ),
    'RaftConsensus.cc': (
        (
            'LogCabin.Server.RaftConsensus.becomeLeader',
            'state = State::LEADER',
            'state = State::FOLLOWER',
        ),
    ),
    'common.zig': (),
    'bit_set.zig': (),
}


def _clang_format() -> list[str]:
    found = shutil.which(
        'clang-format', path=os.pathsep.join((str(Path(sys.executable).parent), os.environ['PATH']))
    )
    if found is None:
        missing("clang-format is not installed: pip install -e '.[test]' (the clang-format wheel)")
    return [str(found)]


def _zig() -> list[str]:
    if importlib.util.find_spec('ziglang') is None:
        missing("zig is not installed: pip install -e '.[test]' (the ziglang wheel)")
    return [sys.executable, '-m', 'ziglang', 'fmt']


C_FILES = ('lease.c', 'lease.cpp', 'ae.c', 'RaftConsensus.cc')
FORMATTERS = (
    ('clang-format', C_FILES, _clang_format, ('-i',)),
    ('clang-format-google', C_FILES, _clang_format, ('-i', '--style=Google')),
    ('clang-format-gnu', C_FILES, _clang_format, ('-i', '--style=GNU')),
    (
        'clang-format-braces-narrow-directives',
        C_FILES,
        _clang_format,
        (
            '-i',
            '--style={BasedOnStyle: Mozilla, InsertBraces: true, IndentPPDirectives: AfterHash, ColumnLimit: 40, '
            'IntegerLiteralSeparator: {Binary: 4, Decimal: 3, Hex: 2}, RemoveSemicolon: true}',
        ),
    ),
    (
        'clang-format-no-braces-tabs-allman',
        C_FILES,
        _clang_format,
        (
            '-i',
            '--style={BasedOnStyle: LLVM, RemoveBracesLLVM: true, UseTab: Always, IndentWidth: 8, '
            'BreakBeforeBraces: Allman, SpaceBeforeParens: Always, AlignConsecutiveMacros: true}',
        ),
    ),
    ('zig-fmt', ('lease.zig', 'common.zig', 'bit_set.zig'), _zig, ()),
)


def fingerprints(
    name: str, source: bytes, recorded: dict[str, str] | None = None
) -> dict[str, str]:
    """Every definition the file holds once, by name, and its regions (formatter_test.py's)."""
    language = language_for(name)
    assert language is not None
    names = [d.qualname for d in every_definition(language, source)]
    found = {}
    for qualname in {n for n in names if names.count(n) == 1}:
        (located,) = find_functions(name, source, qualname)
        found[qualname] = fingerprint(located, 'ts2')
    return found | region_fingerprints(name, source, REGIONS.get(name, ()), recorded)


@functools.cache
def _corpus_fingerprints(name: str) -> dict[str, str]:
    return fingerprints(name, CORPUS[name].read_bytes())


def corpus_fingerprints(name: str) -> dict[str, str]:
    """`fingerprints` of a corpus file as it is, computed once in this process, not once per
    row: every row's comparison starts from the same file (RaftConsensus.cc's alone took about
    0.16 CPU-s a row)."""
    return dict(_corpus_fingerprints(name))


def _unindented(source: bytes) -> bytes:
    return b'\n'.join(line.lstrip(b' ') for line in source.split(b'\n'))


@pytest.mark.parametrize(
    ('files', 'tool', 'options'), [r[1:] for r in FORMATTERS], ids=[r[0] for r in FORMATTERS]
)
def test_formatting_moves_no_fingerprint_and_every_edit_still_does(tmp_path, files, tool, options):
    command = tool()
    written: list[tuple[str, str | None, Path]] = []
    for name in files:
        original = CORPUS[name].read_bytes()
        if name in ('common.zig', 'bit_set.zig'):
            assert fingerprints(name, _unindented(original)) == fingerprints(name, original)
            original = _unindented(original)
        copies: list[tuple[str | None, bytes]] = [(None, original)]
        for edited, old, new in EDITS[name]:
            assert original.count(old.encode()) == 1, f'{name}: edit {old!r} must occur once'
            copies.append((edited, original.replace(old.encode(), new.encode())))
        for number, (entry, text) in enumerate(copies):
            path = tmp_path / str(number) / name
            path.parent.mkdir(exist_ok=True)
            path.write_bytes(text)
            written.append((name, entry, path))
    env = {k: v for k, v in os.environ.items() if not k.startswith('GIT_')}
    env.setdefault('ZIG_GLOBAL_CACHE_DIR', str(tmp_path / 'zig-cache'))
    proc = subprocess.run(
        (*command, *options, *(str(p) for _, _, p in written)),
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, f'{command} {options} failed:\n{proc.stdout}\n{proc.stderr}'

    for name in files:
        before = corpus_fingerprints(name)
        assert len(before) >= 3, f'{name}: too few definitions to test'
        for file, entry, path in written:
            if file != name:
                continue
            formatted = path.read_bytes()
            after = fingerprints(name, formatted, before)
            if entry is None:
                if name in ('common.zig', 'bit_set.zig'):
                    assert formatted == CORPUS[name].read_bytes(), (
                        f'{name}: zig fmt did not restore the file'
                    )
                else:
                    assert formatted != CORPUS[name].read_bytes(), (
                        f'{name}: the formatter changed nothing'
                    )
                assert not verbatim(REGIONS.get(name, ()), formatted), (
                    f'{name}: anchors left as written'
                )
                moved = [f'{k}: {after.get(k)}' for k in before if before[k] != after.get(k)]
                assert not moved, f'{name}: formatting moved the fingerprints of {moved}'
            else:
                assert after[entry] != before[entry], (
                    f'{name}: an edit of {entry} was not seen:\n{formatted.decode()}'
                )
