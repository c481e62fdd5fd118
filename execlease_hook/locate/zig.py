"""Zig: a `fn` by the shapes docs/how-to/cover-code.md (locating covered code) lists (a file is a
struct); `extern fn` prototypes have no body and are not definitions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from execlease_hook.locate.definition import Definition, field_text, named_function, qualified, text

if TYPE_CHECKING:
    from tree_sitter import Node

NAME_TYPES = frozenset({'identifier'})
_FUNCTION = frozenset({'function_declaration'})
CONTAINERS = frozenset(
    {'struct_declaration', 'enum_declaration', 'union_declaration', 'opaque_declaration'}
)


def named_definition(name: Node) -> Definition | None:
    function = named_function(name, _FUNCTION, body=True)
    if function is None:
        return None
    return Definition(qualified(name, function, _scope_name), (function,))


def _scope_name(scope: Node) -> str | None:
    if scope.type in CONTAINERS:
        holder = scope.parent
        if holder is not None and holder.type == 'variable_declaration':
            held = next((c for c in holder.named_children if c.type == 'identifier'), None)
            if held is not None and held.end_byte <= scope.start_byte:
                return text(held)
        return None
    return field_text(scope, _FUNCTION)
