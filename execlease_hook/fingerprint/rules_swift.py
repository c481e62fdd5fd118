"""ts2 rules for Swift (what swift-format may change, and what it may not): strings by value,
`;` optional everywhere, `(a)` that only groups is `a` (docs/fingerprints.md lists them).
"""

from __future__ import annotations

from execlease_hook.fingerprint import ts2
from execlease_hook.fingerprint.literals import closing_indent, escapes, pieces
from execlease_hook.fingerprint.ts2 import Item, Node
from execlease_hook.locate.definition import is_a

# `\\` newline: a continuation
escaped = escapes(r'\\(u\{[0-9a-fA-F]+\}|.)', '0\\tnr"\'\n', octal=False)
_HOLES = frozenset({'interpolated_expression'})
_ESCAPES = frozenset({'str_escaped_char'})


def line_string_literal(node: Node, parent: Node | None) -> list[Item] | None:
    return pieces(node, b's', 1, 1, _HOLES, escapes=_ESCAPES, escape_of=escaped)


def multi_line_string_literal(node: Node, parent: Node | None) -> list[Item] | None:
    raw = ts2.text(node)
    indent = closing_indent(raw, '"""')
    return pieces(node, b's', 3, 3, _HOLES, _continued, _ESCAPES, escaped, indent=indent)


def _continued(raw: str) -> str:
    """A `\\` at the end of a line in a multi-line string joins the lines."""
    return raw.replace('\\\n', '') if '\\\n' in raw else raw


def raw_string_literal(node: Node, parent: Node | None) -> list[Item] | None:
    """`#"a\\n"#` is the text `a\\n`, whatever the number of `#`s (without interpolation)."""
    if any(c.type != 'raw_str_end_part' for c in node.named_children):
        return None
    raw = ts2.text(node)
    hashes = len(raw) - len(raw.lstrip('#'))
    quotes = 3 if raw[hashes:].startswith('"""') else 1
    body = raw[hashes + quotes : len(raw) - hashes - quotes]
    if quotes == 3:
        indent = closing_indent(raw[: len(raw) - hashes], '"""')
        if indent is not None and body.startswith('\n'):
            body = '\n'.join(line.removeprefix(indent) for line in body[1:].split('\n')[:-1])
    return ts2.value(b's', [body])


def raw_str_end_part(node: Node, parent: Node | None) -> list[Item] | None:
    """A region whose anchors lie inside `#"..."#` covers the literal, whose only child this is."""
    holder = ts2.up(node, parent)
    if not is_a(holder, 'raw_string_literal') or holder.byte_range != node.byte_range:
        return None
    return raw_string_literal(holder, None)


def tuple_expression(node: Node, parent: Node | None) -> list[Item] | None:
    """`(a)` is `a`; a labelled `(x: a)` and tuples of several elements stay."""
    return None if node.child_by_field_name('name') is not None else ts2.unwrap_single(node)


def around(node: Node) -> list[Item]:
    """The `#if`, `#elseif` and `#else` directives whose branch holds `node`: the grammar writes
    them as siblings, so a function under `#if false` would otherwise hash as one under `#if true`."""
    found: list[Item] = []
    depth = 0
    sibling = node.prev_named_sibling
    while sibling is not None:
        if sibling.type == 'directive' and sibling.children:
            kind = sibling.children[0].type
            if kind == '#endif':
                depth += 1
            elif kind == '#if' and depth:
                depth -= 1
            elif kind in ('#if', '#elseif', '#else') and not depth:
                found.append(sibling)
        sibling = sibling.prev_named_sibling
    if not found:
        return []
    return [ts2.open_marker('directives'), *reversed(found), b')']


HANDLERS = {
    'line_string_literal': line_string_literal,
    'multi_line_string_literal': multi_line_string_literal,
    'raw_string_literal': raw_string_literal,
    'raw_str_end_part': raw_str_end_part,
    'tuple_expression': tuple_expression,
}
DROPS = {
    ',': ts2.trailing_comma,
    ';': ts2.always,  # optional everywhere
}
GAP_NOOPS = b';'  # the grammar keeps statement-ending `;` as a hidden token
SCOPES = frozenset(
    {
        'function_declaration',
        'init_declaration',
        'deinit_declaration',
        'lambda_literal',
        'computed_getter',
        'computed_setter',
        'subscript_declaration',
    }
)
CONTEXT = frozenset(
    {
        'class_declaration',
        'protocol_declaration',
        'property_declaration',
        'if_statement',
        'guard_statement',
        'switch_statement',
        'switch_entry',
        'for_statement',
        'while_statement',
        'repeat_while_statement',
        'do_statement',
        'catch_block',
    }
)
AROUND = around
BODIES = frozenset(
    {
        'class_body',
        'enum_class_body',
        'protocol_body',
        'statements',
        'function_body',
        'computed_property',
    }
)
