"""ts2 rules for Rust (what rustfmt may change, and what it may not)."""

from __future__ import annotations

import re

from execlease_hook.fingerprint import ts2
from execlease_hook.fingerprint.literals import escapes
from execlease_hook.fingerprint.ts2 import Item, Node

# `\` at the end of a line skips the line break and the next line's leading whitespace.
_CONTINUATION = re.compile(r'\\\n[ \t\n\r]*')
_escaped = escapes(r'\\(u\{[0-9a-fA-F_]+\}|x[0-9a-fA-F]{2}|.)', 'nrt0\\\'"', octal=False)

_ONE_ELEMENT_IS_A_TUPLE = frozenset({'tuple_expression', 'tuple_type', 'tuple_pattern'})
_STATEMENT_LISTS = frozenset({'block', 'source_file', 'declaration_list'})
_EXPRESSION_STATEMENTS = frozenset({'expression_statement', 'let_declaration', 'empty_statement'})
_DIVERGING = frozenset({'return_expression', 'break_expression', 'continue_expression'})


def _prefix_kind(prefix: str) -> bytes:
    return b'b' if 'b' in prefix else b'c' if 'c' in prefix else b's'


def quoted(node: Node, parent: Node | None) -> list[Item] | None:
    """A string (`b"..."` bytes, `c"..."` a C string) or a character (`b'a'` a byte), its escapes
    read."""
    raw = ts2.text(node)
    mark = "'" if node.type == 'char_literal' else '"'
    quote = raw.find(mark)
    if quote < 0 or not raw.endswith(mark):
        return None
    kind = (b'y' if raw[:quote] else b'h') if mark == "'" else _prefix_kind(raw[:quote])
    return ts2.value(kind, [_escaped(_CONTINUATION.sub('', raw[quote + 1 : -1]))])


def raw_string_literal(node: Node, parent: Node | None) -> list[Item] | None:
    """`r"a"`, `r#"a"#` and `"a"` are one value; `r"\\n"` is not `"\\n"`."""
    raw = ts2.text(node)
    quote = raw.find('"')
    hashes = raw[:quote].count('#')
    if quote < 0:
        return None
    return ts2.value(
        _prefix_kind(raw[:quote].rstrip('#r')), [raw[quote + 1 : len(raw) - 1 - hashes]]
    )


def or_pattern(node: Node, parent: Node | None) -> list[Item] | None:
    """A leading `|` (`| A | B =>`) means nothing."""
    rest: list[Item] = [c for c in node.children[1:] if 'comment' not in c.type]
    if node.children[0].type == '|' and len(rest) == 1:
        return rest  # also `| _`, whose `_` is an unnamed token
    return None


def pipe(token: Node, parent: Node, siblings: list[Node], index: int) -> bool:
    return parent.type == 'match_pattern' and index == 0


def field_initializer(node: Node, parent: Node | None) -> list[Item] | None:
    """`Foo { x: x }` is `Foo { x }` (rustfmt's use_field_init_shorthand)."""
    name, initial = node.child_by_field_name('field'), node.child_by_field_name('value')
    if name is None or initial is None or initial.type != 'identifier':
        return None
    if ts2.text(name) != ts2.text(initial):
        return None
    if any(c.type == 'attribute_item' for c in node.children):
        return None
    return [ts2.open_marker('shorthand_field_initializer'), initial, b')']


def block(node: Node, parent: Node | None) -> list[Item] | None:
    """`|x| { x + 1 }` is `|x| x + 1`, and `A => { x }` is `A => x` (rustfmt removes those braces)."""
    parent = ts2.up(node, parent)
    if parent is None or parent.type not in ('closure_expression', 'match_arm'):
        return None
    field = 'body' if parent.type == 'closure_expression' else 'value'
    if parent.child_by_field_name(field) != node:
        return None
    inner = ts2.named(node)
    if (
        len(inner) != 1
        or inner[0].type in _EXPRESSION_STATEMENTS
        or inner[0].type.endswith('_item')
        or any(c.type == 'label' for c in node.children)
    ):
        return None
    return [inner[0]]


def expression_statement(node: Node, parent: Node | None) -> list[Item] | None:
    """`return x;` at the end of a block is `return x` (rustfmt adds the `;`)."""
    inner = ts2.named(node)
    if len(inner) != 1 or inner[0].type not in _DIVERGING:
        return None
    sibling = node.next_named_sibling
    while sibling is not None and 'comment' in sibling.type:
        sibling = sibling.next_named_sibling
    return [inner[0]] if sibling is None else None


def comma(token: Node, parent: Node, siblings: list[Node], index: int) -> bool:
    if parent.type == 'match_arm':
        return True  # `A => {},` and `A => {}`
    if not ts2.trailing_comma(token, parent, siblings, index):
        return False
    if parent.type in _ONE_ELEMENT_IS_A_TUPLE:
        return len(ts2.named(parent)) > 1  # `(a,)` is a tuple, `(a)` is not
    return True


HANDLERS = {
    'string_literal': quoted,
    'raw_string_literal': raw_string_literal,
    'char_literal': quoted,
    'parenthesized_expression': ts2.unwrap_unless_callee,
    'or_pattern': or_pattern,
    'field_initializer': field_initializer,
    'block': block,
    'expression_statement': expression_statement,
    'empty_statement': ts2.nothing_in(_STATEMENT_LISTS),
}
DROPS = {
    ',': comma,
    '|': pipe,
}
SCOPES = frozenset({'function_item', 'closure_expression'})
CONTEXT = frozenset(
    {
        'if_expression',
        'else_clause',
        'match_expression',
        'match_arm',
        'while_expression',
        'loop_expression',
        'for_expression',
        'impl_item',
        'trait_item',
        'mod_item',
    }
)
BODIES = frozenset({'block', 'declaration_list', 'match_block'})
ATTACHED = frozenset({'attribute_item'})  # `#[cfg(test)] mod tests { ... }`: the attribute counts
