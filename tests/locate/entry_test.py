from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from execlease_hook.core.errors import CannotRun
from execlease_hook.locate.entry import find_functions, locate
from execlease_hook.locate.languages import SUFFIXES
from execlease_hook.locate.source import language_for, parse, require_language
from execlease_hook.manifest.model import CoveredEntry, Region

FIXTURES = Path(__file__).parents[1] / 'fixtures' / 'locate'


def fixture(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def function_entry(path: str, qualname: str) -> CoveredEntry:
    return CoveredEntry(id='lease-entry', path=path, action='Renew', function=qualname)


def region_entry(path: str, start: str, end: str, within: str | None = None) -> CoveredEntry:
    return CoveredEntry(
        id='lease-region', path=path, action='Renew', region=Region(start, end), within=within
    )


@pytest.mark.parametrize(
    ('path', 'language'),
    (
        ('a.py', 'python'),
        ('src/a.ts', 'typescript'),
        ('a.mts', 'typescript'),
        ('a.cts', 'typescript'),
        ('a.d.ts', 'typescript'),
        ('a.tsx', 'tsx'),
        ('a.js', 'javascript'),
        ('a.mjs', 'javascript'),
        ('a.cjs', 'javascript'),
        ('a.jsx', 'javascript'),
        ('a.go', 'go'),
        ('A.java', 'java'),
        ('a.rs', 'rust'),
        ('a.rb', None),
        ('Makefile', None),
        ('a.py.orig', None),
    ),
)
def test_language_for(path, language):
    assert language_for(path) == language


LOCATED = (
    # Python
    ('sample.py', 'plain', 4, 5, 'def plain(x):'),
    ('sample.py', 'fetch', 8, 9, 'async def fetch(url):'),
    ('sample.py', 'Lease.renew', 15, 18, 'def renew(self, now):'),
    ('sample.py', 'Lease.build', 20, 22, '@staticmethod'),
    ('sample.py', 'Lease.default', 24, 27, '@classmethod\n    @functools.cache'),
    ('sample.py', 'Lease.Token.check', 38, 41, 'def check(self):'),
    ('sample.py', 'Lease.Token.check.inner', 39, 40, 'def inner():'),
    ('sample.py', 'outer.helper', 45, 46, 'def helper():'),
    # TypeScript
    ('sample.ts', 'acquire', 3, 5, 'function acquire('),
    ('sample.ts', 'release', 9, 11, 'function release(id: any)'),
    ('sample.ts', 'renew', 13, 18, 'const renew = async'),
    ('sample.ts', 'renew.stamp', 14, 16, 'function stamp()'),
    ('sample.ts', 'legacy', 20, 22, 'let legacy = function'),
    ('sample.ts', 'Lease.take', 25, 28, '@logged\n  take('),
    ('sample.ts', 'Lease.holder', 30, 32, 'get holder()'),
    ('sample.ts', 'Lease.create', 34, 36, 'static create()'),
    ('sample.ts', 'Lease.#expire', 38, 40, '#expire()'),
    ('sample.ts', 'Lease.onTimeout', 42, 44, 'onTimeout = () =>'),
    ('sample.ts', 'handlers.start', 48, 50, 'start()'),
    ('sample.ts', 'handlers.stop', 51, 51, "stop: () => 'stop'"),
    ('sample.ts', 'handlers.nested.deep', 53, 55, 'deep: function'),
    ('sample.ts', 'ids', 59, 61, 'function* ids()'),
    # TSX
    ('sample.tsx', 'Badge', 3, 5, 'function Badge('),
    ('sample.tsx', 'Panel', 7, 11, 'const Panel = '),
    ('sample.tsx', 'Board.render', 14, 16, 'render()'),
    # JavaScript
    ('sample.js', 'sum', 3, 5, 'function sum('),
    ('sample.js', 'twice', 7, 7, 'const twice = (x) => x * 2;'),
    ('sample.js', 'store.save', 10, 12, 'save(item)'),
    ('sample.js', 'Queue.push', 17, 19, 'push(item)'),
    ('sample.js', 'Queue.of', 20, 20, 'static of = '),
    # Go
    ('sample.go', 'Acquire', 7, 9, 'func Acquire('),
    ('sample.go', 'Lease.Renew', 11, 13, 'func (l *Lease) Renew('),
    ('sample.go', 'Lease.Expired', 15, 17, 'func (l Lease) Expired('),
    ('sample.go', 'Stack.Push', 19, 21, 'func (s *Stack[T]) Push('),
    # Java
    ('Sample.java', 'Sample.toString', 8, 11, '@Override\n    public String toString()'),
    ('Sample.java', 'Sample.Sample', 4, 6, 'public Sample()'),
    ('Sample.java', 'Sample.Token.check', 22, 24, 'boolean check()'),
    ('Sample.java', 'Sample.Clock.later', 30, 32, 'default long later()'),
    # Rust
    ('sample.rs', 'acquire', 3, 5, 'pub fn acquire('),
    ('sample.rs', 'Lease.renew', 12, 15, '#[inline]\n    pub fn renew('),
    ('sample.rs', 'clock.now', 31, 36, 'pub fn now()'),
    ('sample.rs', 'clock.now.zero', 32, 34, 'fn zero()'),
)


@pytest.mark.parametrize(
    ('name', 'qualname', 'start_line', 'end_line', 'opening'),
    LOCATED,
    ids=[f'{row[0]}:{row[1]}' for row in LOCATED],
)
def test_locate_function(name, qualname, start_line, end_line, opening):
    source = fixture(name)
    located = locate(function_entry(name, qualname), source)
    assert (located.start_line, located.end_line) == (start_line, end_line)
    assert located.entry_id == 'lease-entry'
    assert located.path == name
    assert located.text.startswith(opening)
    assert located.text == source[located.start_byte : located.end_byte].decode()
    lines = source.decode().splitlines()
    assert opening.splitlines()[0] in lines[start_line - 1]
    assert lines[end_line - 1].strip().startswith(located.text.splitlines()[-1].strip())


NOT_LOCATED = (
    ('sample.py', 'renew', "'renew' not found", 'Lease.renew (line 15)'),
    ('sample.py', 'Lease.Token.inner', 'not found', 'Lease.Token.check.inner'),
    ('sample.ts', 'Lease.release', 'not found', 'did you mean'),
    ('sample.ts', 'Lease.owner', 'not found', ''),  # a field that holds no function
    ('sample.ts', 'handlers', 'not found', ''),  # an object, not a function
    ('sample.js', 'Queue.#items', 'not found', ''),
    ('sample.go', 'Renew', 'not found', 'Lease.Renew'),
    ('Sample.java', 'Sample.Clock.now', 'not found', ''),  # no body
    ('sample.rs', 'renew', 'not found', 'Lease.renew'),
    ('sample.tsx', 'Board.paint', 'not found', ''),
)


@pytest.mark.parametrize(
    ('name', 'qualname', 'problem', 'hint'),
    NOT_LOCATED,
    ids=[f'{r[0]}:{r[1]}' for r in NOT_LOCATED],
)
def test_function_not_found(name, qualname, problem, hint):
    with pytest.raises(CannotRun) as excinfo:
        locate(function_entry(name, qualname), fixture(name))
    message = str(excinfo.value)
    assert "coverage entry 'lease-entry'" in message
    assert name in message
    assert problem in message
    assert hint in message
    assert 'fix `function` in the manifest' in message


AMBIGUOUS = (
    ('sample.py', 'Lease.holder', 'is defined more than once (lines 29-31, 33-35)'),
    ('sample.py', 'typed', 'is defined more than once (lines 51-52, 54-55)'),
    ('Sample.java', 'Sample.renew', 'is overloaded (lines 13-15, 17-19)'),
    ('sample.rs', 'Lease.fmt', 'is defined more than once (lines 19-21, 25-27)'),
)


@pytest.mark.parametrize(
    ('name', 'qualname', 'problem'), AMBIGUOUS, ids=[f'{r[0]}:{r[1]}' for r in AMBIGUOUS]
)
def test_function_ambiguous(name, qualname, problem):
    with pytest.raises(CannotRun) as excinfo:
        locate(function_entry(name, qualname), fixture(name))
    message = str(excinfo.value)
    assert f"coverage entry 'lease-entry' ({name}): `function` {qualname!r} {problem}" in message
    assert find_functions(name, fixture(name), qualname)[0].start_line == int(
        problem.split('lines ')[1].split('-')[0]
    )
    assert len(find_functions(name, fixture(name), qualname)) == 2


def test_typescript_overload_signatures_are_not_duplicates():
    (located,) = find_functions('sample.ts', fixture('sample.ts'), 'release')
    assert located.start_line == 9
    assert 'db.unlock' in located.text


def test_find_functions_finds_a_moved_function():
    source = b'x = 1\n\n\nclass Other:\n    pass\n\n\ndef plain(x):\n    return x + 1\n'
    (located,) = find_functions('elsewhere/moved.py', source, 'plain')
    assert (located.path, located.start_line, located.end_line) == ('elsewhere/moved.py', 8, 9)


@pytest.mark.parametrize(
    ('path', 'source'),
    (
        ('notes.md', b'def plain(x):\n    pass\n'),
        ('a.py', b'\xff\xfe'),
        ('a.py', b'def plain():\0'),
    ),
    ids=('unsupported', 'non-utf8', 'binary'),
)
def test_find_functions_quietly_finds_nothing(path, source):
    assert find_functions(path, source, 'plain') == []


REGIONS = (
    # (name, from, to, within, start line, end line, text)
    (
        'sample.py',
        "raise ValueError('expired')",
        'now + 30',
        None,
        17,
        18,
        "raise ValueError('expired')\n        self.until = now + 30",
    ),
    ('sample.ts', 'db.lock(id)', 'db.lock(id);', None, 4, 4, 'db.lock(id);'),
    ('sample.ts', 'return db.touch', 'stamp());', 'renew', 17, 17, 'return db.touch(id, stamp());'),
    (
        'sample.py',
        'return True',
        'return inner()',
        'Lease.Token.check',
        40,
        41,
        'return True\n            return inner()',
    ),
    ('sample.go', 'l.until = now', '+ 30', None, 12, 12, 'l.until = now + 30'),
    ('sample.rs', 'write!(f, "Lease")', 'write!(f, "Lease")', None, 26, 26, 'write!(f, "Lease")'),
)


@pytest.mark.parametrize(
    ('name', 'start', 'end', 'within', 'start_line', 'end_line', 'text'),
    REGIONS,
    ids=[f'{r[0]}:{r[1]}' for r in REGIONS],
)
def test_locate_region(name, start, end, within, start_line, end_line, text):
    located = locate(region_entry(name, start, end, within), fixture(name))
    assert (located.start_line, located.end_line, located.text) == (start_line, end_line, text)
    assert located.entry_id == 'lease-region'


def test_within_narrows_a_duplicate_anchor():
    source = fixture('sample.py')
    with pytest.raises(
        CannotRun, match="`region.from` 'return' occurs 9 times in sample.py, on lines 5, 9, 22,"
    ):
        locate(region_entry('sample.py', 'return', 'return', None), source)
    located = locate(region_entry('sample.py', 'return', 'return', 'Lease.build'), source)
    assert (located.start_line, located.text) == (22, 'return')


REGION_ERRORS = (
    (
        'sample.py',
        'self.until = later',
        'now + 30',
        None,
        "`region.from` 'self.until = later' not found in sample.py",
    ),
    (
        'sample.py',
        'def renew',
        'no such end',
        None,
        "`region.to` 'no such end' not found in sample.py",
    ),
    (
        'sample.py',
        'return',
        'now + 30',
        None,
        "`region.from` 'return' occurs 9 times in sample.py, on lines 5, 9, ",
    ),
    (
        'sample.py',
        'def renew',
        'return',
        None,
        'make the anchor longer or narrow the search with `within`',
    ),
    (
        'sample.py',
        'self.until = now',
        'if self.expired',
        None,
        "`region.to` 'if self.expired' (line 16) comes before `region.from` 'self.until = now' (line 18)",
    ),
    (
        'sample.ts',
        'db.lock(id)',
        'db.unlock(id)',
        'acquire',
        "`region.to` 'db.unlock(id)' not found in sample.ts within 'acquire' (lines 3-5)",
    ),
    (
        'sample.ts',
        'this',
        'owner',
        'Lease.take',
        "`region.to` 'owner' occurs 3 times in sample.ts within 'Lease.take' (lines 25-28), on lines 26, 27; "
        'it must occur exactly once: make the anchor longer',
    ),
    ('sample.py', 'return', 'return', 'Lease.missing', "`within` 'Lease.missing' not found"),
    (
        'sample.py',
        'return',
        'return',
        'typed',
        "`within` 'typed' is defined more than once (lines 51-52, 54-55)",
    ),
    ('sample.go', 'l.until = now', '', None, '`region.to` is empty'),
)


@pytest.mark.parametrize(
    ('name', 'start', 'end', 'within', 'problem'),
    REGION_ERRORS,
    ids=[f'{r[0]}:{r[4][:30]}' for r in REGION_ERRORS],
)
def test_region_errors(name, start, end, within, problem):
    with pytest.raises(CannotRun) as excinfo:
        locate(region_entry(name, start, end, within), fixture(name))
    assert "coverage entry 'lease-region'" in str(excinfo.value)
    assert problem in str(excinfo.value)


@pytest.mark.parametrize(
    ('path', 'source', 'problem'),
    (
        (
            'src/lease.py',
            b'def renew():\n    return "\xe9t\xe9"\n',
            'src/lease.py is not valid UTF-8 (first bad byte on line 2)',
        ),
        ('src/lease.ts', b'function renew() {}\n\0\0\0', 'src/lease.ts looks binary'),
        ('src/lease.rb', b'def renew; end\n', 'src/lease.rb has no supported suffix (supported: .'),
    ),
    ids=('non-utf8', 'binary', 'unsupported-suffix'),
)
@pytest.mark.parametrize('kind', ('function', 'region'))
def test_unreadable_sources(path, source, problem, kind):
    entry = (
        function_entry(path, 'renew') if kind == 'function' else region_entry(path, 'def', 'renew')
    )
    with pytest.raises(CannotRun) as excinfo:
        locate(entry, source)
    assert problem in str(excinfo.value)
    assert "coverage entry 'lease-" in str(excinfo.value)


def test_supported_suffixes_are_listed_in_the_unsupported_message():
    with pytest.raises(CannotRun) as excinfo:
        locate(function_entry('x.rb', 'f'), b'def f; end')
    for suffix in SUFFIXES:
        assert suffix in str(excinfo.value)


def test_a_source_is_parsed_once_per_process():
    source = fixture('sample.go')
    assert parse('go', source) is parse('go', bytes(source))


def test_grammars_load_lazily():
    # The guard imports locate before it knows what is staged; tree-sitter and every grammar
    # must wait for a file of their language.
    code = '\n'.join(
        (
            'import sys',
            'from execlease_hook.locate.entry import locate',
            'from execlease_hook.fingerprint.scheme import fingerprint',
            'from execlease_hook.manifest.model import CoveredEntry',
            "loaded = lambda: sorted({m.split('.')[0] for m in sys.modules if m.startswith('tree_sitter')})",
            'print(loaded())',
            "e = CoveredEntry(id='e', path='a.go', action='A', function='F')",
            "print(fingerprint(locate(e, b'package a\\nfunc F() {}\\n'))[:4])",
            'print(loaded())',
        )
    )
    out = subprocess.run(
        (sys.executable, '-c', code), capture_output=True, text=True, check=True
    ).stdout
    assert out.splitlines() == ['[]', 'ts2:', "['tree_sitter', 'tree_sitter_go']"]


INLINE = (
    (
        'a.js',
        "const handlers = {\n  'start': function () {\n    return 1;\n  },\n};\n",
        'handlers.start',
        2,
        4,
    ),
    ('a.js', "const handlers = {\n  'stop'() {\n    return 1;\n  },\n};\n", 'handlers.stop', 2, 4),
    ('a.ts', "const o = {\n  'in': {\n    deep: () => 1,\n  },\n};\n", 'o.in.deep', 3, 3),
    (
        'a.py',
        'class Lease:\n    @property\n    def owner(self):\n        return self._owner\n',
        'Lease.owner',
        2,
        4,
    ),
    (
        'a.ts',
        'class Lease {\n  set owner(v: string) {\n    this._o = v;\n  }\n}\n',
        'Lease.owner',
        2,
        4,
    ),
    (
        'a.ts',
        'export const lease = {\n  renew: async (id: string) => {\n    return id;\n  },\n};\n',
        'lease.renew',
        2,
        4,
    ),
    ('a.js', 'var claim = function () {\n  return 1;\n};\n', 'claim', 1, 3),
    ('a.mts', 'export default function take() {\n  return 1;\n}\n', 'take', 1, 3),
    (
        'a.rs',
        'trait Clock { fn now(&self) -> u64; }\nimpl Clock for Sys {\n    fn now(&self) -> u64 {\n        0\n    }\n}\n',
        'Sys.now',
        3,
        5,
    ),
    ('a.go', 'package a\n\nfunc (s Store) Claim() bool {\n\treturn true\n}\n', 'Store.Claim', 3, 5),
)


@pytest.mark.parametrize(
    ('path', 'source', 'qualname', 'start_line', 'end_line'),
    INLINE,
    ids=[f'{r[0]}:{r[2]}' for r in INLINE],
)
def test_locate_more_shapes(path, source, qualname, start_line, end_line):
    located = locate(function_entry(path, qualname), source.encode())
    assert (located.start_line, located.end_line) == (start_line, end_line)


WHOLE_TOKENS = (
    # (id, path, source, from, to, the region's text): an anchor inside a token takes the whole token
    (
        'to-inside-identifier',
        'a.py',
        'def f(rows):\n    x = 1\n    return rows\n',
        'x = 1',
        'return row',
        'x = 1\n    return rows',
    ),
    (
        'from-inside-identifier',
        'a.py',
        'def f():\n    return compute(alpha)\n',
        'pute(',
        'alpha)',
        'compute(alpha)',
    ),
    (
        'to-inside-string',
        'a.py',
        "def f(db):\n    db.run('UPDATE t SET a = 1')\n",
        'db.run',
        "'UPDATE",
        "db.run('UPDATE t SET a = 1'",
    ),
    (
        'from-inside-comment',
        'a.py',
        'def f():\n    # region: begin\n    g()\n',
        'region: begin',
        'g()',
        '# region: begin\n    g()',
    ),
    (
        'on-token-boundaries',
        'a.ts',
        'function f() {\n  g();\n  return 100;\n}\n',
        'g();',
        'return 100',
        'g();\n  return 100',
    ),
)


@pytest.mark.parametrize(
    ('path', 'source', 'start', 'end', 'text'),
    [r[1:] for r in WHOLE_TOKENS],
    ids=[r[0] for r in WHOLE_TOKENS],
)
def test_region_anchors_are_extended_to_whole_tokens(path, source, start, end, text):
    located = locate(region_entry(path, start, end), source.encode())
    assert located.text == text


def _shape(tree) -> list[tuple[str, int, int, bool, bool]]:
    out, cursor = [], tree.walk()
    while True:
        node = cursor.node
        out.append((node.type, node.start_byte, node.end_byte, node.is_missing, node.is_error))
        if cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return out


EDITS = {
    'token': lambda s: s.replace(b'return', b'return -', 1),
    'insert-middle': lambda s: s[: len(s) // 2] + b'\n' + s[len(s) // 2 :],
    'delete-third': lambda s: s[: len(s) // 3] + s[len(s) // 3 + 10 :],
    'unbalanced': lambda s: s[: len(s) // 2] + b'{(' + s[len(s) // 2 :],
    'start': lambda s: b'\n\n' + s,
    'end': lambda s: s + b'\n\n',
    'same': lambda s: s,
    'empty': lambda s: b'',
}


@pytest.mark.parametrize('edit', EDITS)
@pytest.mark.parametrize('name', sorted(p.name for p in FIXTURES.iterdir()))
def test_a_reparse_from_another_version_is_the_fresh_parse(name, edit):
    # The guard's diff reparses the synced content from the staged tree (incremental parse).
    from execlease_hook.locate import source

    language = require_language(name, 'the fixture')
    base = fixture(name)
    edited = EDITS[edit](base)
    fresh = source._parser(language).parse(edited)  # not through the cache
    parse(language, base)
    again = source.parse_from(language, edited, base)
    assert str(again.root_node) == str(fresh.root_node)
    assert _shape(again) == _shape(fresh)
    assert source.parse_from(language, edited, base) is again
    assert _shape(parse(language, base)) == _shape(
        source._parser(language).parse(base)
    )  # base untouched


def test_grammar_wheels_load_without_their_package_code():
    # Their __init__.py imports importlib.resources for query files
    # execlease never reads; only the compiled `_binding` is loaded.
    code = '\n'.join(
        (
            'import sys',
            'from execlease_hook.locate.source import parse',
            "tree = parse('python', b'def f():\\n    return 1\\n')",
            "print(tree.root_node.type, *(m in sys.modules for m in ('tree_sitter', 'tree_sitter_python', "
            "'tree_sitter._binding', 'tree_sitter_python._binding', 'importlib.resources')))",
        )
    )
    out = subprocess.run(
        (sys.executable, '-c', code), capture_output=True, text=True, check=True
    ).stdout
    assert out.split() == ['module', 'False', 'False', 'True', 'True', 'False']


def test_a_wheel_laid_out_otherwise_is_imported(tmp_path, monkeypatch):
    from execlease_hook.locate import source

    (tmp_path / 'grammar_without_binding').mkdir()
    (tmp_path / 'grammar_without_binding' / '__init__.py').write_text(
        'def language():\n    return 7\n'
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    module = source.binding('grammar_without_binding')
    assert module.__name__ == 'grammar_without_binding' and module.language() == 7
