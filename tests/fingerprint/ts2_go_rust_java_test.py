"""ts2 for Go, Rust and Java: each normalisation with a pair that must be equal and a near miss
that must differ."""

from __future__ import annotations

import pytest

from execlease_hook.fingerprint.scheme import fingerprint
from execlease_hook.locate.entry import find_functions

QUALNAME = {'a.go': 'F', 'a.rs': 'f', 'A.java': 'A.f'}


def fp(path: str, source: str, qualname: str | None = None) -> str:
    (located,) = find_functions(path, source.encode(), qualname or QUALNAME[path])
    return fingerprint(located, 'ts2')


def go(code: str) -> str:
    return 'package a\n\nfunc F(a, b int, s []T) {\n\t' + code + '\n}\n'


def rs(code: str) -> str:
    return 'fn f(a: u8, b: u8) {\n    ' + code + '\n}\n'


def java(code: str) -> str:
    return 'class A {\n    Object f(int a, int b) {\n        ' + code + '\n    }\n}\n'


# (id, path, one, other): same meaning, different spelling
EQUAL = (
    ('go-raw-vs-interpreted', 'a.go', go('g(`a b`)'), go('g("a b")')),
    ('go-escapes', 'a.go', go('g("\\x61\\u00e9")'), go('g("aé")')),
    ('go-byte-escapes-are-utf8', 'a.go', go('g("\\xc3\\xa9")'), go('g("é")')),
    ('go-raw-string-carriage-return', 'a.go', go('g(`a\r\nb`)'), go('g("a\\nb")')),
    ('go-rune', 'a.go', go("g('a')"), go("g('\\x61')")),
    ('go-number-spelling', 'a.go', go('g(0X1F, 1E5, 0O17, 1_000)'), go('g(0x1f, 1e5, 0o17, 1000)')),
    ('go-legacy-octal', 'a.go', go('g(017)'), go('g(0o17)')),
    ('go-if-parens', 'a.go', go('if (a < b) {\n\t\tg()\n\t}'), go('if a < b {\n\t\tg()\n\t}')),
    ('go-semicolons', 'a.go', go('g(); h();'), go('g()\n\th()')),
    ('go-trailing-comma', 'a.go', go('g(a,\n\t\tb,\n\t)'), go('g(a, b)')),
    ('go-composite-literal-elided', 'a.go', go('_ = []T{T{1}, T{2}}'), go('_ = []T{{1}, {2}}')),
    ('go-pointer-literal-elided', 'a.go', go('_ = []*T{&T{1}}'), go('_ = []*T{{1}}')),
    ('go-map-literal-elided', 'a.go', go('_ = map[K]V{K{1}: V{2}}'), go('_ = map[K]V{{1}: {2}}')),
    ('go-slice-len', 'a.go', go('_ = s[a:len(s)]'), go('_ = s[a:]')),
    (
        'go-range-blank',
        'a.go',
        go('for i, _ := range s {\n\t\tg(i)\n\t}'),
        go('for i := range s {\n\t\tg(i)\n\t}'),
    ),
    ('go-range-only-blank', 'a.go', go('for _ = range s {\n\t}'), go('for range s {\n\t}')),
    ('rust-raw-vs-plain', 'a.rs', rs('g(r#"a"#);'), rs('g("a");')),
    ('rust-raw-hashes', 'a.rs', rs('g(r#"a"b"#);'), rs('g(r##"a"b"##);')),
    ('rust-escapes', 'a.rs', rs('g("\\x61\\u{e9}");'), rs('g("aé");')),
    ('rust-string-continuation', 'a.rs', rs('g("a \\\n        b");'), rs('g("a b");')),
    ('rust-byte-raw', 'a.rs', rs('g(br"a");'), rs('g(b"a");')),
    ('rust-char', 'a.rs', rs("g('\\x61');"), rs("g('a');")),
    ('rust-trailing-comma', 'a.rs', rs('g(a, b,);'), rs('g(a, b);')),
    (
        'rust-match-arm-comma',
        'a.rs',
        rs('match a {\n        1 => {}\n        _ => {},\n    }'),
        rs('match a {\n        1 => {},\n        _ => {}\n    }'),
    ),
    (
        'rust-match-leading-pipe',
        'a.rs',
        rs('match a {\n        | 1 | 2 => {}\n        _ => {}\n    }'),
        rs('match a {\n        1 | 2 => {}\n        _ => {}\n    }'),
    ),
    ('rust-field-init-shorthand', 'a.rs', rs('g(P { a: a, b });'), rs('g(P { a, b });')),
    ('rust-closure-block', 'a.rs', rs('g(|x| { x + 1 });'), rs('g(|x| x + 1);')),
    (
        'rust-match-arm-block',
        'a.rs',
        rs('match a {\n        1 => { g() }\n        _ => h(),\n    }'),
        rs('match a {\n        1 => g(),\n        _ => h(),\n    }'),
    ),
    ('rust-return-semicolon', 'a.rs', rs('return a;'), rs('return a')),
    ('rust-nested-parens', 'a.rs', rs('g(((a)));'), rs('g(a);')),
    ('rust-empty-statement', 'a.rs', rs('g();;'), rs('g();')),
    (
        'java-text-block-indent',
        'A.java',
        java('return """\n            a\n              b\n            """;'),
        java('return """\n    a\n      b\n    """;'),
    ),
    (
        'java-text-block-vs-string',
        'A.java',
        java('return """\n            a\n            b""";'),
        java('return "a\\nb";'),
    ),
    (
        'java-text-block-trailing-space',
        'A.java',
        java('return """\n            a   \n            """;'),
        java('return "a\\n";'),
    ),
    ('java-escapes', 'A.java', java('return "\\u0061\\141";'), java('return "aa";')),
    ('java-parens', 'A.java', java('return (a < b);'), java('return a < b;')),
    (
        'java-trailing-comma',
        'A.java',
        java('return new int[] {a, b,};'),
        java('return new int[] {a, b};'),
    ),
    ('java-empty-statement', 'A.java', java('g();;'), java('g();')),
)

# (id, path, one, other): a near miss that changes the meaning
DIFFERENT = (
    ('go-raw-vs-escaped', 'a.go', go('g(`\\n`)'), go('g("\\n")')),
    ('go-string', 'a.go', go('g("a")'), go('g("b")')),
    ('go-rune-vs-string', 'a.go', go("g('a')"), go('g("a")')),
    ('go-number', 'a.go', go('g(0x1f)'), go('g(0x1e)')),
    ('go-decimal-imaginary-is-not-octal', 'a.go', go('g(017i)'), go('g(15i)')),
    ('go-element-type-differs', 'a.go', go('_ = []T{U{1}}'), go('_ = []T{{1}}')),
    ('go-slice-len-of-other', 'a.go', go('_ = s[a:len(b)]'), go('_ = s[a:]')),
    (
        'go-range-value',
        'a.go',
        go('for _, v := range s {\n\t\tg(v)\n\t}'),
        go('for v := range s {\n\t\tg(v)\n\t}'),
    ),
    ('go-if-init', 'a.go', go('if a := g(); a {\n\t}'), go('if a {\n\t}')),
    ('rust-raw-vs-escaped', 'a.rs', rs('g(r"\\n");'), rs('g("\\n");')),
    ('rust-bytes-vs-str', 'a.rs', rs('g(b"a");'), rs('g("a");')),
    ('rust-char-vs-byte', 'a.rs', rs("g(b'a');"), rs("g('a');")),
    ('rust-one-element-tuple', 'a.rs', rs('g((a,));'), rs('g((a));')),
    ('rust-tail-semicolon', 'a.rs', rs('a'), rs('a;')),
    ('rust-field-call-parens', 'a.rs', rs('(a.g)();'), rs('a.g();')),
    ('rust-field-init-other', 'a.rs', rs('g(P { a: b });'), rs('g(P { a });')),
    ('rust-closure-statements', 'a.rs', rs('g(|x| { x + 1; });'), rs('g(|x| x + 1);')),
    (
        'rust-match-arm-statement',
        'a.rs',
        rs('match a {\n        1 => { g(); }\n        _ => h(),\n    }'),
        rs('match a {\n        1 => g(),\n        _ => h(),\n    }'),
    ),
    ('rust-return-value', 'a.rs', rs('return a;'), rs('return b')),
    ('rust-break-vs-return', 'a.rs', rs('loop { break; }'), rs('loop { return; }')),
    (
        'java-text-block-relative-indent',
        'A.java',
        java('return """\n            a\n              b\n            """;'),
        java('return """\n            a\n            b\n            """;'),
    ),
    (
        'java-text-block-closing-indent',
        'A.java',
        java('return """\n            a\n        """;'),
        java('return """\n            a\n            """;'),
    ),
    ('java-string', 'A.java', java('return "a";'), java('return "b";')),
    ('java-char-vs-string', 'A.java', java("return 'a';"), java('return "a";')),
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


def test_rust_context_counts_control_flow_and_attributes_of_the_enclosing_items():
    inner = 'fn outer() {\n    if a {\n        fn f() {}\n    }\n}\n'
    assert fp('a.rs', inner, 'outer.f') != fp('a.rs', inner.replace('if a', 'if b'), 'outer.f')
    impl = 'impl K {\n    fn f(&self) {}\n}\n'
    assert fp('a.rs', impl, 'K.f') != fp('a.rs', '#[cfg(test)]\n' + impl, 'K.f')
    assert fp('a.rs', impl, 'K.f') != fp('a.rs', impl.replace('impl K', 'impl T for K'), 'K.f')
    assert fp('a.rs', impl, 'K.f') == fp('a.rs', 'fn g() {}\n\n' + impl, 'K.f')


def test_java_context_counts_the_class_header():
    source = java('return 1;')
    assert fp('A.java', source) != fp('A.java', source.replace('class A', 'class A extends B'))
    assert fp('A.java', source) == fp(
        'A.java', source.replace('class A {', 'class A {\n    int x;')
    )
