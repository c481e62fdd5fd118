"""Rust: `f`, `Type.f` for `impl Type` and `impl Trait for Type`, `Trait.f` for default
methods, `module.f` for inline modules, `outer.inner` for nested functions.

Attributes written directly above a function (`#[inline]`) belong to it.
"""

from __future__ import annotations

from execlease_hook.locate.definition import (
    Definition,
    Node,
    base_type,
    field_text,
    leading,
    named_function,
    qualified,
)

NAME_TYPES = frozenset({'identifier'})
_FUNCTION = frozenset({'function_item'})
_SCOPES = frozenset({'function_item', 'trait_item', 'mod_item'})
_ATTRIBUTES = frozenset({'attribute_item'})


def named_definition(name: Node) -> Definition | None:
    function = named_function(name, _FUNCTION)
    if function is None:
        return None
    return Definition(qualified(name, function, _scope_name), leading(function, _ATTRIBUTES))


def _scope_name(scope: Node) -> str | None:
    if scope.type == 'impl_item':
        return base_type(scope.child_by_field_name('type'))
    return field_text(scope, _SCOPES)
