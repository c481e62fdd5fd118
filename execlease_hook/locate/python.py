"""Python: `f`, `Class.method`, `outer.inner`, `Outer.Inner.method`.

A decorated function is its `decorated_definition`, so decorators are part of it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from execlease_hook.locate.definition import Definition, ancestors, names_this, text

if TYPE_CHECKING:
    from tree_sitter import Node

NAME_TYPES = frozenset({'identifier'})
_SCOPES = frozenset({'function_definition', 'class_definition'})


def named_definition(name: Node) -> Definition | None:
    function = name.parent
    if (
        function is None
        or function.type != 'function_definition'
        or not names_this(function, 'name', name)
    ):
        return None
    outer = function.parent
    node = outer if outer is not None and outer.type == 'decorated_definition' else function
    parts = [text(name)]
    for scope in ancestors(node):
        if scope.type in _SCOPES:
            parts.append(text(scope.child_by_field_name('name')))
    return Definition('.'.join(reversed(parts)), (node,))
