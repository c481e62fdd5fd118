"""Kotlin: functions, constructors and property accessors by the shapes docs/how-to/cover-code.md
(locating covered code) lists; functions of anonymous objects are not addressable.
"""

from __future__ import annotations

from execlease_hook.locate.definition import Definition, Node, ancestors, is_a, names_this, text

NAME_TYPES = frozenset({'identifier', 'constructor', 'get', 'set'})
_TYPES = frozenset({'class_declaration', 'object_declaration'})
_ANONYMOUS = frozenset({'object_literal', 'lambda_literal', 'anonymous_function'})


def named_definition(name: Node) -> Definition | None:
    owner = name.parent
    if owner is None:
        return None
    if owner.type == 'function_declaration' and names_this(owner, 'name', name):
        if not _has_body(owner):
            return None
        parts = [text(name)]
        receiver = _receiver(owner)
        if receiver:
            parts.append(receiver)
    elif owner.type == 'secondary_constructor' and name.type == 'constructor':
        parts = ['constructor']
    elif owner.type in ('getter', 'setter') and name.type in ('get', 'set') and _has_body(owner):
        declaration = owner.parent
        if not is_a(declaration, 'property_declaration'):
            return None
        variables = [c for c in declaration.named_children if c.type == 'variable_declaration']
        names = [c for v in variables[:1] for c in v.named_children if c.type == 'identifier']
        if not names:
            return None
        parts = [name.type, text(names[0])]
    else:
        return None
    for scope in ancestors(owner):
        if scope.type in _ANONYMOUS:
            return None
        if scope.type in _TYPES or scope.type == 'function_declaration':
            parts.append(text(scope.child_by_field_name('name')))
        elif scope.type == 'companion_object':
            companion = scope.child_by_field_name('name')
            parts.append(text(companion) if companion is not None else 'Companion')
    return Definition('.'.join(reversed(parts)), (owner,))


def _has_body(node: Node) -> bool:
    return any(c.type == 'function_body' for c in node.children)


def _receiver(function: Node) -> str:
    """`List` for `fun <T> List<T>.second()`: the type written before the name's `.`."""
    previous = None
    for child in function.children:
        if child.type == '.' and is_a(previous, 'user_type', 'nullable_type'):
            return _type_name(previous)
        if child.type == 'identifier':
            return ''
        previous = child
    return ''


def _type_name(node: Node) -> str:
    """`List` for `List<T>`, `Map.Entry` for `Map.Entry<K, V>`, `String` for `String?`."""
    while node.type in ('nullable_type', 'parenthesized_type') and node.named_children:
        node = node.named_children[0]
    return '.'.join(text(c) for c in node.named_children if c.type == 'identifier') or text(node)
