"""ts2 rules for Go (what gofmt, and gofmt -s, may change, and what they may not).

Go declares functions only at the top level, so a covered Go function has no enclosing
control flow.
"""

from __future__ import annotations

from execlease_hook.fingerprint import ts2
from execlease_hook.fingerprint.literals import byte_escapes
from execlease_hook.fingerprint.ts2 import Item, Node
from execlease_hook.locate.definition import is_a, same, squeezed

# \x and octal escapes are single bytes, so Go values are bytes.
_decode = byte_escapes(
    r'\\(U[0-9a-fA-F]{8}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|[0-7]{3}|.)', 'abfnrtv\\\'"'
)
_HEADERS = frozenset(
    {'for_clause', 'if_statement', 'expression_switch_statement', 'type_switch_statement'}
)
_SEQUENCES = frozenset({'slice_type', 'array_type', 'implicit_length_array_type'})


def interpreted_string(node: Node, parent: Node | None) -> list[Item] | None:
    raw = ts2.text(node)
    return ts2.value(b'b', [_decode(raw[1:-1]).decode('utf-8', 'surrogateescape')])


def raw_string(node: Node, parent: Node | None) -> list[Item] | None:
    """Go drops carriage returns from raw strings."""
    return ts2.value(b'b', [ts2.text(node)[1:-1].replace('\r', '')])


def rune(node: Node, parent: Node | None) -> list[Item] | None:
    decoded = _decode(ts2.text(node)[1:-1].replace("\\'", "'"))
    try:
        chars = decoded.decode('utf-8')
    except UnicodeDecodeError:
        chars = ''
    code = ord(chars) if len(chars) == 1 else decoded[0] if len(decoded) == 1 else None
    return None if code is None else [ts2.field(b'#r', str(code).encode())]


def number(node: Node, parent: Node | None) -> list[Item] | None:
    text = ts2.text(node).replace('_', '')
    if node.type != 'int_literal':
        found = f'{node.type[0]}{text.lower()}'
    else:
        try:
            octal = len(text) > 1 and text[0] == '0' and text[1].isdigit()
            found = f'i{int(text, 8 if octal else 0)}'
        except ValueError:
            return None
    return [ts2.field(b'#', found.encode())]


def semicolon(token: Node, parent: Node, siblings: list[Node], index: int) -> bool:
    """gofmt removes the `;` that ends a statement; the ones in `for` and `if x := f(); x` stay."""
    return parent.type not in _HEADERS


def _element_type(element: Node) -> Node | None:
    """The type an element of a composite literal has: a slice's, array's or map's element or key,
    of the literal's type as written on it or as elided (gofmt -s) on an outer literal's."""
    holder = element.parent
    is_key = False
    if is_a(holder, 'keyed_element'):
        is_key = ts2.named(holder)[0].start_byte == element.start_byte
        holder = holder.parent
    literal = holder.parent if is_a(holder, 'literal_value') else None
    if literal is None:
        return None
    if literal.type == 'composite_literal':
        kind = literal.child_by_field_name('type')
    else:
        kind = _element_type(literal) if literal.type == 'literal_element' else None
    if kind is None:
        return None
    if kind.type in _SEQUENCES:
        return kind.child_by_field_name('element')
    if kind.type == 'map_type':
        return kind.child_by_field_name('key' if is_key else 'value')
    return None


def _elided(element: Node | None, literal: Node | None, pointer: str) -> list[Item] | None:
    """The body of the composite `literal` written as `element`, when the element has its type
    anyway (gofmt -s elides it): `pointer` is `*` for a `&T{...}` element of a `[]*T`."""
    if not is_a(element, 'literal_element') or not is_a(literal, 'composite_literal'):
        return None
    expected = _element_type(element)
    body = literal.child_by_field_name('body')
    written = squeezed(literal.child_by_field_name('type'))
    if expected is None or body is None or squeezed(expected) != pointer + written:
        return None
    return [body]


def composite_literal(node: Node, parent: Node | None) -> list[Item] | None:
    """`[]T{T{1}}` is `[]T{{1}}`."""
    return _elided(ts2.up(node, parent), node, '')


def unary_expression(node: Node, parent: Node | None) -> list[Item] | None:
    """`[]*T{&T{1}}` is `[]*T{{1}}`."""
    if ts2.text(node.child_by_field_name('operator')) != '&':
        return None
    return _elided(ts2.up(node, parent), node.child_by_field_name('operand'), '*')


def slice_expression(node: Node, parent: Node | None) -> list[Item] | None:
    """`s[a:len(s)]` is `s[a:]` (gofmt -s)."""
    operand, end = node.child_by_field_name('operand'), node.child_by_field_name('end')
    if not is_a(end, 'call_expression') or ts2.text(end.child_by_field_name('function')) != 'len':
        return None
    args = end.child_by_field_name('arguments')
    inner = ts2.named(args) if args is not None else []
    if len(inner) != 1 or squeezed(inner[0]) != squeezed(operand):
        return None
    if node.child_by_field_name('capacity') is not None:
        return None
    return [ts2.marker(node), *(c for c in node.children if not same(c, end)), b')']


def range_clause(node: Node, parent: Node | None) -> list[Item] | None:
    """`for x, _ = range v` is `for x = range v`, and `for _ = range v` is `for range v` (gofmt -s)."""
    left = node.child_by_field_name('left')
    if left is None:
        return None
    names = ts2.named(left)
    kept = list(names)
    while kept and ts2.text(kept[-1]) == '_':
        kept.pop()
    if len(kept) == len(names):
        return None
    out: list[Item] = [ts2.marker(node)]
    if kept:
        out.append(ts2.marker(left))
        out.extend(c for c in left.children if c.end_byte <= kept[-1].end_byte)
        out.append(b')')
    for child in node.children:
        if child.start_byte >= left.end_byte and (kept or child.type not in ('=', ':=')):
            out.append(child)
    out.append(b')')
    return out


HANDLERS = {
    'interpreted_string_literal': interpreted_string,
    'raw_string_literal': raw_string,
    'rune_literal': rune,
    'int_literal': number,
    'float_literal': number,
    'imaginary_literal': number,
    'parenthesized_expression': ts2.unwrap_single,
    'composite_literal': composite_literal,
    'unary_expression': unary_expression,
    'slice_expression': slice_expression,
    'range_clause': range_clause,
}
DROPS = {
    ';': semicolon,
    ',': ts2.trailing_comma,
}
SCOPES = frozenset({'function_declaration', 'method_declaration', 'func_literal'})
CONTEXT: frozenset[str] = frozenset()
BODIES: frozenset[str] = frozenset()
