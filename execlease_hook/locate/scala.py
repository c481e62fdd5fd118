"""Scala: methods, functions and auxiliary constructors by the shapes docs/how-to/cover-code.md
(locating covered code) lists; methods of anonymous classes (`new T { ... }`) are not addressable.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from execlease_hook.locate.definition import Definition, ancestors, base_type, named_function, text

if TYPE_CHECKING:
    from tree_sitter import Node

NAME_TYPES = frozenset({'identifier', 'operator_identifier'})
_SCOPES = frozenset(
    {
        'object_definition',
        'class_definition',
        'trait_definition',
        'enum_definition',
        'function_definition',
        'given_definition',
    }
)
_FUNCTION = frozenset({'function_definition'})
_ANONYMOUS = frozenset({'instance_expression', 'lambda_expression'})


def named_definition(name: Node) -> Definition | None:
    function = named_function(name, _FUNCTION)
    if function is None:
        return None
    parts = [text(name)]
    for scope in ancestors(function):
        if scope.type in _ANONYMOUS:
            return None
        if scope.type in _SCOPES:
            named = scope.child_by_field_name('name')
            if named is None:
                return None
            parts.append(text(named))
        elif scope.type == 'extension_definition':
            parts.append(_extended(scope))
    return Definition('.'.join(reversed(parts)), (function,))


def _extended(extension: Node) -> str:
    """The type an `extension (s: T)` adds methods to: `T`'s base name."""
    parameters = extension.child_by_field_name('parameters')
    first = [c for c in parameters.named_children if c.type == 'parameter'] if parameters else []
    kind = first[0].child_by_field_name('type') if first else None
    while kind is not None and kind.type == 'generic_type':
        kind = kind.child_by_field_name('type')
    return base_type(kind) if kind is not None else ''
