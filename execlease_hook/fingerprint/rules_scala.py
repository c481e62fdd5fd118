"""ts2 rules for Scala (what scalafmt may change, and what it may not). `\"\"\"...\"\"\"` is read as
written (Scala reads no escapes there); an interpolated string is its interpolator and its text as
written: the interpolator decides what escapes mean.
"""

from __future__ import annotations

from execlease_hook.fingerprint import ts2
from execlease_hook.fingerprint.literals import character_literal, escapes, pieces
from execlease_hook.fingerprint.ts2 import Item, Node

escaped = escapes(r'\\(u+[0-9a-fA-F]{4}|.)', 'btnfr\'"\\', octal=False)


def string(node: Node, parent: Node | None) -> list[Item] | None:
    raw = ts2.text(node)
    if raw.startswith('"""') and raw.endswith('"""') and len(raw) >= 6:
        return ts2.value(b's', [raw[3:-3]])
    if raw.startswith('"') and raw.endswith('"') and len(raw) >= 2:
        try:
            return ts2.value(b's', [escaped(raw[1:-1])])
        except ValueError:  # an escape the language would reject: hashed as written
            return None
    return None


def interpolated_string(node: Node, parent: Node | None) -> list[Item] | None:
    raw = ts2.text(node)
    quotes = 3 if raw.startswith('"""') else 1
    return pieces(node, b'i', quotes, quotes, frozenset({'interpolation'}))


def interpolation(node: Node, parent: Node | None) -> list[Item] | None:
    """`${x}` is `$x`: the hole holds the expression either way."""
    inner = ts2.named(node)
    if len(inner) == 1 and inner[0].type == 'block' and len(ts2.named(inner[0])) == 1:
        inner = ts2.named(inner[0])
    return [ts2.open_marker('interpolation'), inner[0], b')'] if len(inner) == 1 else None


HANDLERS = {
    'string': string,
    'interpolated_string': interpolated_string,
    'interpolation': interpolation,
    'character_literal': character_literal(escaped),
    'parenthesized_expression': ts2.unwrap_single,
}
DROPS = {
    ';': ts2.always,  # Scala ends statements at line breaks: `;` never tells two apart
    ',': ts2.trailing_comma,
}
GAP_NOOPS = b';'
SCOPES = frozenset({'function_definition', 'lambda_expression'})
CONTEXT = frozenset(
    {
        'class_definition',
        'object_definition',
        'trait_definition',
        'enum_definition',
        'given_definition',
        'extension_definition',
        'if_expression',
        'match_expression',
        'case_clause',
        'for_expression',
        'while_expression',
        'do_while_expression',
        'try_expression',
        'catch_clause',
        'finally_clause',
    }
)
BODIES = frozenset(
    {'template_body', 'block', 'indented_block', 'case_block', 'enum_body', 'with_template_body'}
)
