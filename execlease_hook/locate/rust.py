"""Rust: `f`, `Type.f` for `impl Type` and `impl Trait for Type`, `Trait.f` for default
methods, `module.f` for inline modules, `outer.inner` for nested functions.

Attributes written directly above a function (`#[inline]`) belong to it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from execlease_hook.locate.definition import (
    Definition,
    ancestors,
    base_type,
    leading,
    named_function,
    text,
)

if TYPE_CHECKING:
    from tree_sitter import Node

NAME_TYPES = frozenset({'identifier'})
_FUNCTION = frozenset({'function_item'})
_ATTRIBUTES = frozenset({'attribute_item'})


def named_definition(name: Node) -> Definition | None:
    function = named_function(name, _FUNCTION)
    if function is None:
        return None
    parts = [text(name)]
    for scope in ancestors(function):
        if scope.type in ('function_item', 'trait_item', 'mod_item'):
            parts.append(text(scope.child_by_field_name('name')))
        elif scope.type == 'impl_item':
            parts.append(base_type(scope.child_by_field_name('type')))
    return Definition('.'.join(reversed(parts)), leading(function, _ATTRIBUTES))
