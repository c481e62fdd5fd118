"""Java: `Class.method`, `Outer.Inner.method`, constructors as `Class.Class`.

Methods without a body (interface and abstract declarations) are not definitions; methods of
anonymous classes are not addressable. Overloads share a name and so are ambiguous.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from execlease_hook.locate.definition import Definition, in_scopes, names_this

if TYPE_CHECKING:
    from tree_sitter import Node

NAME_TYPES = frozenset({'identifier'})
_FUNCTIONS = frozenset({'method_declaration', 'constructor_declaration'})
_SCOPES = _FUNCTIONS | frozenset(
    {
        'class_declaration',
        'interface_declaration',
        'enum_declaration',
        'record_declaration',
        'annotation_type_declaration',
    }
)
_ANONYMOUS = frozenset({'object_creation_expression', 'enum_constant'})


def named_definition(name: Node) -> Definition | None:
    function = name.parent
    if (
        function is None
        or function.type not in _FUNCTIONS
        or not names_this(function, 'name', name)
        or function.child_by_field_name('body') is None
    ):
        return None
    return in_scopes(name, function, _SCOPES, _ANONYMOUS)
