"""Python: `f`, `Class.method`, `outer.inner`, `Outer.Inner.method`.

A decorated function is its `decorated_definition`, so decorators are part of it.
"""

from __future__ import annotations

from execlease_hook.locate.definition import Definition, Node, field_text, named_function, qualified

NAME_TYPES = frozenset({'identifier'})
_FUNCTIONS = frozenset({'function_definition'})
_SCOPES = _FUNCTIONS | {'class_definition'}


def named_definition(name: Node) -> Definition | None:
    function = named_function(name, _FUNCTIONS)
    if function is None:
        return None
    outer = function.parent
    node = outer if outer is not None and outer.type == 'decorated_definition' else function
    return Definition(qualified(name, node, lambda s: field_text(s, _SCOPES)), (node,))
