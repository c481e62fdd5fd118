"""ts2 for Python: each normalisation with a pair that must be equal and a near miss that must differ."""

from __future__ import annotations

import pytest

from execlease_hook.fingerprint.scheme import fingerprint
from execlease_hook.locate.entry import find_functions


def fp(source: str, qualname: str = 'f') -> str:
    (located,) = find_functions('a.py', source.encode(), qualname)
    return fingerprint(located, 'ts2')


def body(code: str) -> str:
    """`code` (one line per statement, `|` for a newline) as the body of `f`."""
    return 'def f(a, b, x):\n' + ''.join(f'    {line}\n' for line in code.split('|'))


# (id, one, other): same meaning, different spelling
EQUAL = (
    ('quotes', body("return 'a'"), body('return "a"')),
    ('triple-quotes', body("return 'a'"), body("return '''a'''")),
    ('hex-escape', body("return 'a'"), body(r"return '\x61'")),
    ('unicode-escape', body("return 'é'"), body(r"return '\u00e9'")),
    ('named-escape', body("return '-'"), body(r"return '\N{HYPHEN-MINUS}'")),
    ('escaped-quote', body("""return 'it\\'s'"""), body('''return "it's"''')),
    ('u-prefix', body("return 'a'"), body("return u'a'")),
    ('prefix-case', body("return rb'a'"), body("return Br'a'")),
    ('raw-without-escapes', body("return 'a b'"), body("return r'a b'")),
    ('adjacent-literals-joined', body("return 'ab'"), body("return 'a' 'b'")),
    (
        'adjacent-literals-wrapped',
        body("return 'ab'"),
        body("return (|        'a'|        'b'|    )"),
    ),
    ('adjacent-bytes-joined', body("return b'ab'"), body("return b'a' b'b'")),
    ('fstring-hole-spacing', body("return f'{x}'"), body("return f'{ x }'")),
    ('fstring-quotes', body("return f'{x!r:>8}'"), body('return f"{x!r:>8}"')),
    ('fstring-nested-quotes', body("""return f"{a['k']}\""""), body("""return f'{a["k"]}'""")),
    ('fstring-hole-expression-format', body("return f'{a+b}'"), body("return f'{a + b}'")),
    ('fstring-without-holes', body("return f'ab'"), body("return 'ab'")),
    ('fstring-joined-with-literal', body("return f'a{x}b'"), body("return 'a' f'{x}' 'b'")),
    ('fstring-doubled-braces', body("return f'{{a}}'"), body("return '{a}'")),
    (
        'docstring-indentation',
        'def f():\n    """Line one.\n\n    Line two.\n    """\n',
        'def f():\n  """Line one.\n\n  Line two.\n  """\n',
    ),
    (
        'docstring-trailing-spaces',
        'def f():\n    """Line one.   \n    Line two.\n    """\n',
        'def f():\n    """Line one.\n    Line two.\n    """\n',
    ),
    ('docstring-one-line-spaces', 'def f():\n    """  Done.  """\n', "def f():\n    '''Done.'''\n"),
    (
        'number-spelling',
        body('return 0XFF + 1E5 + 10_000 + 1J'),
        body('return 0xff + 1e5 + 10000 + 1j'),
    ),
    ('number-float-zeros', body('return 1.50'), body('return 1.5')),
    ('trailing-comma-call', body('return g(a, b,)'), body('return g(a, b)')),
    ('trailing-comma-params', 'def f(a, b,):\n    pass\n', 'def f(a, b):\n    pass\n'),
    ('trailing-comma-list', body('return [a, b,]'), body('return [a, b]')),
    ('trailing-comma-dict', body("return {'a': a,}"), body("return {'a': a}")),
    ('trailing-comma-tuple', body('return (a, b,)'), body('return (a, b)')),
    ('trailing-comma-subscript', body('return x[a, b,]'), body('return x[a, b]')),
    ('trailing-comma-import', body('from m import (a, b,)'), body('from m import a, b')),
    ('grouping-parens', body('return (a < b)'), body('return a < b')),
    ('nested-parens', body('return ((a))'), body('return a')),
    ('parens-in-if', body('if (a):|    pass'), body('if a:|    pass')),
    ('parens-in-call-argument', body('return g((a))'), body('return g(a)')),
    ('parens-kept-by-precedence', body('return (a + b) * x'), body('return ((a + b)) * (x)')),
    ('tuple-parens-return', body('return (a, b)'), body('return a, b')),
    ('tuple-parens-one-element', body('return (a,)'), body('return a,')),
    ('tuple-parens-for-target', body('for (a, b) in x:|    pass'), body('for a, b in x:|    pass')),
    ('tuple-parens-assignment', body('(a, b) = x'), body('a, b = x')),
    ('with-parens', body('with (g() as y, h()):|    pass'), body('with g() as y, h():|    pass')),
    (
        'class-empty-parens',
        'class K():\n    def f(self):\n        pass\n',
        'class K:\n    def f(self):\n        pass\n',
    ),
    ('line-continuation', body('return a + \\|        b'), body('return a + b')),
    ('comment-with-meaning-ignored', body('return g(a)  # type: ignore'), body('return g(a)')),
)

# (id, one, other): a near miss that changes the meaning
DIFFERENT = (
    ('raw-vs-escaped', body(r"return '\n'"), body(r"return r'\n'")),
    ('bytes-vs-text', body("return b'a'"), body("return 'a'")),
    ('string-value', body("return 'a'"), body("return 'b'")),
    ('string-whitespace', body("return 'a b'"), body("return 'a  b'")),
    ('string-case', body("return 'a'"), body("return 'A'")),
    ('adjacent-literals-vs-one-missing-space', body("return 'a' 'b'"), body("return 'a b'")),
    ('fstring-hole-vs-text', body("return f'{x}'"), body("return '{x}'")),
    ('fstring-debug-spacing', body("return f'{x=}'"), body("return f'{x = }'")),
    ('fstring-debug-vs-plain', body("return f'{x=}'"), body("return f'{x}'")),
    ('fstring-conversion', body("return f'{x!r}'"), body("return f'{x!s}'")),
    ('fstring-format-spec', body("return f'{x:>8}'"), body("return f'{x: >8}'")),
    ('fstring-hole-expression', body("return f'{a}'"), body("return f'{b}'")),
    ('template-vs-fstring', body("return t'{x}'"), body("return f'{x}'")),
    ('docstring-text', 'def f():\n    """Line one."""\n', 'def f():\n    """Line 1."""\n'),
    (
        'docstring-relative-indent',
        'def f():\n    """A.\n\n    B.\n    C.\n    """\n',
        'def f():\n    """A.\n\n      B.\n    C.\n    """\n',
    ),
    (
        'multiline-string-not-a-docstring',
        body('x = """a|    b"""|return x'),
        body('x = """a|  b"""|return x'),
    ),
    ('number-value', body('return 0xff'), body('return 0xfe')),
    ('int-vs-float', body('return 1'), body('return 1.0')),
    ('one-element-tuple', body('return (a,)'), body('return (a)')),
    ('one-element-tuple-bare', body('return a,'), body('return a')),
    ('one-element-subscript-tuple', body('return x[a,]'), body('return x[a]')),
    ('tuple-argument', body('return g((a, b))'), body('return g(a, b)')),
    ('list-of-tuple', body('return [(a, b)]'), body('return [a, b]')),
    ('precedence', body('return (a + b) * x'), body('return a + b * x')),
    ('unary-precedence', body('return (-a) ** 2'), body('return -a ** 2')),
    ('generator-vs-list', body('return g(y for y in x)'), body('return g([y for y in x])')),
    ('operator', body('return a < b'), body('return a <= b')),
    ('order', body('return g(a, b)'), body('return g(b, a)')),
    ('decorator', 'def f():\n    pass\n', '@cache\ndef f():\n    pass\n'),
    ('annotation', 'def f(a: int):\n    pass\n', 'def f(a: str):\n    pass\n'),
    (
        'class-bases',
        'class K:\n    def f(self):\n        pass\n',
        'class K(Base):\n    def f(self):\n        pass\n',
    ),
    (
        'class-decorator',
        'class K:\n    def f(self):\n        pass\n',
        '@dataclass\nclass K:\n    def f(self):\n        pass\n',
    ),
)


@pytest.mark.parametrize(('one', 'other'), [r[1:] for r in EQUAL], ids=[r[0] for r in EQUAL])
def test_same_meaning_same_fingerprint(one, other):
    assert one != other
    qualname = 'K.f' if 'class K' in one else 'f'
    assert fp(one, qualname) == fp(other, qualname)


@pytest.mark.parametrize(
    ('one', 'other'), [r[1:] for r in DIFFERENT], ids=[r[0] for r in DIFFERENT]
)
def test_near_miss_changes_the_fingerprint(one, other):
    qualname = 'K.f' if 'class K' in one else 'f'
    assert fp(one, qualname) != fp(other, qualname)


DEF = 'def f(a):\n    return a + 1\n'


def indent(code: str) -> str:
    return ''.join('    ' + line + '\n' for line in code.splitlines())


# (id, source holding `f` somewhere): where the definition lives
CONTEXT_SAME = (
    ('moved-to-the-end', 'x = 1\n\n\ndef g():\n    pass\n\n\n' + DEF),
    ('after-a-dead-branch', 'if False:\n    pass\n\n\n' + DEF),
    ('after-a-class', 'class K:\n    pass\n\n\n' + DEF),
)
CONTEXT_DIFFERENT = (
    ('under-if-false', 'if False:\n' + indent(DEF)),
    ('under-if-true', 'if True:\n' + indent(DEF)),
    ('under-else', 'if x:\n    pass\nelse:\n' + indent(DEF)),
    ('under-elif', 'if x:\n    pass\nelif y:\n' + indent(DEF)),
    ('under-try', 'try:\n' + indent(DEF) + 'except ImportError:\n    pass\n'),
    ('under-except', 'try:\n    import m\nexcept ImportError:\n' + indent(DEF)),
    ('under-while', 'while x:\n' + indent(DEF)),
    ('under-with', 'with x:\n' + indent(DEF)),
)


@pytest.mark.parametrize('source', [r[1] for r in CONTEXT_SAME], ids=[r[0] for r in CONTEXT_SAME])
def test_moving_a_definition_within_the_file_keeps_the_fingerprint(source):
    assert fp(source) == fp(DEF)


@pytest.mark.parametrize(
    'source', [r[1] for r in CONTEXT_DIFFERENT], ids=[r[0] for r in CONTEXT_DIFFERENT]
)
def test_moving_a_definition_under_control_flow_changes_the_fingerprint(source):
    assert fp(source) != fp(DEF)


def test_the_condition_and_the_branch_of_the_context_count():
    under = {name: fp(source) for name, source in CONTEXT_DIFFERENT}
    assert len(set(under.values())) == len(under)
    then_branch = 'if x:\n' + indent(DEF) + 'else:\n    pass\n'
    else_branch = 'if x:\n    pass\nelse:\n' + indent(DEF)
    assert fp(then_branch) != fp(else_branch)
    # What other branches hold is not the definition's context.
    assert fp(else_branch) == fp(else_branch.replace('    pass\n', '    y = 2\n', 1))


def test_a_method_counts_its_class_header_but_not_its_siblings():
    source = (
        'class K(Base):\n    def g(self):\n        pass\n\n    def f(self):\n        return 1\n'
    )
    assert fp(source, 'K.f') == fp(source.replace('        pass', '        return 2'), 'K.f')
    assert fp(source, 'K.f') != fp(source.replace('K(Base)', 'K(Other)'), 'K.f')
