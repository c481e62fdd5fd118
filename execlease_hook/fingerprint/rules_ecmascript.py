"""ts2 rules for JavaScript, TypeScript and TSX (what prettier may change, and what it may not).

It is kept whole: the three grammars share their node kinds, so one table serves them all."""

from __future__ import annotations

import re

from execlease_hook.fingerprint import ts1, ts2
from execlease_hook.fingerprint.literals import escapes, split_at
from execlease_hook.fingerprint.ts2 import Item, Node
from execlease_hook.locate.definition import is_a, same

# Any other escaped character stands for itself.
_escaped = escapes(
    r'\\(u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|0(?![0-9])|[0-7]{1,3}|.)',
    'bfnrtv0\\\'"`$\n',
    octal=True,
    others_as_is=True,
)
_LINE_CONTINUATION = re.compile('\\\\(\u2028|\u2029)')
_KEY_OWNERS = frozenset(
    {
        'pair',
        'pair_pattern',
        'method_definition',
        'method_signature',
        'abstract_method_signature',
        'public_field_definition',
        'field_definition',
        'property_signature',
    }
)
_DECLARATIONS = frozenset(
    {
        'lexical_declaration',
        'function_declaration',
        'generator_function_declaration',
        'class_declaration',
        'abstract_class_declaration',
        'interface_declaration',
        'type_alias_declaration',
        'enum_declaration',
        'using_declaration',
    }
)
_BODY_OWNERS = frozenset(
    {
        'if_statement',
        'else_clause',
        'for_statement',
        'for_in_statement',
        'while_statement',
        'do_statement',
        'with_statement',
    }
)
_STATEMENT_LISTS = frozenset(
    {'program', 'statement_block', 'class_body', 'switch_case', 'switch_default'}
)
_SEPARATED_TYPES = frozenset({'object_type', 'interface_body'})
_TEMPLATE_STOPS = frozenset({'template_substitution', '`'})


def _decode(text: str) -> str:
    """A string's value; JavaScript strings are UTF-16: `\\uD83D\\uDE00` is the same string as
    the emoji."""
    if '\\' not in text:
        return text
    value = _escaped(_LINE_CONTINUATION.sub('', text))
    if not any('\ud800' <= c <= '\udfff' for c in value):
        return value
    return value.encode('utf-16-le', 'surrogatepass').decode('utf-16-le', 'surrogatepass')


def _content(node: Node) -> str:
    raw = ts2.text(node)
    return raw[1:-1] if len(raw) >= 2 else ''


def _is_key(node: Node, parent: Node | None) -> bool:
    if parent is None or parent.type not in _KEY_OWNERS:
        return False
    for name in ('key', 'name', 'property'):
        child = parent.child_by_field_name(name)
        if child is not None:
            return same(child, node)
    return False


def _key(name: str) -> list[Item]:
    """`{'a': 1}`, `{"a": 1}` and `{a: 1}` name the same property."""
    return ts2.leaf('property_identifier', ts2.encode(name))


def string(node: Node, parent: Node | None) -> list[Item] | None:
    parent = ts2.up(node, parent)
    if is_a(parent, 'jsx_attribute'):
        return ts2.value(b's', [_content(node)])  # JSX attribute strings have no escapes
    decoded = _decode(_content(node))
    if _is_key(node, parent):
        return _key(decoded)
    return ts2.value(b's', [decoded])


def number(node: Node, parent: Node | None) -> list[Item] | None:
    text = ts2.text(node).replace('_', '')
    try:
        if text.endswith('n'):
            found = f'n{int(text[:-1], 0)}'
        elif text[:2].lower() in ('0x', '0o', '0b'):
            found = f'f{float(int(text.lower(), 0))!r}'
        # legacy octal (or decimal with 8/9)
        elif len(text) > 1 and text[0] == '0' and text.isdigit():
            found = f'f{float(int(text, 8) if set(text) <= set("01234567") else int(text))!r}'
        else:
            found = f'f{float(text)!r}'
    except ValueError:
        return None
    if found.startswith('f') and found.endswith('.0') and _is_key(node, ts2.up(node, parent)):
        return _key(found[1:-2])  # `{1: a}` is `{'1': a}`
    return [ts2.field(b'#', found.encode())]


def jsx_text(node: Node, parent: Node | None) -> list[Item] | None:
    return ts2.leaf('jsx_text', ts2.encode(jsx_text_value(ts2.text(node))))


def template_string(node: Node, parent: Node | None) -> list[Item] | None:
    """Text by value, `${ x }` as code. A tagged template's tag sees the raw text: kept as written."""
    parent = ts2.up(node, parent)
    tagged = is_a(parent, 'call_expression') and parent.child_by_field_name('arguments') == node
    parts: list[str | list[Item]] = []
    for piece, child in split_at(node, node.start_byte + 1, _TEMPLATE_STOPS):  # after '`'
        text = piece.decode('utf-8').replace('\r\n', '\n')
        if text:
            parts.append(text if tagged else _decode(text))
        if is_a(child, 'template_substitution'):
            parts.append([c for c in child.children if c.type not in ('${', '}')])
    return ts2.value(b'r' if tagged else b's', parts)


def parenthesized_expression(node: Node, parent: Node | None) -> list[Item] | None:
    """`(a < b)` is `a < b`; but `(a?.b).c` is not `a?.b.c` (the parentheses end the optional chain)."""
    chain = ('member_expression', 'call_expression', 'subscript_expression')
    if b'?.' in (node.text or b'') and is_a(ts2.up(node, parent), *chain):
        return None
    return ts2.unwrap_single(node)


def formal_parameters(node: Node, parent: Node | None) -> list[Item] | None:
    """`(x) => x` is `x => x`."""
    if not is_a(ts2.up(node, parent), 'arrow_function'):
        return None
    params = ts2.named(node)
    if len(params) != 1:
        return None
    param = params[0]
    if param.type == 'required_parameter':  # TypeScript: a bare name, no type, default or modifier
        inner = ts2.named(param)
        if len(inner) != 1 or param.child_count != 1:
            return None
        param = inner[0]
    return [param] if param.type == 'identifier' else None


def leading_operator(node: Node, parent: Node | None) -> list[Item] | None:
    """`type T = | A | B` is `type T = A | B`."""
    children = node.children
    if children and children[0].type in ('|', '&'):
        return ts2.unwrap_single(node)
    return None


def jsx_element(node: Node, parent: Node | None) -> list[Item] | None:
    """Children as JSX builds them: text reduced by JSX's whitespace rules, `{" "}` and `{'a'}`
    read as text, adjacent texts joined (prettier moves spaces between those spellings)."""
    out: list[Item] = [ts2.marker(node)]
    run: list[str] = []

    def flush() -> None:
        if joined := ''.join(run):
            out.extend(ts2.leaf('jsx_text', ts2.encode(joined)))
        run.clear()

    for child in node.children:
        kind = child.type
        if 'comment' in kind:
            continue
        if kind == 'jsx_text':
            run.append(jsx_text_value(ts2.text(child)))
            continue
        if kind == 'jsx_expression':
            inner = ts2.named(child)
            if not inner:
                continue  # `{}` or `{/* comment */}`
            if len(inner) == 1 and inner[0].type == 'string':
                run.append(_decode(_content(inner[0])))
                continue
        flush()
        out.append(child)
    flush()
    out.append(b')')
    return out


def jsx_expression(node: Node, parent: Node | None) -> list[Item] | None:
    """`a={"x"}` is `a="x"`."""
    inner = ts2.named(node)
    if is_a(ts2.up(node, parent), 'jsx_attribute') and len(inner) == 1 and is_a(inner[0], 'string'):
        return ts2.value(b's', [_decode(_content(inner[0]))])
    return None


_BLANKS = re.compile('[ \t]{2,}|\t')


def jsx_text_value(raw: str) -> str:
    """JSX's reading of its text (ts1.jsx_text), and runs of spaces and tabs inside a line read
    as one space, as prettier rewrites them and as HTML renders them (`{"a  b"}` keeps its two)."""
    return _BLANKS.sub(' ', ts1.jsx_text(raw.encode('utf-8')).decode('utf-8'))


def semicolon(token: Node, parent: Node, siblings: list[Node], index: int) -> bool:
    """Statement-ending `;` is optional (prettier's `semi: false`); `for (;;)` keeps its own."""
    if parent.type == 'for_statement':
        return False
    if parent.type in (
        'lexical_declaration',
        'variable_declaration',
        'expression_statement',
        'empty_statement',
    ):
        holder = parent.parent
        if is_a(holder, 'for_statement') and holder.child_by_field_name('body') != parent:
            return False
    return True


def comma(token: Node, parent: Node, siblings: list[Node], index: int) -> bool:
    if parent.type in _SEPARATED_TYPES:
        return True  # `{ a: A, b: B }` and `{ a: A; b: B }` are the same type
    return ts2.trailing_comma(token, parent, siblings, index)


HANDLERS = {
    'string': string,
    'number': number,
    'jsx_text': jsx_text,
    'template_string': template_string,
    'parenthesized_expression': parenthesized_expression,
    'parenthesized_type': ts2.unwrap_single,
    'formal_parameters': formal_parameters,
    # `if (a) { b(); }` is `if (a) b();`; but `{ let x }` is a scope, so not `let x`
    'statement_block': ts2.unbraced(_BODY_OWNERS, lambda s: s.type not in _DECLARATIONS),
    'arguments': ts2.nothing_in(frozenset({'new_expression'})),  # `new Foo` is `new Foo()`
    'empty_statement': ts2.nothing_in(_STATEMENT_LISTS),
    'union_type': leading_operator,
    'intersection_type': leading_operator,
    'jsx_element': jsx_element,
    'jsx_fragment': jsx_element,
    'jsx_expression': jsx_expression,
}
DROPS = {
    ';': semicolon,
    ',': comma,
}
SCOPES = frozenset(
    {
        'function_declaration',
        'generator_function_declaration',
        'function_expression',
        'function',
        'generator_function',
        'arrow_function',
        'method_definition',
        'class_static_block',
    }
)
CONTEXT = _BODY_OWNERS | frozenset(
    {
        'try_statement',
        'catch_clause',
        'finally_clause',
        'switch_statement',
        'switch_case',
        'switch_default',
        'labeled_statement',
        'class_declaration',
        'abstract_class_declaration',
        'class',
    }
)
BODIES = frozenset({'statement_block', 'class_body'})
