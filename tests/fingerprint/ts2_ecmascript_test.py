"""ts2 for JavaScript, TypeScript and TSX: each normalisation with a pair that must be equal and a
near miss that must differ."""

from __future__ import annotations

import pytest

from execlease_hook.fingerprint.scheme import fingerprint
from execlease_hook.locate.entry import find_functions


def fp(path: str, source: str, qualname: str = 'f') -> str:
    (located,) = find_functions(path, source.encode(), qualname)
    return fingerprint(located, 'ts2')


def js(code: str) -> str:
    return 'function f(a, b, x) {\n  ' + code + '\n}\n'


# (id, path, one, other): same meaning, different spelling
EQUAL = (
    ('quotes', 'a.js', js("return 'a';"), js('return "a";')),
    ('escaped-quote', 'a.js', js("return 'it\\'s';"), js('return "it\'s";')),
    ('hex-escape', 'a.js', js("return 'a';"), js("return '\\x61';")),
    ('unicode-escape', 'a.js', js("return 'é';"), js("return '\\u00e9';")),
    (
        'unicode-code-point-escape',
        'a.js',
        js("return '\\u{1F600}';"),
        js("return '\\uD83D\\uDE00';"),
    ),
    ('needless-escape', 'a.js', js("return '\\d';"), js("return 'd';")),
    ('template-without-holes', 'a.js', js("return 'a';"), js('return `a`;')),
    ('template-hole-spacing', 'a.js', js('return `a${ x }b`;'), js('return `a${x}b`;')),
    ('template-hole-expression', 'a.js', js('return `${a+b}`;'), js('return `${a + b}`;')),
    (
        'number-spelling',
        'a.js',
        js('return 0XFF + 1E5 + .5 + 5. + 1_000;'),
        js('return 0xff + 1e5 + 0.5 + 5 + 1000;'),
    ),
    ('number-trailing-zeros', 'a.js', js('return 1.50;'), js('return 1.5;')),
    (
        'semicolons',
        'a.js',
        js('const y = a\n  g(y)\n  return y'),
        js('const y = a;\n  g(y);\n  return y;'),
    ),
    ('empty-statements', 'a.js', js('g();;\n  ;'), js('g();')),
    ('trailing-comma-call', 'a.js', js('return g(a, b,);'), js('return g(a, b);')),
    ('trailing-comma-array', 'a.js', js('return [a, b,];'), js('return [a, b];')),
    ('trailing-comma-object', 'a.js', js('return { a, b, };'), js('return { a, b };')),
    ('trailing-comma-params', 'a.js', 'function f(a, b,) {}\n', 'function f(a, b) {}\n'),
    ('grouping-parens', 'a.js', js('return (a < b);'), js('return a < b;')),
    ('nested-parens-condition', 'a.js', js('if ((a)) g();'), js('if (a) g();')),
    ('parens-around-jsx-like-return', 'a.js', js('return (\n    g(a)\n  );'), js('return g(a);')),
    ('arrow-parens', 'a.js', 'const f = (x) => x;\n', 'const f = x => x;\n'),
    ('arrow-parens-async', 'a.js', 'const f = async (x) => x;\n', 'const f = async x => x;\n'),
    ('arrow-parens-ts', 'a.ts', 'const f = (x) => x;\n', 'const f = x => x;\n'),
    ('braces-around-one-statement', 'a.js', js('if (a) { g(); }'), js('if (a) g();')),
    ('braces-else', 'a.js', js('if (a) g(); else { h(); }'), js('if (a) g(); else h();')),
    ('braces-loop', 'a.js', js('for (const y of x) { g(y); }'), js('for (const y of x) g(y);')),
    ('new-without-arguments', 'a.js', js('return new Foo;'), js('return new Foo();')),
    ('quoted-key', 'a.js', js("return { 'a': 1 };"), js('return { a: 1 };')),
    ('quoted-number-key', 'a.js', js("return { '1': a };"), js('return { 1: a };')),
    (
        'quoted-method-name',
        'a.js',
        js("return { 'g'() { return 1; } };"),
        js('return { g() { return 1; } };'),
    ),
    (
        'ts-type-separators',
        'a.ts',
        js('let y: { a: A, b: B } = x;'),
        js('let y: { a: A; b: B } = x;'),
    ),
    ('ts-union-leading-pipe', 'a.ts', js('let y: | A | B = x;'), js('let y: A | B = x;')),
    ('ts-redundant-type-parens', 'a.ts', js('let y: (A) = x;'), js('let y: A = x;')),
    (
        'for-header-spacing',
        'a.js',
        js('for (let i = 0;i < a;i++) g(i);'),
        js('for (let i = 0; i < a; i++) {\n    g(i);\n  }'),
    ),
    (
        'jsx-text-rewrapped',
        'a.jsx',
        'const f = () => <b>Lease {a} until {b}</b>;\n',
        'const f = () => (\n  <b>\n    Lease {a} until {b}\n  </b>\n);\n',
    ),
    (
        'jsx-explicit-space',
        'a.jsx',
        'const f = () => <b>a <i>b</i></b>;\n',
        'const f = () => (\n  <b>\n    a{" "}\n    <i>b</i>\n  </b>\n);\n',
    ),
    (
        'jsx-attribute-quotes',
        'a.jsx',
        'const f = () => <b c="d" />;\n',
        "const f = () => <b c='d' />;\n",
    ),
    (
        'jsx-attribute-expression-string',
        'a.jsx',
        'const f = () => <b c="d" />;\n',
        'const f = () => <b c={"d"} />;\n',
    ),
    (
        'jsx-empty-expression',
        'a.jsx',
        'const f = () => <b>{/* note */}a</b>;\n',
        'const f = () => <b>a</b>;\n',
    ),
    (
        'jsx-text-inner-spaces',
        'a.jsx',
        'const f = () => <b>a  b\tc</b>;\n',
        'const f = () => <b>a b c</b>;\n',
    ),
    (
        'tsx-text-as-string',
        'a.tsx',
        'const f = (p: P) => <b>{"a b"}</b>;\n',
        'const f = (p: P) => <b>a b</b>;\n',
    ),
)

# (id, path, one, other): a near miss that changes the meaning
DIFFERENT = (
    ('string-value', 'a.js', js("return 'a';"), js("return 'b';")),
    ('string-whitespace', 'a.js', js("return 'a b';"), js("return 'a  b';")),
    ('escape-value', 'a.js', js("return '\\n';"), js("return '\\\\n';")),
    ('template-hole-vs-text', 'a.js', js('return `${a}`;'), js("return '${a}';")),
    ('tagged-template-raw', 'a.js', js('return String.raw`\\x61`;'), js('return String.raw`a`;')),
    ('tagged-vs-untagged', 'a.js', js('return g`a`;'), js('return `a`;')),
    ('number-value', 'a.js', js('return 0xff;'), js('return 0xfe;')),
    ('bigint-vs-number', 'a.js', js('return 1n;'), js('return 1;')),
    ('block-scope-declaration', 'a.js', js('if (a) { let y = 1; }'), js('if (a) let y = 1;')),
    ('block-two-statements', 'a.js', js('if (a) { g(); h(); }'), js('if (a) g(); h();')),
    (
        'dangling-else',
        'a.js',
        js('if (a) { if (b) g(); } else h();'),
        js('if (a) if (b) g(); else h();'),
    ),
    ('function-body-braces', 'a.js', 'const f = () => { a; };\n', 'const f = () => a;\n'),
    ('optional-chain-parens', 'a.js', js('return (a?.b).c;'), js('return a?.b.c;')),
    ('sequence-argument', 'a.js', js('return g((a, b));'), js('return g(a, b);')),
    ('precedence', 'a.js', js('return (a + b) * x;'), js('return a + b * x;')),
    ('array-hole', 'a.js', js('return [a, , ];'), js('return [a, ];')),
    ('asi-changes-the-tree', 'a.js', js('const y = a\n  (b)'), js('const y = a;\n  (b)')),
    ('key-value', 'a.js', js("return { 'a-b': 1 };"), js("return { 'a_b': 1 };")),
    ('arrow-param-with-type', 'a.ts', 'const f = (x: number) => x;\n', 'const f = x => x;\n'),
    ('arrow-param-default', 'a.js', 'const f = (x = 1) => x;\n', 'const f = x => x;\n'),
    ('ts-type', 'a.ts', js('let y: A | B = x;'), js('let y: A & B = x;')),
    (
        'jsx-text',
        'a.jsx',
        'const f = () => <b>Lease until</b>;\n',
        'const f = () => <b>Lease after</b>;\n',
    ),
    (
        'jsx-space-lost-at-line-break',
        'a.jsx',
        'const f = () => <b>a <i>b</i></b>;\n',
        'const f = () => (\n  <b>\n    a\n    <i>b</i>\n  </b>\n);\n',
    ),
    (
        'jsx-string-inner-spaces',
        'a.jsx',
        'const f = () => <b>{"a  b"}</b>;\n',
        'const f = () => <b>a b</b>;\n',
    ),
    ('jsx-nbsp', 'a.jsx', 'const f = () => <b>a\u00a0b</b>;\n', 'const f = () => <b>a b</b>;\n'),
    ('jsx-attribute', 'a.jsx', 'const f = () => <b c="d" />;\n', 'const f = () => <b c="e" />;\n'),
    (
        'jsx-attribute-no-escapes',
        'a.jsx',
        'const f = () => <b c="\\n" />;\n',
        'const f = () => <b c={"\\n"} />;\n',
    ),
    (
        'await',
        'a.js',
        'async function f() { return g(); }\n',
        'async function f() { return await g(); }\n',
    ),
)


@pytest.mark.parametrize(
    ('path', 'one', 'other'), [r[1:] for r in EQUAL], ids=[r[0] for r in EQUAL]
)
def test_same_meaning_same_fingerprint(path, one, other):
    assert one != other
    assert fp(path, one) == fp(path, other)


@pytest.mark.parametrize(
    ('path', 'one', 'other'), [r[1:] for r in DIFFERENT], ids=[r[0] for r in DIFFERENT]
)
def test_near_miss_changes_the_fingerprint(path, one, other):
    assert fp(path, one) != fp(path, other)


DEF = 'function f(a) {\n  return a + 1;\n}\n'

CONTEXT_SAME = (
    ('moved-to-the-end', 'const x = 1;\nfunction g() {}\n' + DEF),
    ('after-a-dead-branch', 'if (false) {}\n' + DEF),
)
CONTEXT_DIFFERENT = (
    ('under-if-false', 'if (false) {\n' + DEF + '}\n'),
    ('under-if-true', 'if (true) {\n' + DEF + '}\n'),
    ('under-else', 'if (x) {} else {\n' + DEF + '}\n'),
    ('under-try', 'try {\n' + DEF + '} catch (e) {}\n'),
    ('under-while', 'while (x) {\n' + DEF + '}\n'),
    ('under-switch-case', 'switch (x) {\ncase 1:\n' + DEF + '}\n'),
)


@pytest.mark.parametrize('source', [r[1] for r in CONTEXT_SAME], ids=[r[0] for r in CONTEXT_SAME])
def test_moving_a_definition_within_the_file_keeps_the_fingerprint(source):
    assert fp('a.js', source) == fp('a.js', DEF)


@pytest.mark.parametrize(
    'source', [r[1] for r in CONTEXT_DIFFERENT], ids=[r[0] for r in CONTEXT_DIFFERENT]
)
def test_moving_a_definition_under_control_flow_changes_the_fingerprint(source):
    assert fp('a.js', source) != fp('a.js', DEF)


def test_nested_function_context_stops_at_the_enclosing_function():
    outer = 'function outer() {\n  if (a) {\n    function f() { return 1; }\n  }\n}\n'
    assert fp('a.js', outer, 'outer.f') != fp('a.js', outer.replace('if (a)', 'if (b)'), 'outer.f')
    wrapped = 'if (z) {\n' + outer + '}\n'
    assert fp('a.js', wrapped, 'outer.f') == fp('a.js', outer, 'outer.f')


def test_a_method_counts_its_class_header():
    source = 'class K extends Base {\n  f() { return 1; }\n}\n'
    assert fp('a.js', source, 'K.f') != fp('a.js', source.replace('Base', 'Other'), 'K.f')
    assert fp('a.js', source, 'K.f') == fp(
        'a.js', source.replace('  f()', '  g() {}\n  f()'), 'K.f'
    )
