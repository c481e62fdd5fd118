"""C and C++: a function's definition (never its prototype), by the name a reader of the code
would write, with dots for `::`; the shapes are listed in docs/how-to/cover-code.md (locating
covered code).
"""

from __future__ import annotations

from execlease_hook.locate.definition import (
    Definition,
    Node,
    ancestors,
    is_a,
    names_this,
    same,
    squeezed,
    text,
)

# Conversion operators (`operator bool()`) have no name token of their own: cover them with a region.
NAME_TYPES = frozenset({'identifier', 'field_identifier', 'destructor_name', 'operator_name'})
# What may wrap the function's own declarator between it and the definition:
# `T *f()`, `T &f()`, `int (*f(void))(int)`, `f() [[attr]]`.
_WRAPPERS = frozenset(
    {
        'pointer_declarator',
        'reference_declarator',
        'parenthesized_declarator',
        'attributed_declarator',
        'function_declarator',
    }
)
_CLASSES = frozenset({'class_specifier', 'struct_specifier', 'union_specifier'})
_QUALIFIED = ('qualified_identifier', 'template_function')


def named_definition(name: Node) -> Definition | None:
    found = _function(name) or _lambda(name)
    if found is None:
        return None
    node, scopes = found
    parts = [squeezed(name), *reversed(scopes)]
    for scope in ancestors(node):
        if scope.type == 'namespace_definition':
            parts.extend(reversed(_namespace(scope)))
        elif scope.type in _CLASSES:
            held = scope.child_by_field_name('name')
            if held is None:
                return None  # an anonymous class or struct: not addressable
            parts.append(_base(held))
        elif scope.type == 'function_definition':
            outer = _declared_name(scope)
            if outer is None:
                return None
            parts.append(outer)
        elif scope.type == 'lambda_expression':
            return None  # a lambda inside a lambda: cover the outer one, or use a region
    top = node
    while is_a(top.parent, 'template_declaration'):
        top = top.parent
    return Definition('.'.join(reversed(parts)), (top,))


def _function(name: Node) -> tuple[Node, list[str]] | None:
    """(the function_definition, the scopes written in its declarator: `A::B::f` gives A, B)."""
    node, scopes = _qualified(name)
    parent = node.parent
    if not is_a(parent, 'function_declarator') or not names_this(parent, 'declarator', node):
        return None
    node, parent = parent, parent.parent
    while parent is not None and parent.type in _WRAPPERS and _holds(parent, node):
        node, parent = parent, parent.parent
    if not is_a(parent, 'function_definition') or not names_this(parent, 'declarator', node):
        return None
    return parent, scopes


def _qualified(name: Node) -> tuple[Node, list[str]]:
    """Climb from a name through `A::B::name` and `name<T>`: the outermost node and A, B."""
    node, scopes = name, list[str]()
    parent = node.parent
    while parent is not None:
        if parent.type == 'qualified_identifier' and names_this(parent, 'name', node):
            scope = parent.child_by_field_name('scope')
            if scope is not None:
                scopes.insert(0, _base(scope))
        elif not (parent.type == 'template_function' and names_this(parent, 'name', node)):
            break
        node, parent = parent, parent.parent
    return node, scopes


def _holds(wrapper: Node, child: Node) -> bool:
    if wrapper.type == 'parenthesized_declarator':
        return True
    # `T &f()`: C++'s reference_declarator has no field
    if wrapper.child_by_field_name('declarator') is None:
        return any(same(c, child) for c in wrapper.named_children)
    return names_this(wrapper, 'declarator', child)


def _lambda(name: Node) -> tuple[Node, list[str]] | None:
    """`auto f = [...](...) {...};` (the declaration, or its declarator when it declares several)
    and a field `std::function<...> f = [...] {...};`."""
    parent = name.parent
    if is_a(parent, 'init_declarator') and names_this(parent, 'declarator', name):
        if not is_a(parent.child_by_field_name('value'), 'lambda_expression'):
            return None
        declaration = parent.parent
        if is_a(declaration, 'declaration'):
            declarators = declaration.children_by_field_name('declarator')
            return (declaration if len(declarators) == 1 else parent), []
        return parent, []
    if is_a(parent, 'field_declaration') and names_this(parent, 'declarator', name):
        if is_a(parent.child_by_field_name('default_value'), 'lambda_expression'):
            return parent, []
    return None


def _declared_name(function: Node) -> str | None:
    """The qualified name a function_definition declares, relative to where it stands."""
    declarator = function.child_by_field_name('declarator')
    while declarator is not None and declarator.type in _WRAPPERS:
        inner = declarator.child_by_field_name('declarator')
        if inner is None:
            inner = next(
                (c for c in declarator.named_children if c.type != 'attribute_declaration'), None
            )
        declarator = inner
    # down `A::B::name` and `name<T>` (_qualified climbs back up them)
    while declarator is not None and declarator.type in _QUALIFIED:
        declarator = declarator.child_by_field_name('name')
    if declarator is None:
        return None
    return '.'.join([*_qualified(declarator)[1], squeezed(declarator)])


def _namespace(namespace: Node) -> list[str]:
    """`namespace a::b` gives [a, b]; an anonymous namespace gives []."""
    held = namespace.child_by_field_name('name')
    if held is None:
        return []
    if held.type == 'nested_namespace_specifier':
        return [text(c) for c in held.named_children if c.type == 'namespace_identifier']
    return [text(held)]


def _base(scope: Node) -> str:
    """`Box` for `Box`, `Box<T>`."""
    if scope.type == 'template_type':
        return text(scope.child_by_field_name('name'))
    return text(scope)
