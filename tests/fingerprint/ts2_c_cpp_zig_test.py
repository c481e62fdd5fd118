"""ts2 for C, C++ and Zig: each normalisation with a pair that must be equal and a near miss
that must differ."""

from __future__ import annotations

import pytest

from execlease_hook.fingerprint.scheme import fingerprint
from execlease_hook.locate.entry import find_functions

QUALNAME = {'a.c': 'f', 'a.cpp': 'f', 'a.zig': 'f'}


def fp(path: str, source: str, qualname: str | None = None) -> str:
    (located,) = find_functions(path, source.encode(), qualname or QUALNAME[path])
    return fingerprint(located, 'ts2')


def c(code: str) -> str:
    return 'int f(int a, int b) {\n    ' + code + '\n}\n'


def cpp(code: str) -> str:
    return 'auto f(int a, int b) {\n  ' + code + '\n}\n'


def zig(code: str) -> str:
    return 'fn f(a: u8, b: u8) void {\n    ' + code + '\n}\n'


# (id, path, one, other): same meaning, different spelling
EQUAL = (
    (
        'c-layout',
        'a.c',
        c('g(a,b);'),
        '\nint\nf(int a,\n      int b)\n{\n    g(a, b);   /* note */\n}\n',
    ),
    ('c-string-concatenation', 'a.c', c('g("a" "b");'), c('g("ab");')),
    ('c-string-escapes', 'a.c', c('g("\\x61\\141\\n");'), c('g("aa\\12");')),
    ('c-string-bytes-are-utf8', 'a.c', c('g("\\xc3\\xa9");'), c('g("é");')),
    ('c-string-line-splice', 'a.c', c('g("a\\\nb");'), c('g("ab");')),
    ('c-char-escapes', 'a.c', c("g('\\x61');"), c("g('a');")),
    ('c-number-case', 'a.c', c('g(0X1F, 10UL, 1E5);'), c('g(0x1f, 10ul, 1e5);')),
    ('c-parens', 'a.c', c('return (a + b);'), c('return a + b;')),
    ('c-nested-parens', 'a.c', c('g(((a)));'), c('g(a);')),
    ('c-if-braces', 'a.c', c('if (a) { g(); } else { h(); }'), c('if (a) g(); else h();')),
    (
        'c-loop-braces',
        'a.c',
        c('while (a) { g(); }\n    for (;;) { h(); }'),
        c('while (a) g();\n    for (;;) h();'),
    ),
    ('c-empty-statements', 'a.c', c('g();;'), c('g();')),
    ('c-initializer-trailing-comma', 'a.c', c('int x[] = {1, 2,};'), c('int x[] = {1, 2};')),
    ('c-directive-spacing', 'a.c', c('#  if A\n    g();\n#  endif'), c('#if A\n    g();\n#endif')),
    (
        'c-macro-body-spacing',
        'a.c',
        c('#define M(x)  ((x)+1)  /* one more */\n    g();'),
        c('#define M(x) ((x) + 1)\n    g();'),
    ),
    ('cpp-raw-string', 'a.cpp', cpp('g(R"x(a\\n)x");'), cpp('g("a\\\\n");')),
    ('cpp-raw-string-prefix', 'a.cpp', cpp('g(u8R"(a)");'), cpp('g(u8"a");')),
    ('cpp-digit-separators', 'a.cpp', cpp("g(1'000'000);"), cpp('g(1000000);')),
    (
        'cpp-lambda-layout',
        'a.cpp',
        cpp('auto h = [&](int x) { return x + a; };'),
        cpp('auto h = [&](int x) {\n    return x + a;\n  };'),
    ),
    ('cpp-condition-parens', 'a.cpp', cpp('if ((a)) g();'), cpp('if (a) g();')),
    (
        'zig-layout',
        'a.zig',
        zig('g(a,b);'),
        'fn f(a: u8,   b: u8) void\n{\n    g(a, b); // note\n}\n',
    ),
    ('zig-escapes', 'a.zig', zig('g("\\x61\\u{e9}");'), zig('g("aé");')),
    ('zig-bytes-are-utf8', 'a.zig', zig('g("\\xc3\\xa9");'), zig('g("é");')),
    (
        'zig-multiline-string',
        'a.zig',
        zig('g(\n        \\\\a\n        \\\\b\n    );'),
        zig('g("a\\nb");'),
    ),
    ('zig-char', 'a.zig', zig("g('\\x61');"), zig("g('a');")),
    ('zig-integer-bases', 'a.zig', zig('g(0x1F, 0o37, 0b11111, 3_1);'), zig('g(31, 31, 31, 31);')),
    ('zig-float-exact', 'a.zig', zig('g(1.5e3, 1_0.0);'), zig('g(1500.0, 10.0);')),
    ('zig-parens', 'a.zig', zig('g((a + b));'), zig('g(a + b);')),
    (
        'zig-trailing-comma',
        'a.zig',
        zig('g(a, b,);\n    _ = .{ .x = 1, };'),
        zig('g(a, b);\n    _ = .{ .x = 1 };'),
    ),
)

# (id, path, one, other): a near miss that changes the meaning
DIFFERENT = (
    ('c-string', 'a.c', c('g("a");'), c('g("b");')),
    ('c-string-space', 'a.c', c('g("a b");'), c('g("a  b");')),
    (
        'c-not-a-character',
        'a.c',
        c('g("\\uD800");'),
        c('g("\\uD801");'),
    ),  # kept as written, no crash
    ('c-wide-vs-narrow', 'a.c', c('g(L"a");'), c('g("a");')),
    ('c-char-vs-string', 'a.c', c("g('a');"), c('g("a");')),
    ('c-hex-vs-decimal', 'a.c', c('g(0x10);'), c('g(16);')),  # may differ in type
    ('c-number', 'a.c', c('g(10);'), c('g(11);')),
    ('c-suffix', 'a.c', c('g(10u);'), c('g(10);')),
    ('c-parenthesised-callee', 'a.c', c('(g)(a);'), c('g(a);')),  # stops a function-like macro
    ('c-comma-expression', 'a.c', c('g((a, b));'), c('g(a, b);')),
    ('c-block-with-declaration', 'a.c', c('if (a) { int x = g(); }'), c('if (a) int x = g();')),
    (
        'c-dangling-else',
        'a.c',
        c('if (a) { if (b) g(); } else h();'),
        c('if (a) if (b) g(); else h();'),
    ),
    ('c-empty-body', 'a.c', c('while (a) ;'), c('while (a) {}\n    ;')),
    ('c-if-0', 'a.c', c('#if 0\n    g();\n#endif'), c('#if 1\n    g();\n#endif')),
    ('c-ifdef-name', 'a.c', c('#ifdef A\n    g();\n#endif'), c('#ifdef B\n    g();\n#endif')),
    ('c-ifdef-vs-ifndef', 'a.c', c('#ifdef A\n    g();\n#endif'), c('#ifndef A\n    g();\n#endif')),
    (
        'c-else-branch',
        'a.c',
        c('#ifdef A\n    g();\n#else\n    h();\n#endif'),
        c('#ifdef A\n    h();\n#else\n    g();\n#endif'),
    ),
    (
        'c-macro-body',
        'a.c',
        c('#define M(x) ((x) + 1)\n    g();'),
        c('#define M(x) ((x) + 2)\n    g();'),
    ),
    ('c-macro-tokens', 'a.c', c('#define M(x) a+ +b\n    g();'), c('#define M(x) a++b\n    g();')),
    (
        'c-object-vs-function-macro',
        'a.c',
        c('#define M(x) x\n    g();'),
        c('#define M (x) x\n    g();'),
    ),
    ('c-trailing-macro-argument', 'a.c', c('g(a, b);'), c('g(a, b, );')),
    ('cpp-raw-vs-escaped', 'a.cpp', cpp('g(R"(\\n)");'), cpp('g("\\n");')),
    ('cpp-return-parens', 'a.cpp', cpp('return (a);'), cpp('return a;')),  # decltype(auto)
    ('cpp-decltype-parens', 'a.cpp', cpp('decltype((a)) x = a;'), cpp('decltype(a) x = a;')),
    ('cpp-member-pointer', 'a.cpp', cpp('g(&(K::m));'), cpp('g(&K::m);')),
    (
        'cpp-lambda-capture',
        'a.cpp',
        cpp('auto h = [&](int x) { return x; };'),
        cpp('auto h = [=](int x) { return x; };'),
    ),
    ('zig-string', 'a.zig', zig('g("a");'), zig('g("b");')),
    ('zig-multiline-vs-escaped', 'a.zig', zig('g(\n        \\\\a\\n\n    );'), zig('g("a\\n");')),
    (
        'zig-multiline-trailing-space',
        'a.zig',
        zig('g(\n        \\\\a \n    );'),
        zig('g(\n        \\\\a\n    );'),
    ),
    ('zig-char-vs-string', 'a.zig', zig("g('a');"), zig('g("a");')),
    ('zig-integer', 'a.zig', zig('g(0x1F);'), zig('g(30);')),
    ('zig-float-vs-int', 'a.zig', zig('g(1.0);'), zig('g(1);')),
    ('zig-parenthesised-callee', 'a.zig', zig('(a.g)();'), zig('a.g();')),
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


def test_preprocessor_conditionals_around_a_definition_are_its_context():
    plain = 'int g(void) { return 1; }\n\nint f(void) { return 0; }\n'
    guarded = '#ifdef FAST\nint g(void) { return 1; }\n\nint f(void) { return 0; }\n#endif\n'
    assert fp('a.c', plain) != fp('a.c', guarded)
    assert fp('a.c', guarded) != fp('a.c', guarded.replace('#ifdef FAST', '#ifdef SLOW'))
    assert fp('a.c', guarded) != fp('a.c', guarded.replace('#ifdef FAST', '#if 0'))
    # what stands beside it in the same block does not count
    assert fp('a.c', guarded) == fp('a.c', guarded.replace('return 1', 'return 2'))
    in_else = '#ifdef FAST\nint g(void) { return 1; }\n#else\nint f(void) { return 0; }\n#endif\n'
    assert fp('a.c', in_else) != fp('a.c', in_else.replace('#else\nint f', '#elif 1\nint f'))
    assert fp('a.c', in_else) == fp('a.c', in_else.replace('return 1', 'return 2'))


def test_cpp_context_counts_namespaces_classes_and_templates():
    source = 'namespace n {\nclass K : public B {\n  int m() { return 1; }\n  int x;\n};\n}\n'
    q = 'n.K.m'
    assert fp('a.cpp', source, q) != fp('a.cpp', source.replace('public B', 'private B'), q)
    templated = source.replace('class K', 'template <class T>\nclass K')
    assert fp('a.cpp', source, q) != fp('a.cpp', templated, q)
    assert fp('a.cpp', templated, q) != fp('a.cpp', templated.replace('class T', 'int T'), q)
    assert fp('a.cpp', source, q) == fp('a.cpp', source.replace('int x;', 'int y;'), q)


def test_cpp_lambda_context_counts_the_branch_but_not_what_other_branches_hold():
    source = 'int outer(bool a) {\n  if (a) {\n    auto f = [](int x) { return x; };\n  } else return 1;\n}\n'
    assert fp('a.cpp', source, 'outer.f') != fp(
        'a.cpp', source.replace('if (a)', 'if (!a)'), 'outer.f'
    )
    assert fp('a.cpp', source, 'outer.f') == fp(
        'a.cpp', source.replace('return 1', 'return 2'), 'outer.f'
    )


def test_zig_context_counts_the_branch_but_not_what_other_branches_hold():
    source = (
        'fn T(comptime x: bool) type {\n    if (x) {\n        return struct {\n            fn f() void {}\n'
        '        };\n    } else return struct {};\n}\n'
    )
    assert fp('a.zig', source, 'T.f') != fp('a.zig', source.replace('if (x)', 'if (!x)'), 'T.f')
    assert fp('a.zig', source, 'T.f') == fp(
        'a.zig', source.replace('else return struct {}', 'else return u8'), 'T.f'
    )


def test_zig_context_counts_the_container_kind_but_not_its_other_members():
    source = 'const S = struct {\n    x: u8,\n    fn f() void {}\n};\n'
    assert fp('a.zig', source, 'S.f') != fp(
        'a.zig', source.replace('struct', 'packed struct'), 'S.f'
    )
    assert fp('a.zig', source, 'S.f') != fp(
        'a.zig', source.replace('const S', 'pub const S'), 'S.f'
    )
    assert fp('a.zig', source, 'S.f') == fp('a.zig', source.replace('x: u8', 'y: u16'), 'S.f')
