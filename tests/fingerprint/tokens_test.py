"""Region anchors found by their tokens (fingerprint/tokens.py feeding locate/anchor.py), in every
language of the table: the same code respaced, broken over lines, commented and (where the
language has two quotes) requoted keeps its anchors and its fingerprint; one token changed in an
anchor loses it, naming the token."""

from __future__ import annotations

import pytest

from execlease_hook.core.errors import CannotRun
from execlease_hook.fingerprint.scheme import fingerprint
from execlease_hook.fingerprint.tokens import tokens
from execlease_hook.locate.entry import locate
from execlease_hook.locate.languages import LANGUAGES
from execlease_hook.manifest.model import CoveredEntry, Region

# language -> (file name, code, the same code reformatted, from, to, a token of `from` and its edit)
CASES: dict[str, tuple[str, str, str, str, str, tuple[str, str]]] = {
    'python': (
        'a.py',
        "def f(db, x):\n    cur = db.execute('UPDATE t', (x,1))\n    return cur.n==1\n",
        (
            'def f(db, x):\n    cur = db.execute(\n        "UPDATE t",  # why\n        (x, 1),\n    )\n'
            '    return cur.n == 1\n'
        ),
        "cur = db.execute('UPDATE t', (x,1))",
        'return cur.n==1',
        ("'UPDATE t'", "'UPDATE u'"),
    ),
    'typescript': (
        'a.ts',
        "function f(db: Db, x: number) {\n  const cur = db.run('UPDATE t', [x,1,])\n  return cur.n===1\n}\n",
        (
            'function f(db: Db, x: number) {\n  const cur = db.run(\n    "UPDATE t", // why\n    [x, 1],\n  );\n'
            '  return cur.n === 1;\n}\n'
        ),
        "const cur = db.run('UPDATE t', [x,1,])",
        'return cur.n===1',
        ('[x,1,]', '[x,2,]'),
    ),
    'tsx': (
        'a.tsx',
        "function f(x: number) {\n  const el = <B t='a' n={x+1} />\n  return (el)\n}\n",
        'function f(x: number) {\n  const el = <B t="a" n={x + 1} />;\n  return el;\n}\n',
        "const el = <B t='a' n={x+1} />",
        'return (el)',
        ('x+1', 'x-1'),
    ),
    'javascript': (
        'a.js',
        "function f(db, x) {\n  const cur = db.run('UPDATE t', {a: x, 'b': 2,})\n  return cur.n===1\n}\n",
        (
            'function f(db, x) {\n  const cur = db.run("UPDATE t", {\n    a: x,\n    b: 2,\n  });\n'
            '  return cur.n === 1;\n}\n'
        ),
        "const cur = db.run('UPDATE t', {a: x, 'b': 2,})",
        'return cur.n===1',
        ("'b': 2", "'c': 2"),
    ),
    'go': (
        'a.go',
        'package p\n\nfunc F(db DB, x int) bool {\n    cur := db.Run("UPDATE t", []int{x,1,})\n    return cur.N==1\n}\n',
        (
            'package p\n\nfunc F(db DB, x int) bool {\n\tcur := db.Run("UPDATE t", []int{x, 1}) // why\n'
            '\treturn cur.N == 1\n}\n'
        ),
        'cur := db.Run("UPDATE t", []int{x,1,})',
        'return cur.N==1',
        ('x,1,', 'x,2,'),
    ),
    'java': (
        'A.java',
        (
            'class A {\n  boolean f(Db db, int x) {\n    var cur = db.run("UPDATE t", new int[]{x,1,});\n'
            '    return cur.n==1;\n  }\n}\n'
        ),
        (
            'class A {\n  boolean f(Db db, int x) {\n    var cur =\n        db.run("UPDATE t", new int[] {x, 1});\n'
            '    return cur.n == 1; // why\n  }\n}\n'
        ),
        'var cur = db.run("UPDATE t", new int[]{x,1,});',
        'return cur.n==1;',
        ('"UPDATE t"', '"UPDATE u"'),
    ),
    'rust': (
        'a.rs',
        'fn f(db: &Db, x: i64) -> bool {\n    let cur = db.run("UPDATE t", &[x,1,]);\n    cur.n==1\n}\n',
        (
            'fn f(db: &Db, x: i64) -> bool {\n    let cur = db.run(\n        r#"UPDATE t"#, // why\n        &[x, 1],\n'
            '    );\n    cur.n == 1\n}\n'
        ),
        'let cur = db.run("UPDATE t", &[x,1,]);',
        'cur.n==1',
        ('&[x,1,]', '&[x,2,]'),
    ),
    'c': (
        'a.c',
        'int f(struct db *db, int x) {\n    int cur = run(db, "UPDATE t", (int[]){x,1,});\n    return cur==1;\n}\n',
        (
            'int f(struct db *db, int x)\n{\n    int cur = run(db, "UPDATE t", /* why */ (int[]){x, 1});\n'
            '    return cur == 1;\n}\n'
        ),
        'int cur = run(db, "UPDATE t", (int[]){x,1,});',
        'return cur==1;',
        ('"UPDATE t"', '"UPDATE u"'),
    ),
    'cpp': (
        'a.cpp',
        'bool f(Db &db, int x) {\n  auto cur = db.run("UPDATE t", {x,1,});\n  return cur.n==1;\n}\n',
        'bool f(Db &db, int x)\n{\n  auto cur = db.run(\n      "UPDATE t",\n      {x, 1});\n  return cur.n == 1;\n}\n',
        'auto cur = db.run("UPDATE t", {x,1,});',
        'return cur.n==1;',
        ('{x,1,}', '{x,2,}'),
    ),
    'zig': (
        'a.zig',
        'fn f(db: *Db, x: i64) bool {\n    const cur = db.run("UPDATE t", .{x,1,});\n    return cur.n==1;\n}\n',
        (
            'fn f(db: *Db, x: i64) bool {\n    const cur = db.run("UPDATE t", .{\n        x,\n        1,\n    });\n'
            '    return cur.n == 1;\n}\n'
        ),
        'const cur = db.run("UPDATE t", .{x,1,});',
        'return cur.n==1;',
        ('"UPDATE t"', '"UPDATE u"'),
    ),
    'csharp': (
        'A.cs',
        (
            'class A {\n  bool F(Db db, int x) {\n    var cur = db.Run("UPDATE t", new[] {x,1,});\n'
            '    return cur.N==1;\n  }\n}\n'
        ),
        (
            'class A\n{\n  bool F(Db db, int x)\n  {\n    var cur = db.Run(\n      "UPDATE t",\n      new[] { x, 1 }\n'
            '    );\n    return cur.N == 1;\n  }\n}\n'
        ),
        'var cur = db.Run("UPDATE t", new[] {x,1,});',
        'return cur.N==1;',
        ('"UPDATE t"', '"UPDATE u"'),
    ),
    'kotlin': (
        'A.kt',
        (
            'fun f(db: Db, x: Int): Boolean {\n    val cur = db.run("UPDATE t", listOf(x,1,)) ;\n'
            '    return cur.n==1\n}\n'
        ),
        (
            'fun f(db: Db, x: Int): Boolean {\n    val cur =\n        db.run(\n            "UPDATE t",\n'
            '            listOf(x, 1),\n        )\n    return cur.n == 1\n}\n'
        ),
        'val cur = db.run("UPDATE t", listOf(x,1,)) ;',
        'return cur.n==1',
        ('listOf(x,1,)', 'listOf(x,2,)'),
    ),
    'scala': (
        'A.scala',
        (
            'object A {\n  def f(db: Db, x: Int): Boolean = {\n    val cur = db.run("UPDATE t", List(x,1)) ;\n'
            '    cur.n==1\n  }\n}\n'
        ),
        (
            'object A {\n  def f(db: Db, x: Int): Boolean = {\n    val cur = db.run(\n      "UPDATE t",\n'
            '      List(x, 1)\n    )\n    cur.n == 1\n  }\n}\n'
        ),
        'val cur = db.run("UPDATE t", List(x,1)) ;',
        'cur.n==1',
        ('List(x,1)', 'List(x,2)'),
    ),
    'swift': (
        'a.swift',
        'func f(db: Db, x: Int) -> Bool {\n    let cur = db.run("UPDATE t", [x,1,]);\n    return cur.n==1\n}\n',
        (
            'func f(db: Db, x: Int) -> Bool {\n    let cur = db.run(\n        "UPDATE t",\n        [x, 1]\n    )\n'
            '    return cur.n == 1\n}\n'
        ),
        'let cur = db.run("UPDATE t", [x,1,]);',
        'return cur.n==1',
        ('[x,1,]', '[x,2,]'),
    ),
}


def test_every_language_has_a_case():
    assert set(CASES) == set(LANGUAGES)


def _entry(name: str, start: str, end: str) -> CoveredEntry:
    return CoveredEntry(id='r', path=name, action='A', region=Region(start, end))


@pytest.mark.parametrize('language', sorted(CASES))
def test_reformatted_anchors_keep_the_region_and_its_fingerprint(language):
    name, code, formatted, start, end, _ = CASES[language]
    entry = _entry(name, start, end)
    before = locate(entry, code.encode(), tokens)
    assert start not in formatted and end not in formatted
    with pytest.raises(CannotRun, match='not found'):
        locate(entry, formatted.encode())  # by exact text, as before tokens
    after = locate(entry, formatted.encode(), tokens)
    assert fingerprint(after) == fingerprint(before)
    assert after.text.split()[0] == start.split()[0] and after.text.rstrip(';)').endswith(
        end.rstrip(';)')[-1]
    )


@pytest.mark.parametrize('language', sorted(CASES))
def test_one_token_changed_in_an_anchor_loses_it_and_names_the_token(language):
    name, _, formatted, start, end, (old, new) = CASES[language]
    assert start.count(old) == 1
    with pytest.raises(CannotRun) as raised:
        locate(_entry(name, start.replace(old, new), end), formatted.encode(), tokens)
    message = str(raised.value)
    assert (
        '`region.from`' in message and 'not found' in message and 'then the anchor says' in message
    )


@pytest.mark.parametrize(
    ('code', 'expected'),
    (
        pytest.param(
            "x = ('a',  0XFF)  # c\n",
            [b'x', b'=', b'(', b'\0(vs:"1:a)', b',', b'\0#4:i255', b')'],
            id='a literal by value, a comment no token',
        ),
        pytest.param(
            'f(a, b,)\n', [b'f', b'(', b'a', b',', b'b', b',', b')'], id='a trailing comma'
        ),
    ),
)
def test_token_keys(code, expected):
    found = tokens('python', code.encode())
    assert [key for key, *_ in found] == expected


def test_what_the_rules_drop_is_optional():
    found = tokens('python', b'f(a, b,)\nif (x): pass\n')
    optional = [(key, flag) for key, _, _, flag in found if key in (b',', b'(', b')')]
    assert optional == [
        (b'(', False),
        (b',', False),
        (b',', True),
        (b')', False),
        (b'(', True),
        (b')', True),
    ]


def test_tokens_of_a_scope_only():
    source = b'a = 1\nb = 2\nc = 3\n'
    assert [key for key, *_ in tokens('python', source, 6, 11)] == [b'b', b'=', b'\0#2:i2']


def test_a_chain_deeper_than_the_recursion_limit():
    import sys

    terms = sys.getrecursionlimit() + 500
    code = ('x = ' + ' + '.join(['1'] * terms) + '\n').encode()
    found = tokens('python', code)
    assert len(found) == 2 + 2 * terms - 1
