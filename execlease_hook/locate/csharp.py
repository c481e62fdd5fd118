"""C#: methods, constructors, local functions, properties and their accessors by the shapes
docs/how-to/cover-code.md (locating covered code) lists; namespaces are not part of the name (as
Java's packages are not).
"""

from __future__ import annotations

from execlease_hook.locate.definition import Definition, Node, in_scopes, names_this

_ACCESSORS = frozenset({'get', 'set', 'init', 'add', 'remove'})
NAME_TYPES = frozenset({'identifier'}) | _ACCESSORS
_FUNCTIONS = frozenset(
    {'method_declaration', 'constructor_declaration', 'local_function_statement'}
)
PROPERTIES = frozenset({'property_declaration', 'event_declaration'})
TYPES = frozenset(
    {
        'class_declaration',
        'struct_declaration',
        'interface_declaration',
        'record_declaration',
        'record_struct_declaration',
    }
)
_SCOPES = _FUNCTIONS | PROPERTIES | TYPES | frozenset({'accessor_declaration'})
_ANONYMOUS = frozenset(
    {'anonymous_object_creation_expression', 'lambda_expression', 'anonymous_method_expression'}
)


def named_definition(name: Node) -> Definition | None:
    owner = name.parent
    if owner is None or not names_this(owner, 'name', name):
        return None
    if owner.type in _FUNCTIONS:
        if owner.child_by_field_name('body') is None:
            return None
    elif owner.type == 'accessor_declaration':
        holder = owner.parent.parent if owner.parent is not None else None
        if (
            name.type not in _ACCESSORS
            or owner.child_by_field_name('body') is None
            or holder is None
            or holder.type not in PROPERTIES
        ):
            return None  # an indexer's accessors have no name to address them by
    elif owner.type not in PROPERTIES:
        return None
    return in_scopes(name, owner, _SCOPES, _ANONYMOUS)
