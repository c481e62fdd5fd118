"""TypeScript, TSX and JavaScript: functions, methods and function-valued properties by the
shapes docs/how-to/cover-code.md (locating covered code) lists; a getter and a setter of the same
name share `Class.name` and are therefore ambiguous.
"""

from __future__ import annotations

from execlease_hook.locate.definition import Definition, Node, ancestors, leading, names_this, text

NAME_TYPES = frozenset(
    {'identifier', 'property_identifier', 'private_property_identifier', 'string_fragment'}
)
_FUNCTION_VALUES = frozenset(
    {'arrow_function', 'function_expression', 'function', 'generator_function'}
)
_NAMED_SCOPES = frozenset(
    {
        'function_declaration',
        'generator_function_declaration',
        'method_definition',
        'class_declaration',
        'abstract_class_declaration',
        'internal_module',
        'module',
    }
)
_FIELDS = frozenset({'public_field_definition', 'field_definition'})
# addressable only through the variable or key holding them
_NAMELESS = frozenset({'object', 'class'})
_WRAPPERS = frozenset(
    {'as_expression', 'satisfies_expression', 'parenthesized_expression', 'non_null_expression'}
)
_DECORATORS = frozenset({'decorator'})


def named_definition(name: Node) -> Definition | None:
    if name.type == 'string_fragment':  # a quoted key: `'start': function () {}`, `'stop'() {}`
        quoted = name.parent
        if quoted is None or quoted.type != 'string' or quoted.named_child_count != 1:
            return None
        name = quoted
    found = _definition_node(name)
    if found is None:
        return None
    node, nodes = found
    parts = [_key(name)]
    for scope in ancestors(node):
        if scope.type in _NAMELESS:
            holder = _holder(scope)
            if holder is None:
                return None
            parts.append(_key(holder))
        elif scope.type in _NAMED_SCOPES or scope.type in _FIELDS:
            parts.append(_key(_name(scope)))
        elif scope.type in ('variable_declarator', 'pair') and _holds_function(scope):
            parts.append(_key(_name(scope)))
    return Definition('.'.join(reversed(parts)), nodes)


def _definition_node(name: Node) -> tuple[Node, tuple[Node, ...]] | None:
    """(the node whose ancestors give the scope, the nodes hashed) when `name` names a definition."""
    owner = name.parent
    if owner is None:
        return None
    kind = owner.type
    if kind in ('function_declaration', 'generator_function_declaration') and names_this(
        owner, 'name', name
    ):
        return owner, (owner,)
    if kind == 'method_definition' and names_this(owner, 'name', name):
        return owner, leading(owner, _DECORATORS)
    if kind in _FIELDS and _name(owner) == name and _holds_function(owner):
        return owner, leading(owner, _DECORATORS)
    if kind in ('variable_declarator', 'pair') and _name(owner) == name and _holds_function(owner):
        declaration = owner.parent if kind == 'variable_declarator' else None
        if declaration is not None and declaration.named_child_count == 1:
            return owner, (declaration,)
        return owner, (owner,)
    return None


def _key(node: Node | None) -> str:
    """A name as written, or a quoted key without its quotes (prettier adds and removes them)."""
    if node is not None and node.type == 'string':
        return text(node)[1:-1]
    return text(node)


def _name(node: Node) -> Node | None:
    for field in ('name', 'property', 'key'):
        child = node.child_by_field_name(field)
        if child is not None:
            return child
    return None


def _holds_function(node: Node) -> bool:
    value = node.child_by_field_name('value')
    return value is not None and value.type in _FUNCTION_VALUES


def _holder(nameless: Node) -> Node | None:
    """The identifier naming an object literal or class expression: `const obj = {...}`, `key: {...}`."""
    child, parent = nameless, nameless.parent
    while parent is not None and parent.type in _WRAPPERS:
        child, parent = parent, parent.parent
    if parent is None or parent.type not in ('variable_declarator', 'pair'):
        return None
    value, name = parent.child_by_field_name('value'), _name(parent)
    if value != child or name is None or (name.type not in NAME_TYPES and name.type != 'string'):
        return None
    return name
