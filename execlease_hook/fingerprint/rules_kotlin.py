"""ts2 rules for Kotlin (what ktlint and ktfmt may change, and what they may not): each rule says
its reason, docs/fingerprints.md lists them all. `"${name}"` is `"$name"` because ktlint's
string-template rule writes it so.
"""

from __future__ import annotations

import re
from functools import partial

from execlease_hook.fingerprint import ts2
from execlease_hook.fingerprint.literals import character_literal, escapes, pieces
from execlease_hook.fingerprint.ts2 import Item, Node

escaped = escapes(r'\\(u[0-9a-fA-F]{4}|.)', 'tbnr\'"\\$', octal=False)
_INTERPOLATION = frozenset({'interpolation'})
_ESCAPE = frozenset({'escape_sequence'})
_TEMPLATE = re.compile(r'\$([A-Za-z_][A-Za-z0-9_]*)')
_BRACED = frozenset(
    {'if_expression', 'for_statement', 'while_statement', 'do_while_statement', 'when_entry'}
)
_DECLARATIONS = frozenset(
    {
        'property_declaration',
        'function_declaration',
        'class_declaration',
        'object_declaration',
        'type_alias',
        'multi_variable_declaration',
    }
)


def _hole(interpolation: Node) -> list[Item]:
    """`${name}` is the hole `$name` is; any other expression stays code."""
    inner = ts2.named(interpolation)
    if len(inner) == 1 and inner[0].type == 'identifier' and '`' not in ts2.text(inner[0]):
        return _template(ts2.text(inner[0]))
    return [interpolation]


def _templates(written: str, raw: bool) -> list[str | list[Item]]:
    """The grammar splits a one-line string's `$name` (and `\\u0041`) into plain
    `string_content` pieces, so templates are found in the joined text and become holes there;
    an escaped `\\$name` is text. In a raw (triple-quoted) string the text is as written."""
    out: list[str | list[Item]] = []
    at = 0
    for match in _TEMPLATE.finditer(written):
        out.append(written[at : match.start()] if raw else escaped(written[at : match.start()]))
        out.append(_template(match.group(1)))
        at = match.end()
    out.append(written[at:] if raw else escaped(written[at:]))
    return [part for part in out if part != '']


def _template(name: str) -> list[Item]:
    return ts2.leaf('template', name.encode('utf-8'))


def string_literal(node: Node, parent: Node | None) -> list[Item] | None:
    """`"..."` with its escapes read; a raw `\"\"\"...\"\"\"` has none, and its `${'$'}` is a hole
    (it is code)."""
    raw = node.type == 'multiline_string_literal'
    quotes = 3 if raw else 1
    read = partial(_templates, raw=raw)
    return pieces(node, b's', quotes, quotes, _INTERPOLATION, read, _ESCAPE, escaped, hole_of=_hole)


def function_body(node: Node, parent: Node | None) -> list[Item] | None:
    """`fun f(): T { return x }` is `fun f(): T = x` (ktlint's function-expression-body rule
    writes it so); a body of other statements, or a bare `return`, stays a block."""
    inner = ts2.named(node)
    owner = ts2.up(node, parent)
    if (
        len(inner) != 1
        or owner is None
        or (owner.type == 'function_declaration' and not _returns_a_type(owner))
    ):
        return None  # without a declared type, `{ return x }` returns Unit and `= x` returns x
    body = inner[0]
    if body.type == 'block':
        statements = ts2.named(body)
        if len(statements) != 1 or statements[0].type != 'return_expression':
            return None
        returned = [c for c in statements[0].children if 'comment' not in c.type]
        if len(returned) != 2 or returned[0].type != 'return' or not returned[1].is_named:
            return None  # `return` alone, or `return@label x`
        body = returned[1]
    elif not any(c.type == '=' for c in node.children):
        return None
    return [ts2.open_marker('expression_body'), body, b')']


def _returns_a_type(function: Node) -> bool:
    """`fun f(): T`: a `:` after the parameters."""
    kinds = [c.type for c in function.children]
    parameters = 'function_value_parameters'
    return parameters in kinds and ':' in kinds[kinds.index(parameters) :]


def comma(token: Node, parent: Node, siblings: list[Node], index: int) -> bool:
    if ts2.trailing_comma(token, parent, siblings, index):
        return True
    after = ts2.next_token(siblings, index)
    if after is None and parent.type == 'lambda_parameters':
        return True  # `{ a, -> }`: the arrow is the lambda's, after the parameters
    return after is not None and after.type == '->' and not after.is_named


HANDLERS = {
    'string_literal': string_literal,
    'multiline_string_literal': string_literal,
    'character_literal': character_literal(escaped),
    'parenthesized_expression': ts2.unwrap_single,
    'function_body': function_body,
    # `if (a) { g() }` is `if (a) g()`, also under `else`, loops and `when` branches (ktlint adds
    # such braces when it wraps a line)
    'block': ts2.unbraced(_BRACED, lambda s: s.type not in _DECLARATIONS and s.type != 'label'),
}
DROPS = {
    ';': ts2.always,  # Kotlin ends statements at line breaks: `;` never tells two apart
    ',': comma,
}
GAP_NOOPS = b';'  # the grammar keeps statement-ending `;` as a hidden token
SCOPES = frozenset(
    {
        'function_declaration',
        'lambda_literal',
        'anonymous_function',
        'getter',
        'setter',
        'secondary_constructor',
        'anonymous_initializer',
    }
)
CONTEXT = frozenset(
    {
        'class_declaration',
        'object_declaration',
        'companion_object',
        'property_declaration',
        'if_expression',
        'when_expression',
        'when_entry',
        'for_statement',
        'while_statement',
        'do_while_statement',
        'try_expression',
        'catch_block',
        'finally_block',
    }
)
# A property's other accessor is not the context of one accessor.
BODIES = frozenset(
    {
        'class_body',
        'enum_class_body',
        'block',
        'control_structure_body',
        'function_body',
        'getter',
        'setter',
    }
)
