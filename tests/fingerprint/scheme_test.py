from __future__ import annotations

import re

import pytest

from execlease_hook.fingerprint.scheme import SCHEME, SCHEMES, fingerprint, matches
from execlease_hook.locate.entry import find_functions, locate
from execlease_hook.manifest.model import CoveredEntry, Region


def function_fingerprint(path: str, source: str, qualname: str, scheme: str = SCHEME) -> str:
    (located,) = find_functions(path, source.encode(), qualname)
    return fingerprint(located, scheme)


def region_fingerprint(
    path: str,
    source: str,
    start: str,
    end: str,
    within: str | None = None,
    scheme: str = SCHEME,
) -> str:
    entry = CoveredEntry(id='r', path=path, action='A', region=Region(start, end), within=within)
    return fingerprint(locate(entry, source.encode()), scheme)


PY = '''\
import db


def renew(lease, now):
    """Extend the lease."""
    if lease.expired(now):
        db.log('expired')
        raise ValueError('expired')
    lease.until = now + 30  # thirty seconds
    db.execute("UPDATE lease SET until = ? WHERE id = ?", (lease.until, lease.id))
    return lease
'''

TS = """\
import { db } from './db';

export async function renew(lease: Lease, now: number): Promise<Lease> {
  if (lease.expired(now)) {
    db.log('expired');
    throw new Error(`expired ${lease.id}`);
  }
  lease.until = now + 30; // thirty seconds
  await db.execute("UPDATE lease SET until = ? WHERE id = ?", [lease.until, lease.id]);
  return lease;
}
"""

GO = """\
package lease

func (l *Lease) Renew(now int) error {
	if l.Expired(now) {
		return errors.New("expired")
	}
	l.until = now + 30 // thirty seconds
	_, err := db.Exec("UPDATE lease SET until = ? WHERE id = ?", l.until, l.id)
	return err
}
"""

JAVA = """\
class Lease {
    void renew(int now) {
        if (expired(now)) {
            throw new IllegalStateException("expired");
        }
        until = now + 30; // thirty seconds
        db.execute("UPDATE lease SET until = ? WHERE id = ?", until, id);
    }
}
"""

RUST = """\
impl Lease {
    pub fn renew(&mut self, now: u64) -> Result<(), Error> {
        if self.expired(now) {
            return Err(Error::Expired);
        }
        self.until = now + 30; // thirty seconds
        db.execute("UPDATE lease SET until = ? WHERE id = ?", &[self.until, self.id])
    }
}
"""

TSX = """\
export const Badge = ({ lease }: Props) => (
  <span className="badge">
    Lease {lease.id} until
    {lease.until}
  </span>
);
"""


def reindent(text: str, old: str, new: str) -> str:
    return '\n'.join(
        new * ((len(line) - len(line.lstrip(old[0]))) // len(old)) + line.lstrip(old[0])
        for line in text.split('\n')
    )


def indent_all(text: str, prefix: str) -> str:
    return '\n'.join(prefix + line if line else line for line in text.split('\n'))


# (id, path, qualname, original, edited)
SAME = (
    ('py-reindent-2-spaces', 'a.py', 'renew', PY, reindent(PY, '    ', '  ')),
    ('py-blank-lines', 'a.py', 'renew', PY, PY.replace('    lease.until', '\n\n    lease.until')),
    ('py-comment-edit', 'a.py', 'renew', PY, PY.replace('# thirty seconds', '# half a minute')),
    ('py-comment-removed', 'a.py', 'renew', PY, PY.replace('  # thirty seconds', '')),
    (
        'py-comment-line-added',
        'a.py',
        'renew',
        PY,
        PY.replace('    return', '    # done\n    return'),
    ),
    (
        'py-spaces-in-expression',
        'a.py',
        'renew',
        PY,
        PY.replace('now + 30', 'now+30').replace(', (', ',('),
    ),
    ('py-line-continuation', 'a.py', 'renew', PY, PY.replace('now + 30', 'now + \\\n        30')),
    (
        'py-wrap-arguments',
        'a.py',
        'renew',
        PY,
        PY.replace(', (lease.until', ',\n        (lease.until'),
    ),
    (
        'py-crlf',
        'a.py',
        'renew',
        PY.replace('the lease.', '\n    the lease.\n    '),
        PY.replace('the lease.', '\n    the lease.\n    ').replace('\n', '\r\n'),
    ),
    ('ts-reindent-4-spaces', 'a.ts', 'renew', TS, reindent(TS, '  ', '    ')),
    ('ts-blank-lines', 'a.ts', 'renew', TS, TS.replace('  return', '\n  return')),
    (
        'ts-comment-edit',
        'a.ts',
        'renew',
        TS,
        TS.replace('// thirty seconds', '/* thirty\n  seconds */'),
    ),
    ('ts-brace-style', 'a.ts', 'renew', TS, TS.replace(') {\n    db.log', ')\n  {\n    db.log')),
    (
        'ts-crlf',
        'a.ts',
        'renew',
        TS.replace('`expired ${', '`expired\n${'),
        TS.replace('`expired ${', '`expired\n${').replace('\n', '\r\n'),
    ),
    ('ts-one-line', 'a.ts', 'renew', TS, TS.replace('\n  ', ' ').replace('// thirty seconds', '')),
    ('go-reindent', 'a.go', 'Lease.Renew', GO, GO.replace('\t', '    ')),
    ('go-comment-edit', 'a.go', 'Lease.Renew', GO, GO.replace('// thirty seconds', '// 30s')),
    ('go-blank-lines', 'a.go', 'Lease.Renew', GO, GO.replace('\t_, err', '\n\t_, err')),
    (
        'java-reindent-comment',
        'A.java',
        'Lease.renew',
        JAVA,
        reindent(JAVA, '    ', '  ').replace('// thirty seconds', '/** 30 s */'),
    ),
    (
        'rust-reindent-comment',
        'a.rs',
        'Lease.renew',
        RUST,
        reindent(RUST, '    ', '\t').replace('// thirty seconds', '/* 30 s */'),
    ),
    ('tsx-reindent-jsx-text', 'a.tsx', 'Badge', TSX, reindent(TSX, '  ', '    ')),
    (
        'tsx-rewrap-jsx-text',
        'a.tsx',
        'Badge',
        TSX,
        TSX.replace('"badge">\n    Lease', '"badge">Lease'),
    ),
)

CHANGED = (
    ('py-body-statement', 'a.py', 'renew', PY, PY.replace("        db.log('expired')\n", '')),
    (
        'py-sql-string',
        'a.py',
        'renew',
        PY,
        PY.replace('SET until = ?', 'SET until = ?, holder = NULL'),
    ),
    ('py-string-whitespace', 'a.py', 'renew', PY, PY.replace('SET until', 'SET  until')),
    (
        'py-string-beside-escape',
        'a.py',
        'renew',
        PY.replace("'expired')\n    lease", "'\\t  expired\\n')\n    lease"),
        PY.replace("'expired')\n    lease", "'\\t expired\\n')\n    lease"),
    ),
    (
        'py-whitespace-string-beside-escape',
        'a.py',
        'renew',
        PY.replace("'expired')\n    lease", "'  \\n')\n    lease"),
        PY.replace("'expired')\n    lease", "' \\n')\n    lease"),
    ),
    (
        'py-fstring-format-spec',
        'a.py',
        'renew',
        PY.replace("log('expired')", "log(f'{now:>8}')"),
        PY.replace("log('expired')", "log(f'{now: >8}')"),
    ),
    (
        'py-fstring-debug-spacing',
        'a.py',
        'renew',
        PY.replace("log('expired')", "log(f'{now=}')"),
        PY.replace("log('expired')", "log(f'{now = }')"),
    ),
    ('py-operator', 'a.py', 'renew', PY, PY.replace('now + 30', 'now - 30')),
    ('py-literal', 'a.py', 'renew', PY, PY.replace('now + 30', 'now + 31')),
    ('py-identifier', 'a.py', 'renew', PY, PY.replace('lease.until = now', 'lease.since = now')),
    (
        'py-dedent-out-of-if',
        'a.py',
        'renew',
        PY,
        PY.replace('        raise ValueError', '    raise ValueError'),
    ),
    (
        'py-indent-into-if',
        'a.py',
        'renew',
        PY,
        PY.replace('    lease.until = now', '        lease.until = now'),
    ),
    (
        'py-docstring',
        'a.py',
        'renew',
        PY,
        PY.replace('Extend the lease.', 'Extend the lease by 30 s.'),
    ),
    ('py-decorator-added', 'a.py', 'renew', PY, PY.replace('def renew', '@retry\ndef renew')),
    ('py-async', 'a.py', 'renew', PY, PY.replace('def renew', 'async def renew')),
    ('ts-body-statement', 'a.ts', 'renew', TS, TS.replace("    db.log('expired');\n", '')),
    (
        'ts-sql-string',
        'a.ts',
        'renew',
        TS,
        TS.replace('WHERE id = ?', 'WHERE id = ? AND holder = ?'),
    ),
    (
        'ts-template-string',
        'a.ts',
        'renew',
        TS,
        TS.replace('`expired ${lease.id}`', '`expired: ${lease.id}`'),
    ),
    ('ts-operator', 'a.ts', 'renew', TS, TS.replace('now + 30', 'now * 30')),
    ('ts-literal', 'a.ts', 'renew', TS, TS.replace('now + 30', 'now + 300')),
    (
        'ts-block-structure',
        'a.ts',
        'renew',
        TS,
        TS.replace("    db.log('expired');\n", '').replace(
            '    throw', "  }\n  db.log('expired');\n  {\n    throw"
        ),
    ),
    ('ts-type', 'a.ts', 'renew', TS, TS.replace('now: number', 'now: bigint')),
    ('go-string', 'a.go', 'Lease.Renew', GO, GO.replace('"expired"', '"lease expired"')),
    (
        'go-string-beside-escape',
        'a.go',
        'Lease.Renew',
        GO.replace('"expired"', '"\\t  \\n"'),
        GO.replace('"expired"', '"\\t \\n"'),
    ),
    (
        'go-raw-string',
        'a.go',
        'Lease.Renew',
        GO.replace('"expired"', '`a  b`'),
        GO.replace('"expired"', '`a b`'),
    ),
    ('go-operator', 'a.go', 'Lease.Renew', GO, GO.replace('now + 30', 'now - 30')),
    ('go-receiver', 'a.go', 'Lease.Renew', GO, GO.replace('(l *Lease)', '(l Lease)')),
    ('java-literal', 'A.java', 'Lease.renew', JAVA, JAVA.replace('now + 30', 'now + 60')),
    (
        'java-string-beside-escape',
        'A.java',
        'Lease.renew',
        JAVA.replace('"expired"', '"\\t  \\n"'),
        JAVA.replace('"expired"', '"\\t \\n"'),
    ),
    ('java-sql-string', 'A.java', 'Lease.renew', JAVA, JAVA.replace('WHERE id', 'WHERE  id')),
    (
        'rust-operator',
        'a.rs',
        'Lease.renew',
        RUST,
        RUST.replace('now + 30', 'now.saturating_add(30)'),
    ),
    ('rust-string', 'a.rs', 'Lease.renew', RUST, RUST.replace('SET until', 'SET since')),
    (
        'rust-attribute-added',
        'a.rs',
        'Lease.renew',
        RUST,
        RUST.replace('    pub fn', '    #[inline]\n    pub fn'),
    ),
    ('tsx-jsx-text', 'a.tsx', 'Badge', TSX, TSX.replace(' until\n', ' expires\n')),
    # JSX keeps the space before `until` on one line and drops it across a line break.
    (
        'tsx-jsx-text-space',
        'a.tsx',
        'Badge',
        TSX,
        TSX.replace('{lease.id} until', '{lease.id}\n    until'),
    ),
    ('tsx-jsx-attribute', 'a.tsx', 'Badge', TSX, TSX.replace('"badge"', '"badge big"')),
)


# Both schemes: ts1 (still compared for recorded ts1 hashes) and ts2 (what syncs record).
# What ts2 adds is in tests/fingerprint_ts2_*_test.py.
@pytest.mark.parametrize('scheme', SCHEMES)
@pytest.mark.parametrize(
    ('path', 'qualname', 'original', 'edited'), [r[1:] for r in SAME], ids=[r[0] for r in SAME]
)
def test_fingerprint_ignores_formatting_and_comments(path, qualname, original, edited, scheme):
    assert edited != original
    assert function_fingerprint(path, edited, qualname, scheme) == function_fingerprint(
        path, original, qualname, scheme
    )


@pytest.mark.parametrize('scheme', SCHEMES)
@pytest.mark.parametrize(
    ('path', 'qualname', 'original', 'edited'),
    [r[1:] for r in CHANGED],
    ids=[r[0] for r in CHANGED],
)
def test_fingerprint_sees_every_other_change(path, qualname, original, edited, scheme):
    assert function_fingerprint(path, edited, qualname, scheme) != function_fingerprint(
        path, original, qualname, scheme
    )


def test_ts1_sees_the_spelling_of_a_raw_string():
    # ts1 hashes spelling; ts2 hashes the value (tests/fingerprint/ts2_go_rust_java_test.py).
    one = RUST.replace('"UPDATE', 'r#"UPDATE').replace('?",', '?"#,')
    two = RUST.replace('"UPDATE', 'r##"UPDATE').replace('?",', '?"##,')
    assert function_fingerprint('a.rs', one, 'Lease.renew', 'ts1') != function_fingerprint(
        'a.rs', two, 'Lease.renew', 'ts1'
    )
    assert function_fingerprint('a.rs', one, 'Lease.renew', 'ts2') == function_fingerprint(
        'a.rs', two, 'Lease.renew', 'ts2'
    )


@pytest.mark.parametrize('scheme', SCHEMES)
def test_fingerprint_format(scheme):
    value = function_fingerprint('a.py', PY, 'renew', scheme)
    assert re.fullmatch(scheme + r':sha256:[0-9a-f]{64}', value)
    assert SCHEME == 'ts2'
    assert function_fingerprint('a.py', PY, 'renew') == function_fingerprint(
        'a.py', PY, 'renew', 'ts2'
    )


def test_unknown_scheme_is_an_error():
    (located,) = find_functions('a.py', PY.encode(), 'renew')
    with pytest.raises(ValueError, match="unknown fingerprint scheme 'ts9'"):
        fingerprint(located, 'ts9')
    assert not matches(located, 'ts9:sha256:' + '0' * 64)


MIGRATION = (
    # (id, original, edited, ts1 hash of the original still matches the edited code?)
    ('unchanged', PY, PY, True),
    ('reindented', PY, reindent(PY, '    ', '  '), True),
    ('quotes-changed', PY, PY.replace("'expired'", '"expired"'), False),  # ts1 sees the spelling
    ('logic-changed', PY, PY.replace('now + 30', 'now - 30'), False),
)


@pytest.mark.parametrize(
    ('original', 'edited', 'still'), [r[1:] for r in MIGRATION], ids=[r[0] for r in MIGRATION]
)
def test_a_recorded_ts1_hash_is_compared_as_ts1(original, edited, still):
    recorded = function_fingerprint('a.py', original, 'renew', 'ts1')
    (located,) = find_functions('a.py', edited.encode(), 'renew')
    assert matches(located, recorded) is still


@pytest.mark.parametrize('scheme', SCHEMES)
def test_fingerprint_does_not_depend_on_position_or_file(scheme):
    # The guard recognises a function that moved unchanged by its fingerprint.
    moved = (
        'from x import y\n\n\nclass Other:\n    pass\n\n\n'
        + PY.replace('import db\n', '')
        + '\n\ndef tail():\n    pass\n'
    )
    (here,) = find_functions('src/a.py', PY.encode(), 'renew')
    (there,) = find_functions('lib/b.py', moved.encode(), 'renew')
    assert here.start_line != there.start_line
    assert fingerprint(here, scheme) == fingerprint(there, scheme)


def test_ts1_same_when_the_whole_function_moves_into_a_class():
    # ts2 counts the class header as the method's context (tests/fingerprint/ts2_python_test.py).
    nested = 'class K:\n' + indent_all(PY.replace('import db\n', ''), '    ')
    assert function_fingerprint('a.py', nested, 'K.renew', 'ts1') == function_fingerprint(
        'a.py', PY, 'renew', 'ts1'
    )
    assert function_fingerprint('a.py', nested, 'K.renew', 'ts2') != function_fingerprint(
        'a.py', PY, 'renew', 'ts2'
    )


@pytest.mark.parametrize('scheme', SCHEMES)
def test_fingerprint_of_different_languages_with_the_same_tree_text_is_stable(scheme):
    js = 'function f(a) {\n  return a + 1;\n}\n'
    assert function_fingerprint('a.js', js, 'f', scheme) == function_fingerprint(
        'b.mjs', '\n\n' + js, 'f', scheme
    )


REGION_PY = dict(start='if lease.expired(now):', end='lease.until = now + 30')

REGION_SAME = (
    ('py-reindent', 'a.py', PY, reindent(PY, '    ', '  '), REGION_PY),
    (
        'py-comment',
        'a.py',
        PY,
        PY.replace("db.log('expired')", "db.log('expired')  # note"),
        REGION_PY,
    ),
    ('py-outside-edit', 'a.py', PY, PY.replace('return lease', 'return None'), REGION_PY),
    (
        'ts-reindent-comment',
        'a.ts',
        TS,
        reindent(TS, '  ', '    ').replace('// thirty', '// 30'),
        dict(start='if (lease', end='now + 30;'),
    ),
    (
        'go-blank-line',
        'a.go',
        GO,
        GO.replace('\t}\n', '\t}\n\n'),
        dict(start='if l.Expired', end='now + 30'),
    ),
)

REGION_CHANGED = (
    (
        'py-dedent-out-of-if',
        'a.py',
        PY,
        PY.replace('        raise ValueError', '    raise ValueError'),
        REGION_PY,
    ),
    ('py-string', 'a.py', PY, PY.replace("log('expired')", "log('gone')"), REGION_PY),
    (
        'py-operator',
        'a.py',
        PY,
        PY.replace('if lease.expired(now)', 'if not lease.expired(now)'),
        dict(start='lease.expired(now):', end='lease.until = now + 30'),
    ),
    (
        'ts-sql',
        'a.ts',
        TS,
        TS.replace('SET until', 'SET since'),
        dict(start='lease.until = now', end='lease.id]);'),
    ),
    (
        'go-literal',
        'a.go',
        GO,
        GO.replace('"expired"', '"Expired"'),
        dict(start='if l.Expired', end='now + 30'),
    ),
)


@pytest.mark.parametrize(
    ('path', 'original', 'edited', 'anchors'),
    [r[1:] for r in REGION_SAME],
    ids=[r[0] for r in REGION_SAME],
)
@pytest.mark.parametrize('scheme', SCHEMES)
def test_region_fingerprint_ignores_formatting_and_comments(
    path, original, edited, anchors, scheme
):
    assert edited != original
    assert region_fingerprint(path, edited, **anchors, scheme=scheme) == region_fingerprint(
        path, original, **anchors, scheme=scheme
    )


@pytest.mark.parametrize(
    ('path', 'original', 'edited', 'anchors'),
    [r[1:] for r in REGION_CHANGED],
    ids=[r[0] for r in REGION_CHANGED],
)
@pytest.mark.parametrize('scheme', SCHEMES)
def test_region_fingerprint_sees_every_other_change(path, original, edited, anchors, scheme):
    assert region_fingerprint(path, edited, **anchors, scheme=scheme) != region_fingerprint(
        path, original, **anchors, scheme=scheme
    )


def test_region_fingerprint_does_not_depend_on_the_enclosing_code():
    inside_class = 'class K:\n' + indent_all(PY, '    ')
    assert region_fingerprint('a.py', inside_class, **REGION_PY) == region_fingerprint(
        'a.py', PY, **REGION_PY
    )
    assert region_fingerprint('a.py', PY, **REGION_PY, within='renew') == region_fingerprint(
        'a.py', PY, **REGION_PY
    )
    top_level = (
        PY.split('lease."""\n', 1)[1].replace('\n    ', '\n').lstrip()
    )  # the body as module code
    assert top_level.startswith('if lease.expired(now):\n    db.log')
    assert region_fingerprint('a.py', top_level, **REGION_PY) == region_fingerprint(
        'a.py', PY, **REGION_PY
    )


SPLIT_TOKEN = (
    # (id, path, source, edited, anchors): each anchor ends or starts inside a token
    (
        'py-to-inside-identifier',
        'a.py',
        'def f(rows):\n    x = 1\n    return rows\n',
        'def f(rows):\n    x = 1\n    return rowz\n',
        dict(start='x = 1', end='return row'),
    ),
    (
        'py-from-inside-identifier',
        'a.py',
        'def f():\n    return compute(alpha, beta)\n',
        'def f():\n    return compute(alphb, beta)\n',
        dict(start='pute(al', end='ta)'),
    ),
    (
        'py-to-inside-string',
        'a.py',
        "def f(db):\n    db.run('UPDATE t SET a = 1')\n",
        "def f(db):\n    db.run('UPDATE t SET a = 2')\n",
        dict(start='db.run', end="'UPDATE t"),
    ),
    (
        'ts-to-inside-number',
        'a.ts',
        'function f() {\n  g();\n  return 100;\n}\n',
        'function f() {\n  g();\n  return 1000;\n}\n',
        dict(start='g();', end='return 10'),
    ),
    (
        'go-to-inside-raw-string',
        'a.go',
        'package a\n\nfunc F() {\n\tg(`a\nb`)\n}\n',
        'package a\n\nfunc F() {\n\tg(`a\nc`)\n}\n',
        dict(start='g(', end='`a'),
    ),
)


@pytest.mark.parametrize('scheme', SCHEMES)
@pytest.mark.parametrize(
    ('path', 'source', 'edited', 'anchors'),
    [r[1:] for r in SPLIT_TOKEN],
    ids=[r[0] for r in SPLIT_TOKEN],
)
def test_region_anchors_split_no_token(path, source, edited, anchors, scheme):
    # An anchor inside a token covers the whole token: an edit past the anchor is still seen.
    assert region_fingerprint(path, edited, **anchors, scheme=scheme) != region_fingerprint(
        path, source, **anchors, scheme=scheme
    )


BROKEN = """\
def renew(lease, now):
    if lease.expired(now)
        raise ValueError('expired')
    lease.until = now + 30
"""


@pytest.mark.parametrize('scheme', SCHEMES)
def test_syntax_error_hashes_deterministically_and_still_sees_edits(scheme):
    first = function_fingerprint('a.py', BROKEN, 'renew', scheme)
    assert function_fingerprint('a.py', '\n\n' + BROKEN, 'renew', scheme) == first
    assert (
        function_fingerprint('a.py', BROKEN.replace('now + 30', 'now - 30'), 'renew', scheme)
        != first
    )
    assert (
        function_fingerprint('a.py', BROKEN.replace("'expired'", "'gone'"), 'renew', scheme)
        != first
    )
    assert (
        function_fingerprint('a.py', BROKEN.replace("'expired'", '"expired"'), 'renew', scheme)
        != first
    )
    fixed = BROKEN.replace('expired(now)\n', 'expired(now):\n')
    assert function_fingerprint('a.py', fixed, 'renew', scheme) != first


@pytest.mark.parametrize('scheme', SCHEMES)
def test_syntax_error_region_keeps_its_indentation(scheme):
    # The grammar cannot build blocks inside an ERROR node; its raw text (whitespace included)
    # is hashed so that dedenting a statement there is still a change.
    broken = BROKEN.replace('    lease.until', '        lease.until') + '    return lease\n'
    dedented = broken.replace('        lease.until', '    lease.until')
    assert function_fingerprint('a.py', dedented, 'renew', scheme) != function_fingerprint(
        'a.py', broken, 'renew', scheme
    )
