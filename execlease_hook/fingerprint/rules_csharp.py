"""ts2 rules for C# (what csharpier and `dotnet format` may change, and what they may not):
strings by value, each kind as C# reads it (docs/fingerprints.md lists them).
"""

from __future__ import annotations

import re

from execlease_hook.fingerprint import ts2
from execlease_hook.fingerprint.literals import character_literal, closing_indent, escapes, pieces
from execlease_hook.fingerprint.ts2 import Item, Node
from execlease_hook.locate import csharp

_escape = escapes(
    r'\\(u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|x[0-9a-fA-F]{1,4}|.)', 'abfnrtv0\\\'"', octal=False
)
_HEX = re.compile(r'\\x([0-9a-fA-F]{1,4})')
_STATEMENT_LISTS = frozenset({'block', 'declaration_list', 'compilation_unit', 'switch_section'})
_HOLES = frozenset({'interpolation'})


def escaped(raw: str) -> str:
    """C#'s `\\x` takes one to four hex digits (`\\x41` and `\\x0041` are `A`)."""
    return _escape(_HEX.sub(lambda m: '\\u' + m.group(1).rjust(4, '0'), raw))


def _raw(node: Node, kind: bytes, quotes: int, holes: frozenset[str]) -> list[Item] | None:
    raw = ts2.text(node)
    indent = closing_indent(raw, '"' * quotes) if '\n' in raw else None
    return pieces(node, kind, raw.index('"') + quotes, quotes, holes, indent=indent)


def string_literal(node: Node, parent: Node | None) -> list[Item] | None:
    """`"a"` with its escapes read, verbatim `@"a"` with `""` read as `"`; `u8` after either
    makes it bytes."""
    raw = ts2.text(node)
    kind, closing = (b'b', 3) if raw.lower().endswith('u8') else (b's', 1)
    if node.type == 'verbatim_string_literal':
        return ts2.value(kind, [raw[2 : len(raw) - closing].replace('""', '"')])
    return pieces(node, kind, 1, closing, text_of=escaped)


def raw_string_literal(node: Node, parent: Node | None) -> list[Item] | None:
    raw = ts2.text(node)
    quotes = len(raw) - len(raw.lstrip('"'))
    return _raw(node, b's', quotes, frozenset())


def interpolated_string_expression(node: Node, parent: Node | None) -> list[Item] | None:
    """`$"a{x}"`, `$@"..."` (also `@$"..."`), `$\"\"\"...\"\"\"`: text by value, holes as code."""
    raw = ts2.text(node)
    opening = len(raw) - len(raw.lstrip('$@'))
    quotes = len(raw[opening:]) - len(raw[opening:].lstrip('"'))
    if quotes >= 3:
        return _raw(node, b'I' if raw[:opening].count('$') > 1 else b'i', quotes, _HOLES)
    verbatim = '@' in raw[:opening]

    def read(s: str) -> str:
        s = s.replace('{{', '{').replace('}}', '}')
        return s.replace('""', '"') if verbatim else escaped(s)

    return pieces(node, b'i', opening + 1, 1, _HOLES, read, frozenset({'escape_sequence'}), escaped)


def interpolation_format_clause(node: Node, parent: Node | None) -> list[Item] | None:
    """`{x:yyyy MM}`: the format text is a string (its spaces count)."""
    return ts2.value(b'f', [ts2.text(node)[1:]])


HANDLERS = {
    'string_literal': string_literal,
    'verbatim_string_literal': string_literal,
    'raw_string_literal': raw_string_literal,
    'interpolated_string_expression': interpolated_string_expression,
    'character_literal': character_literal(escaped),
    'interpolation_format_clause': interpolation_format_clause,
    'parenthesized_expression': ts2.unwrap_single,
    'empty_statement': ts2.nothing_in(_STATEMENT_LISTS),  # `;;` in a block
}
DROPS = {
    ',': ts2.trailing_comma,
}
SCOPES = frozenset(
    {
        'method_declaration',
        'constructor_declaration',
        'local_function_statement',
        'accessor_declaration',
        'lambda_expression',
        'anonymous_method_expression',
        'operator_declaration',
        'destructor_declaration',
        'conversion_operator_declaration',
    }
)
CONTEXT = (
    csharp.TYPES
    | csharp.PROPERTIES
    | frozenset(
        {
            'namespace_declaration',
            'if_statement',
            'switch_statement',
            'switch_section',
            'while_statement',
            'do_statement',
            'for_statement',
            'foreach_statement',
            'try_statement',
            'catch_clause',
            'finally_clause',
            'using_statement',
            'lock_statement',
            'checked_statement',
            'unsafe_statement',
            'fixed_statement',
            'preproc_if',
            'preproc_elif',
            'preproc_else',
        }
    )
)
BODIES = frozenset({'declaration_list', 'block', 'accessor_list', 'switch_body'})
