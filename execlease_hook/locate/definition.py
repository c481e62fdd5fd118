"""What every language module reports: a named definition and the nodes that make it up."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeGuard

if TYPE_CHECKING:
    from tree_sitter import Node
else:
    Node = object  # for annotations only (the language modules import it from here)


@dataclass(frozen=True)
class Definition:
    qualname: str
    nodes: tuple[Node, ...]  # in source order: decorators / attributes first, then the definition


def text(node: Node | None) -> str:
    if node is None or node.text is None:
        return ''
    return node.text.decode('utf-8')


def squeezed(node: Node | None) -> str:
    """Its text without whitespace: `operator ==` is `operator==`, `[] T` is `[]T`."""
    return ''.join(text(node).split())


def ancestors(node: Node) -> Iterator[Node]:
    parent = node.parent
    while parent is not None:
        yield parent
        parent = parent.parent


def same(a: Node | None, b: Node | None) -> bool:
    """`a` and `b` are one node (of one kind, at one place), each of them read from its parent."""
    return a is not None and b is not None and a.byte_range == b.byte_range and a.type == b.type


def is_a(node: Node | None, *kinds: str) -> TypeGuard[Node]:
    return node is not None and node.type in kinds


def names_this(parent: Node, field: str, name: Node) -> bool:
    return same(parent.child_by_field_name(field), name)


def named_function(name: Node, kinds: frozenset[str], *, body: bool = False) -> Node | None:
    """The function `name` names: its parent when of a type in `kinds` with `name` in its `name`
    field (and, with `body`, a `body` field: a declaration without one is no definition)."""
    function = name.parent
    if (
        function is None
        or function.type not in kinds
        or not names_this(function, 'name', name)
        or (body and function.child_by_field_name('body') is None)
    ):
        return None
    return function


def qualified(name: Node, node: Node, scope_name: Callable[[Node], str | None]) -> str:
    """`name` qualified by what `scope_name` says of each scope enclosing `node`, innermost last
    (`Outer.Inner.name`); a scope it says None of does not qualify it."""
    scopes = [part for part in map(scope_name, ancestors(node)) if part is not None]
    return '.'.join([*reversed(scopes), text(name)])


def in_scopes(
    name: Node, node: Node, scopes: frozenset[str], anonymous: frozenset[str]
) -> Definition | None:
    """`node` named `name` qualified by each enclosing scope of a type in `scopes`
    (`Outer.Inner.name`, each scope's `name` field); None inside a scope of a type in `anonymous`
    (nothing can address it there). Java's and C#'s rule."""
    if any(scope.type in anonymous for scope in ancestors(node)):
        return None
    return Definition(qualified(name, node, lambda s: field_text(s, scopes)), (node,))


def field_text(scope: Node, kinds: frozenset[str]) -> str | None:
    return text(scope.child_by_field_name('name')) if scope.type in kinds else None


def leading(node: Node, kinds: frozenset[str]) -> tuple[Node, ...]:
    """`node` with the decorators/attributes written directly before it (comments in between skipped)."""
    found = [node]
    sibling = node.prev_named_sibling
    while sibling is not None and (sibling.type in kinds or 'comment' in sibling.type):
        if sibling.type in kinds:
            found.append(sibling)
        sibling = sibling.prev_named_sibling
    return tuple(reversed(found))


def base_type(node: Node | None) -> str:
    """`Stack` for `Stack`, `*Stack[T]`, `&mut Stack<T>`, `fmt::Stack`."""
    while node is not None:
        if node.type in ('type_identifier', 'identifier', 'primitive_type'):
            return text(node)
        if node.type == 'scoped_type_identifier':
            node = node.child_by_field_name('name')
        elif node.child_by_field_name('type') is not None:
            node = node.child_by_field_name('type')
        elif (
            node.type in ('pointer_type', 'reference_type', 'parenthesized_type')
            and node.named_children
        ):
            node = node.named_children[-1]
        else:
            return text(node)
    return ''


@dataclass(frozen=True)
class Located:
    """Where a covered entry is in its file now."""

    entry_id: str
    path: str
    start_line: int  # 1-based, inclusive
    end_line: int
    start_byte: int
    end_byte: int
    text: str  # the source slice, for diffs
    nodes: tuple[Node, ...] = field(compare=False, hash=False, repr=False)
