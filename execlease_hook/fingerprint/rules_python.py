"""ts2 rules for Python (what black and ruff format may change, and what they may not)."""

from __future__ import annotations

from execlease_hook.fingerprint import ts2
from execlease_hook.fingerprint.literals import escapes, split_at
from execlease_hook.fingerprint.ts2 import Item, Node
from execlease_hook.locate.definition import is_a

# str literals; bytes literals have no \N, \u, \U.
_str = escapes(
    r'\\(N\{[^}]*\}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|x[0-9a-fA-F]{2}|[0-7]{1,3}|.)',
    'abfnrtv\\\'"\n',
    octal=True,
)
_bytes = escapes(r'\\(x[0-9a-fA-F]{2}|[0-7]{1,3}|.)', 'abfnrtv\\\'"\n', octal=True)
_STRING_STOPS = frozenset({'interpolation', 'string_end'})
_FORMAT_EXPRESSION = frozenset({'format_expression'})
_ONE_ELEMENT_IS_A_TUPLE = frozenset(
    {'tuple', 'expression_list', 'pattern_list', 'tuple_pattern', 'subscript'}
)


def _string_parts(node: Node) -> tuple[bytes, list[str | list[Item]]] | None:
    """(kind, parts) of one `string` node: b's' text, b'b' bytes, b't' template string."""
    children = node.children
    if len(children) < 2 or children[0].type != 'string_start' or children[-1].type != 'string_end':
        return None
    start = ts2.text(children[0])
    prefix = start.rstrip('\'"').lower()
    kind = b'b' if 'b' in prefix else b't' if 't' in prefix else b's'
    formatted = 'f' in prefix or 't' in prefix
    raw = 'r' in prefix
    decode = (lambda s: s) if raw else _bytes if kind == b'b' else _str
    parts: list[str | list[Item]] = []
    for piece, child in split_at(node, children[0].end_byte, _STRING_STOPS):
        text = piece.decode('utf-8').replace('\r\n', '\n')
        if formatted:
            text = text.replace('{{', '{').replace('}}', '}')
        if text:
            parts.append(decode(text))
        if is_a(child, 'interpolation'):
            parts.append(_hole(child))
    return kind, parts


def _hole(node: Node) -> list[Item]:
    """`{x!r:>8}`: the expression as code; `{x = }` prints its own text, so it is kept as written."""
    if any(c.type == '=' for c in node.children):
        return [ts2.field(b'=', (node.text or b'').replace(b'\r\n', b'\n'))]
    out: list[Item] = []
    for child in node.children:
        if child.type in ('{', '}') or 'comment' in child.type:
            continue
        if child.type == 'type_conversion':
            out.append(ts2.field(b'!', child.text or b''))
        elif child.type == 'format_specifier':
            out.append(b':')
            out.extend(_format_spec(child))
        else:
            out.append(child)
    return out


def _format_spec(node: Node) -> list[Item]:
    out: list[Item] = []
    for text, child in split_at(node, node.start_byte + 1, _FORMAT_EXPRESSION):  # after ':'
        out.append(ts2.field(b'"', text))
        if child is not None:
            out += [b'{', *(c for c in child.children if c.type not in ('{', '}')), b'}']
    return out


def _is_docstring(node: Node, parent: Node | None) -> bool:
    statement = ts2.up(node, parent)
    if not is_a(statement, 'expression_statement') or len(ts2.named(statement)) != 1:
        return False
    body = statement.parent
    if not is_a(body, 'module') and not (
        is_a(body, 'block') and is_a(body.parent, 'function_definition', 'class_definition')
    ):
        return False
    first = ts2.named(body)
    return bool(first) and first[0].start_byte == statement.start_byte


def _docstring(doc: str) -> str:
    """What black and ruff may change in a docstring does not count: the indentation common to
    its lines (as `inspect.cleandoc`, and as Python 3.13 stores it), spaces at line ends, blank
    lines at either end, spaces around a one-line docstring."""
    lines = doc.expandtabs().split('\n')
    rest = [line for line in lines[1:] if line.strip()]
    indent = min((len(line) - len(line.lstrip()) for line in rest), default=0)
    cleaned = [lines[0].strip()] + [line[indent:].rstrip() for line in lines[1:]]
    return '\n'.join(cleaned).strip('\n')  # blank lines at either end are empty strings


def string(node: Node, parent: Node | None) -> list[Item] | None:
    found = _string_parts(node)
    if found is None:
        return None
    kind, parts = found
    if (
        kind == b's'
        and len(parts) <= 1
        and all(isinstance(p, str) for p in parts)
        and _is_docstring(node, parent)
    ):
        return ts2.value(b'd', [_docstring(''.join(p for p in parts if isinstance(p, str)))])
    return ts2.value(kind, parts)


def concatenated_string(node: Node, parent: Node | None) -> list[Item] | None:
    """Adjacent literals are one value (`'a' 'b'` is `'ab'`), as the compiler joins them."""
    found = [_string_parts(c) if c.type == 'string' else None for c in ts2.named(node)]
    kinds = {literal[0] for literal in found if literal is not None}
    if None in found or len(kinds) != 1:
        return None
    return ts2.value(kinds.pop(), [part for literal in found if literal for part in literal[1]])


def number(node: Node, parent: Node | None) -> list[Item] | None:
    text = ts2.text(node).replace('_', '')
    try:
        if text[-1] in 'jJ':
            found = repr(complex(0, float(text[:-1])))
        elif text[:2].lower() in ('0x', '0o', '0b') or not any(c in text for c in '.eE'):
            found = f'i{int(text, 0)}'
        else:
            found = f'f{float(text)!r}'
    except ValueError:
        return None
    return [ts2.field(b'#', found.encode())]


def comma(token: Node, parent: Node, siblings: list[Node], index: int) -> bool:
    if not ts2.trailing_comma(token, parent, siblings, index):
        return False
    if parent.type in _ONE_ELEMENT_IS_A_TUPLE:
        elements = ts2.named(parent)
        if parent.type == 'subscript':
            elements = elements[1:]  # the subscripted value
        return len(elements) > 1  # `(a,)` and `x[a,]` are tuples; `(a)` and `x[a]` are not
    return True


def parenthesis(token: Node, parent: Node, siblings: list[Node], index: int) -> bool:
    """`from m import (a, b)`, `with (a, b):` and `(a, b)` group without meaning (a tuple is its
    commas: `(a,)` keeps its comma, `(a)` has no tuple node)."""
    return parent.type in ('import_from_statement', 'with_clause', 'tuple', 'tuple_pattern')


HANDLERS = {
    'string': string,
    'concatenated_string': concatenated_string,
    'parenthesized_expression': ts2.unwrap_single,
    'integer': number,
    'float': number,
    'argument_list': ts2.nothing_in(frozenset({'class_definition'})),  # `class A():` is `class A:`
}
DROPS = {
    ',': comma,
    ';': ts2.always,  # `a; b` is two statements, as on two lines
    '(': parenthesis,
    ')': parenthesis,
}
# `(a, b)` and `a, b` are the same tuple wherever both are allowed (black adds and removes the
# parentheses when it wraps a line); a one-element tuple keeps its comma either way.
ALIASES = {
    'tuple': 'expression_list',
    'tuple_pattern': 'pattern_list',
}
SCOPES = frozenset({'function_definition', 'lambda'})
CONTEXT = frozenset(
    {
        'if_statement',
        'elif_clause',
        'else_clause',
        'try_statement',
        'except_clause',
        'except_group_clause',
        'finally_clause',
        'with_statement',
        'for_statement',
        'while_statement',
        'match_statement',
        'case_clause',
        'class_definition',
        'decorated_definition',
    }
)
BODIES = frozenset({'block'})
