"""Java: `Class.method`, `Outer.Inner.method`, constructors as `Class.Class`.

Methods without a body (interface and abstract declarations) are not definitions; methods of
anonymous classes are not addressable. Overloads share a name and so are ambiguous.
"""

from __future__ import annotations

from execlease_hook.locate.definition import Definition, Node, in_scopes, named_function

NAME_TYPES = frozenset({'identifier'})
_FUNCTIONS = frozenset({'method_declaration', 'constructor_declaration'})
TYPES = frozenset(
    {
        'class_declaration',
        'interface_declaration',
        'enum_declaration',
        'record_declaration',
        'annotation_type_declaration',
    }
)
_SCOPES = _FUNCTIONS | TYPES
_ANONYMOUS = frozenset({'object_creation_expression', 'enum_constant'})


def named_definition(name: Node) -> Definition | None:
    function = named_function(name, _FUNCTIONS, body=True)
    return None if function is None else in_scopes(name, function, _SCOPES, _ANONYMOUS)
