"""ts2 rules for Zig (what `zig fmt` may change, and what it may not).

Zig strings are bytes: `"\\xc3\\xa9"` is `"é"`, and a `\\\\` multiline string is the string of its
lines. Integer literals are comptime integers, so `0x1F`, `0o37`, `31` and `3_1` are one value;
a float keeps its exact decimal value (`1.5e3` is `1500.0`). A trailing comma only tells
`zig fmt` to lay a list out one item a line.
"""

from __future__ import annotations

from fractions import Fraction

from execlease_hook.fingerprint import literals, ts2
from execlease_hook.fingerprint.ts2 import Item, Node
from execlease_hook.locate.zig import CONTAINERS

decode = literals.byte_escapes(r'\\(x[0-9a-fA-F]{2}|u\{[0-9a-fA-F]+\}|.)', 'nrt\\\'"')


def _quoted(quote: str, shortest: int, tag: bytes) -> ts2.Handler:
    """The handler of a `"..."` string or a `'x'` character: its escapes decoded."""

    def handler(node: Node, parent: Node | None) -> list[Item] | None:
        raw = ts2.text(node)
        if len(raw) < shortest or raw[0] != quote or raw[-1] != quote:
            return None
        return ts2.value(tag, [decode(raw[1:-1]).decode('utf-8', 'surrogateescape')])

    return handler


string = _quoted('"', 2, b'b')
character = _quoted("'", 3, b'c')


def multiline_string(node: Node, parent: Node | None) -> list[Item] | None:
    """`\\\\a` then `\\\\b` on the next line is `"a\\nb"`: each line after its `\\\\`, no escapes."""
    # trailing spaces count
    lines = [line.lstrip(' \t').removesuffix('\r') for line in ts2.text(node).split('\n')]
    if not all(line.startswith('\\\\') for line in lines):
        return None
    return ts2.value(b'b', ['\n'.join(line[2:] for line in lines)])


def integer(node: Node, parent: Node | None) -> list[Item] | None:
    digits = ts2.text(node).replace('_', '').lower()
    try:
        number = int(digits, 0) if digits[:2] in ('0x', '0o', '0b') else int(digits, 10)
    except ValueError:
        return None
    return [ts2.field(b'#i', str(number).encode())]


def float_(node: Node, parent: Node | None) -> list[Item] | None:
    digits = ts2.text(node).replace('_', '').lower()
    if digits.startswith('0x'):
        return [ts2.field(b'#x', digits.encode())]  # hex floats as written (lower case)
    try:
        exact = Fraction(digits)
    except ValueError:
        return None
    return [ts2.field(b'#f', f'{exact.numerator}/{exact.denominator}'.encode())]


HANDLERS = {
    'string': string,
    'multiline_string': multiline_string,
    'character': character,
    'integer': integer,
    'float': float_,
    'parenthesized_expression': ts2.unwrap_unless_callee,
}
DROPS = {
    ',': ts2.trailing_comma,
}
SCOPES = frozenset({'function_declaration'})
CONTEXT = CONTAINERS | frozenset(
    {
        'variable_declaration',
        'if_statement',
        'else_clause',
        'switch_case',
        'for_statement',
        'while_statement',
    }
)
BODIES = frozenset({'block', 'block_expression', 'expression_statement'})  # `else return x;` too
BESIDE = CONTAINERS
