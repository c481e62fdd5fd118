"""ts2 rules for C (what clang-format may change, and what it may not); C++ extends them
(rules_cpp.py).

Preprocessor conditionals are control flow: a definition under `#if 0`, `#ifdef X` or in an
`#else` has that directive, its condition and the branch as context; what the other branches
hold does not count.
"""

from __future__ import annotations

import re

from execlease_hook.fingerprint import literals, ts2
from execlease_hook.fingerprint.ts2 import Item, Node

# C escapes; \x takes every hex digit that follows, octal up to three digits.
_ESCAPE = re.compile(r'\\(x[0-9a-fA-F]+|[0-7]{1,3}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)', re.S)
_SIMPLE = {k: ord(v) for k, v in literals.simple('abfnrtv\\\'"').items()} | {'e': 27, '?': 63}


def decode(body: str, prefix: str) -> str:
    """The value of a string or character literal's body: bytes for `""` and `u8""` (as
    surrogate escapes, so `"\\xc3\\xa9"` is `"é"`), code units for `L""`, `u""`, `U""`."""
    body = body.replace('\\\r\n', '').replace('\\\n', '')  # line splices come before escapes
    wide = prefix in ('L', 'u', 'U')
    if '\\' not in body:
        return body

    def replace(match: re.Match[str]) -> str:
        escape = match.group(1)
        code = _SIMPLE.get(escape)
        if escape[0] == 'x':
            code = int(escape[1:], 16)
        elif escape[0] in '01234567':
            code = int(escape, 8)
        elif escape[0] in 'uU' and len(escape) > 1:
            # a surrogate or beyond Unicode is not a character: as written
            point = int(escape[1:], 16)
            return chr(point) if point < 0x110000 and not 0xD800 <= point < 0xE000 else match[0]
        if code is None:
            return match[0]  # not a C escape: kept as written
        if wide or code < 0x80:
            return chr(code) if code < 0x110000 else match[0]
        return bytes([code & 0xFF]).decode('utf-8', 'surrogateescape')

    joined = _ESCAPE.sub(replace, body)
    if wide:
        return joined
    # Join escaped bytes with the characters around them: "\xc3\xa9" is the UTF-8 of "é".
    return joined.encode('utf-8', 'surrogateescape').decode('utf-8', 'surrogateescape')


def _literal(node: Node) -> tuple[str, str] | None:
    """(prefix, value) of a string, character or C++ raw string literal (`R"x(a)x"` is `"a"`,
    `u8R"(a)"` is `u8"a"`); None when it is not whole."""
    raw = ts2.text(node)
    if node.type == 'raw_string_literal':
        start, open_ = raw.find('"'), raw.find('(')
        closing = ')' + raw[start + 1 : open_] + '"'
        if start < 0 or open_ < start or not raw.endswith(closing):
            return None
        return raw[:start].rstrip('R'), raw[open_ + 1 : len(raw) - len(closing)]
    quote = "'" if node.type == 'char_literal' else '"'
    at = raw.find(quote)
    if at < 0 or not raw.endswith(quote) or len(raw) < at + 2:
        return None
    return raw[:at], decode(raw[at + 1 : -1], raw[:at])


def literal(node: Node, parent: Node | None) -> list[Item] | None:
    found = _literal(node)
    if found is None:
        return None
    quote = b"'" if node.type == 'char_literal' else b'"'
    return ts2.value(quote + found[0].encode(), [found[1]])


def concatenated_string(node: Node, parent: Node | None) -> list[Item] | None:
    """`"a" "b"` is `"ab"` (the pieces are joined before the program runs); a macro between
    pieces (`"id=" PRId64`) is a hole hashed as code. The prefix of any piece is the whole's."""
    prefix = ''
    parts: list[str | list[Item]] = []
    for child in ts2.named(node):
        found = _literal(child) if child.type in ('string_literal', 'raw_string_literal') else None
        if found is None:
            parts.append([child])
            continue
        prefix = prefix or found[0]
        parts.append(found[1])
    return ts2.value(b'"' + prefix.encode(), parts)


def number_literal(node: Node, parent: Node | None) -> list[Item] | None:
    """`0X1F` is `0x1f`, `10UL` is `10ul`, `1'000` is `1000`; a base is never converted (0x10 and
    16 can differ in type)."""
    return [ts2.field(b'#', ts2.text(node).replace("'", '').lower().encode())]


# The statements whose body may be braced or not: clang-format's InsertBraces and RemoveBracesLLVM
# (C++'s context too: rules_cpp).
BRACEABLE = frozenset(
    {
        'if_statement',
        'else_clause',
        'while_statement',
        'for_statement',
        'do_statement',
        'for_range_loop',
    }
)
_NOT_ALONE = frozenset({'declaration', 'labeled_statement'})


def _alone(statement: Node) -> bool:
    return statement.type not in _NOT_ALONE and not statement.type.startswith('preproc')


_STATEMENT_LISTS = frozenset(
    {'compound_statement', 'translation_unit', 'declaration_list', 'field_declaration_list'}
)


def directive(node: Node, parent: Node | None) -> list[Item] | None:
    """`#  define` and `# if` (clang-format's IndentPPDirectives) are `#define` and `#if`."""
    return [
        ts2.marker(node),
        ts2.field(b'"', ''.join(ts2.text(node).split()).encode()) + b')',
    ]


_TOKEN = re.compile(
    r"""(?P<skip>(?:\s|\\\n|\\\r\n)+|/\*.*?\*/|//[^\n]*)"""
    r"""|(?:u8|[uUL])?"(?:\\.|[^"\\\n])*"|(?:u8|[uUL])?'(?:\\.|[^'\\\n])*\'"""
    r"""|\.?[0-9](?:[eEpP][+-]|[\w.'])*|\w+"""
    r"""|%:%:|##|<<=|>>=|<=>|->\*|\.\.\.|::|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^]=|.""",
    re.S,
)


def preproc_arg(node: Node, parent: Node | None) -> list[Item] | None:
    """A macro body token by token: its spacing, line splices and comments never count."""
    tokens = [m.group(0) for m in _TOKEN.finditer(ts2.text(node)) if m.group('skip') is None]
    return [ts2.marker(node), ts2.field(b'"', '\0'.join(tokens).encode()) + b')']


def stray_semicolon(token: Node, parent: Node, siblings: list[Node], index: int) -> bool:
    """`void f() {};`: the `;` after a function body (clang-format's RemoveSemicolon)."""
    if parent.type not in _STATEMENT_LISTS or parent.type == 'compound_statement':
        return False
    before = ts2.prev_token(siblings, index)
    return before is not None and before.type == 'function_definition'


def comma(token: Node, parent: Node, siblings: list[Node], index: int) -> bool:
    """`{1, 2,}` and `enum {A, B,}`; elsewhere (a macro's arguments) a comma before `)` counts."""
    return parent.type in ('initializer_list', 'enumerator_list') and ts2.trailing_comma(
        token, parent, siblings, index
    )


DIRECTIVES = (
    '#define',
    '#if',
    '#ifdef',
    '#ifndef',
    '#elif',
    '#elifdef',
    '#elifndef',
    '#else',
    '#endif',
    '#include',
    'preproc_directive',
)
HANDLERS = {
    'string_literal': literal,
    'char_literal': literal,
    'concatenated_string': concatenated_string,
    'number_literal': number_literal,
    'parenthesized_expression': ts2.unwrap_unless_callee,
    # clang-format's InsertBraces and RemoveBracesLLVM
    'compound_statement': ts2.unbraced(BRACEABLE, _alone),
    # An empty statement (`;;`) among statements means nothing; `if (a) ;` keeps its `;`.
    'expression_statement': ts2.nothing_in(_STATEMENT_LISTS),
    'preproc_arg': preproc_arg,
    **{kind: directive for kind in DIRECTIVES},
}
DROPS = {
    ',': comma,
    ';': stray_semicolon,
}
SCOPES = frozenset({'function_definition'})
PREPROCESSOR = frozenset(
    {'preproc_if', 'preproc_ifdef', 'preproc_else', 'preproc_elif', 'preproc_elifdef'}
)
CONTEXT = PREPROCESSOR
BODIES = frozenset({'compound_statement'})
BESIDE = PREPROCESSOR
