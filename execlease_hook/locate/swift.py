"""Swift: functions, initialisers and computed properties by the shapes docs/how-to/cover-code.md
(locating covered code) lists; protocol requirements have no body and are not definitions.
"""

from __future__ import annotations

from execlease_hook.locate.definition import Definition, Node, ancestors, is_a, names_this, text

NAME_TYPES = frozenset({'simple_identifier', 'init', 'deinit', 'get', 'set'})
_ACCESSORS = {
    'get': ('computed_getter', 'getter_specifier'),
    'set': ('computed_setter', 'setter_specifier'),
}
_ANONYMOUS = frozenset({'lambda_literal'})


def named_definition(name: Node) -> Definition | None:
    owner = name.parent
    if owner is None:
        return None
    kind = owner.type
    if (kind == 'function_declaration' and names_this(owner, 'name', name)) or (
        kind in ('init_declaration', 'deinit_declaration') and name.type in ('init', 'deinit')
    ):
        if owner.child_by_field_name('body') is None:
            return None
        parts = [text(name)]  # `init` and `deinit` are their own names
    elif kind == 'pattern' and name.type == 'simple_identifier':
        declaration = owner.parent
        if not is_a(declaration, 'property_declaration'):
            return None
        if declaration.child_by_field_name('computed_value') is None:
            return None
        owner, parts = declaration, [text(name)]
    elif name.type in _ACCESSORS and kind == _ACCESSORS[name.type][1]:
        accessor = owner.parent
        computed = accessor.parent if accessor is not None else None
        declaration = computed.parent if computed is not None else None
        if not is_a(accessor, _ACCESSORS[name.type][0]):
            return None
        if not is_a(declaration, 'property_declaration'):
            return None
        pattern = declaration.child_by_field_name('name')
        bound = pattern.child_by_field_name('bound_identifier') if pattern is not None else None
        if bound is None:
            return None
        owner, parts = accessor, [name.type, text(bound)]
    else:
        return None
    for scope in ancestors(owner):
        if scope.type in _ANONYMOUS:
            return None
        if scope.type in ('class_declaration', 'protocol_declaration'):
            parts.append(''.join(text(scope.child_by_field_name('name')).split()))
        elif scope.type == 'function_declaration':
            parts.append(text(scope.child_by_field_name('name')))
    return Definition('.'.join(reversed(parts)), (owner,))
