"""Locating C#, Kotlin, Scala and Swift definitions: the shapes each language's users write
(tests/fixtures/locate/), then real files from public projects (tests/fixtures/real/)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from execlease_hook.core.errors import CannotRun
from execlease_hook.locate.entry import find_functions, locate
from execlease_hook.locate.source import language_for, parse
from execlease_hook.manifest.model import CoveredEntry, Region

FIXTURES = Path(__file__).parents[1] / 'fixtures'


def source_of(name: str) -> bytes:
    for folder in ('locate', 'real'):
        if (FIXTURES / folder / name).exists():
            return (FIXTURES / folder / name).read_bytes()
    raise AssertionError(name)


def entry(path: str, qualname: str) -> CoveredEntry:
    return CoveredEntry(id='lease-entry', path=path, action='Renew', function=qualname)


@pytest.mark.parametrize(
    ('path', 'language'),
    (
        ('Lease.cs', 'csharp'),
        ('a.kt', 'kotlin'),
        ('build.gradle.kts', 'kotlin'),
        ('A.scala', 'scala'),
        ('script.sc', 'scala'),
        ('A.swift', 'swift'),
        ('A.csx', None),
        ('a.kt.orig', None),
    ),
)
def test_language_for(path, language):
    assert language_for(path) == language


LOCATED = (
    # C#: namespaces are not part of the name, as Java's packages are not
    ('Sample.cs', 'Lease.Lease', 5, 5, 'public Lease(int ttl)'),
    ('Sample.cs', 'Lease.Extend', 7, 8, '[Obsolete("use Renew")]\n        public void Extend()'),
    ('Sample.cs', 'Lease.Renew', 10, 14, 'public bool Renew(int now)'),
    ('Sample.cs', 'Lease.Renew.Clamp', 12, 12, 'int Clamp(int x) =>'),
    ('Sample.cs', 'Lease.Ttl', 16, 20, 'public int Ttl'),
    ('Sample.cs', 'Lease.Ttl.get', 18, 18, 'get { return _ttl; }'),
    ('Sample.cs', 'Lease.Ttl.set', 19, 19, 'set { _ttl = value; }'),
    ('Sample.cs', 'Lease.Token.Check', 26, 26, 'public bool Check() => true;'),
    ('Sample.cs', 'IClock.Later', 33, 33, 'long Later()'),
    # Kotlin
    ('sample.kt', 'acquire', 3, 5, 'fun acquire('),
    ('sample.kt', 'String.leaseKey', 7, 7, 'fun String.leaseKey()'),
    ('sample.kt', 'Lease.constructor', 10, 10, 'constructor(text: String)'),
    ('sample.kt', 'Lease.renew', 12, 15, 'fun renew('),
    ('sample.kt', 'Lease.renew.clamp', 13, 13, 'fun clamp('),
    ('sample.kt', 'Lease.holder.get', 18, 18, 'get() = field.trim()'),
    ('sample.kt', 'Lease.holder.set', 19, 21, 'set(value) {'),
    ('sample.kt', 'Lease.Companion.create', 24, 24, 'fun create()'),
    ('sample.kt', 'Lease.Defaults.ttl', 28, 29, '@JvmStatic\n        fun ttl()'),
    ('sample.kt', 'Clock.later', 38, 40, 'fun later()'),
    # Scala
    # the Scala grammar ends a body written on the lines after `=` after the blank line that follows
    ('sample.scala', 'acquire', 3, 5, 'def acquire('),
    ('sample.scala', 'Lease.create', 7, 10, 'def create('),
    ('sample.scala', 'Lease.create.clamp', 8, 8, 'def clamp('),
    ('sample.scala', 'Lease.this', 14, 14, 'def this(text: String)'),
    ('sample.scala', 'Lease.renew', 16, 17, '@inline\n  def renew('),
    ('sample.scala', 'Clock.later', 25, 27, 'def later()'),
    ('sample.scala', 'String.leaseKey', 31, 31, 'def leaseKey'),
    # Swift
    ('sample.swift', 'acquire', 3, 5, 'func acquire('),
    ('sample.swift', 'Lease.init', 10, 12, 'init(ttl: Int)'),
    ('sample.swift', 'Lease.deinit', 14, 16, 'deinit {'),
    ('sample.swift', 'Lease.renew', 18, 22, '@discardableResult\n    func renew('),
    ('sample.swift', 'Lease.renew.clamp', 20, 20, 'func clamp('),
    ('sample.swift', 'Lease.remaining', 24, 27, 'var remaining: Int {'),
    ('sample.swift', 'Lease.remaining.get', 25, 25, 'get { ttl }'),
    ('sample.swift', 'Lease.remaining.set', 26, 26, 'set { print(newValue) }'),
    ('sample.swift', 'Lease.create', 34, 36, 'static func create()'),
    ('sample.swift', 'Clock.later', 44, 44, 'func later()'),
    # Real code: Polly (C#), okio (Kotlin), os-lib (Scala), SwiftNIO (Swift)
    (
        'CircuitStateController.cs',
        'CircuitStateController.CircuitStateController',
        28,
        47,
        'public CircuitStateController(',
    ),
    ('CircuitStateController.cs', 'CircuitStateController.CircuitState.get', 51, 59, 'get'),
    (
        'CircuitStateController.cs',
        'CircuitStateController.OnActionPreExecuteAsync',
        124,
        177,
        'public ValueTask<Outcome<T>?> OnActionPreExecuteAsync(',
    ),
    (
        'CircuitStateController.cs',
        'CircuitStateController.OpenCircuitFor_NeedsLock',
        335,
        360,
        'private Task OpenCircuitFor_NeedsLock(',
    ),
    ('Throttler.kt', 'Throttler.bytesPerSecond', 58, 74, '@JvmOverloads\n  fun bytesPerSecond('),
    (
        'Throttler.kt',
        'Throttler.byteCountOrWaitNanos',
        98,
        127,
        'internal fun byteCountOrWaitNanos(',
    ),
    ('Throttler.kt', 'Throttler.Long.nanosToBytes', 129, 129, 'private fun Long.nanosToBytes()'),
    ('Throttler.kt', 'Throttler.sink', 149, 166, 'fun sink('),
    ('TempOps.scala', 'temp.apply', 23, 45, 'def apply('),
    ('TempOps.scala', 'temp.dir', 55, 74, 'def dir('),
    (
        'Source.scala',
        'SeekableSource.ChannelLengthSource.contentLength',
        123,
        123,
        'override def contentLength',
    ),
    (
        'NIOScheduledCallback.swift',
        'NIOScheduledCallback.cancel',
        76,
        79,
        '@inlinable\n    public func cancel()',
    ),
    (
        'NIOScheduledCallback.swift',
        'NIOScheduledCallback.customCallbackID',
        84,
        88,
        '@inlinable\n    public var customCallbackID',
    ),
    (
        'NIOScheduledCallback.swift',
        'EventLoop._scheduleCallback',
        92,
        108,
        '@preconcurrency\n    /// This method is not part of the public API',
    ),
    (
        'NIOScheduledCallback.swift',
        'NIOScheduledCallbackHandler.didCancelScheduledCallback',
        35,
        35,
        'public func didCancelScheduledCallback(',
    ),
)


@pytest.mark.parametrize(
    ('name', 'qualname', 'start_line', 'end_line', 'opening'),
    LOCATED,
    ids=[f'{r[0]}:{r[1]}' for r in LOCATED],
)
def test_locate_function(name, qualname, start_line, end_line, opening):
    source = source_of(name)
    located = locate(entry(name, qualname), source)
    assert (located.start_line, located.end_line) == (start_line, end_line)
    assert located.text.startswith(opening)
    assert located.text == source[located.start_byte : located.end_byte].decode()
    assert len(find_functions(name, source, qualname)) == 1


@pytest.mark.parametrize(
    'name',
    (
        'CircuitStateController.cs',
        'Throttler.kt',
        'TempOps.scala',
        'Source.scala',
        'NIOScheduledCallback.swift',
        'Sample.cs',
        'sample.kt',
        'sample.scala',
        'sample.swift',
    ),
)
def test_the_grammar_reads_the_whole_file(name):
    assert not parse(language_for(name) or '', source_of(name)).root_node.has_error


NOT_LOCATED = (
    ('Sample.cs', 'Lease.Drop', ''),  # abstract: no body
    ('Sample.cs', 'IClock.Now', ''),  # an interface member without a body
    ('Sample.cs', 'Leases.Core.Lease.Renew', 'Lease.Renew'),
    ('sample.kt', 'Clock.now', ''),
    ('sample.kt', 'Lease.create', 'Lease.Companion.create'),
    ('sample.kt', 'leaseKey', 'String.leaseKey'),
    ('sample.scala', 'Clock.now', ''),
    ('sample.swift', 'Clock.now', ''),  # a protocol requirement
    ('sample.swift', 'create', 'Lease.create'),
)


@pytest.mark.parametrize(
    ('name', 'qualname', 'hint'), NOT_LOCATED, ids=[f'{r[0]}:{r[1]}' for r in NOT_LOCATED]
)
def test_function_not_found(name, qualname, hint):
    with pytest.raises(CannotRun) as excinfo:
        locate(entry(name, qualname), source_of(name))
    message = str(excinfo.value)
    assert f"coverage entry 'lease-entry' ({name}): `function` {qualname!r} not found" in message
    assert hint in message
    assert 'fix `function` in the manifest' in message


AMBIGUOUS = (
    ('Sample.cs', 'Lease.Take', 'lines 29, 30'),
    ('sample.kt', 'Lease.take', 'lines 32, 33'),
    ('sample.scala', 'Lease.take', 'lines 19, 20'),
    ('sample.swift', 'Lease.take', 'lines 29, 30'),
    (
        'CircuitStateController.cs',
        'CircuitStateController.EnsureNotDisposed',
        'lines 269-270, 272-278',
    ),
    ('Source.scala', 'Source.writeBytesTo', 'lines 28-38, 39-59'),
    ('NIOScheduledCallback.swift', 'NIOScheduledCallback.init', 'lines 59-62, 69-73'),
)


@pytest.mark.parametrize(
    ('name', 'qualname', 'lines'), AMBIGUOUS, ids=[f'{r[0]}:{r[1]}' for r in AMBIGUOUS]
)
def test_an_overload_is_ambiguous_and_a_region_is_the_remedy(name, qualname, lines):
    with pytest.raises(CannotRun) as excinfo:
        locate(entry(name, qualname), source_of(name))
    message = str(excinfo.value)
    assert f'`function` {qualname!r} is overloaded ({lines})' in message
    assert 'cover it with a `region`' in message


REGIONS = (
    ('Sample.cs', 'int Clamp', '? 0 : x;', 'Lease.Renew', 12, 12),
    ('sample.kt', 'return clamp', '> 0', 'Lease.renew', 14, 14),
    ('sample.scala', 'new Lease', '(ttl))', None, 9, 9),
    ('sample.swift', 'self.ttl', '= ttl', 'Lease.init', 11, 11),
    (
        'Throttler.kt',
        'while (true) {',
        'condition.awaitNanos(-byteCountOrWaitNanos)',
        'Throttler.take',
        84,
        88,
    ),
)


@pytest.mark.parametrize(
    ('name', 'start', 'end', 'within', 'first', 'last'), REGIONS, ids=[r[0] for r in REGIONS]
)
def test_locate_region(name, start, end, within, first, last):
    covered = CoveredEntry(id='r', path=name, action='A', region=Region(start, end), within=within)
    located = locate(covered, source_of(name))
    assert (located.start_line, located.end_line) == (first, last)
    assert located.text.startswith(start)


def test_a_region_anchor_inside_a_string_takes_the_whole_string():
    source = b'class K {\n    void M() {\n        var q = $"select {a} from lease";\n    }\n}\n'
    covered = CoveredEntry(id='r', path='K.cs', action='A', region=Region('select', 'lease'))
    assert locate(covered, source).text == '$"select {a} from lease"'


@pytest.mark.parametrize(
    ('name', 'module'),
    (
        ('Sample.cs', 'tree_sitter_c_sharp'),
        ('sample.kt', 'tree_sitter_kotlin'),
        ('sample.scala', 'tree_sitter_scala'),
        ('sample.swift', 'tree_sitter_swift'),
    ),
)
def test_a_grammar_loads_only_when_a_file_of_its_language_is_located(name, module):
    """The guard pays for the grammars of the staged files only."""
    grammars = (
        'tree_sitter_c_sharp',
        'tree_sitter_kotlin',
        'tree_sitter_scala',
        'tree_sitter_swift',
    )
    script = (
        'import sys\n'
        'from pathlib import Path\n'
        'from execlease_hook.locate.entry import find_functions\n'
        f'find_functions({name!r}, Path({str(FIXTURES / "locate" / name)!r}).read_bytes(), "x")\n'
        f'loaded = {{k.split(".")[0] for k in sys.modules}}\n'  # a wheel's `_binding` counts
        f'print(",".join(m for m in {grammars!r} if m in loaded))\n'
    )
    proc = subprocess.run(
        [sys.executable, '-c', script],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).parents[2],
    )
    assert proc.stdout.strip() == module
