"""Fingerprint scheme ts2: the syntax tree as the language means it; formatting never counts.

The walk is ts1's (every node's kind with open and close markers, every token, comments and the
whitespace between tokens left out, syntax errors hashed verbatim) with each language's rules
applied on top: a rules_*.py module named by the language's row in locate/languages.py, shaped as
docs/architecture.md (locating and fingerprinting code) says; the helpers below the walk are the
building blocks of the rules.

It is kept whole: the walk, its building blocks and the context headers are the scheme itself,
used by every language; what differs per language is apart (rules_*.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Union, cast

from execlease_hook.core.digest import opening_field, tagged_field, tagged_gap
from execlease_hook.fingerprint import ts1
from execlease_hook.locate import definition

if TYPE_CHECKING:
    from tree_sitter import Node

    Item = Union[bytes, Node]  # a hashed part, a node to walk
else:
    Item = Node = object  # for annotations only (the rules import both)


# A handler gets the node and its parent (None when the walk does not know it: ask node.parent)
# and returns what to hash instead, or None for the default.
Handler = Callable[['Node', 'Node | None'], 'list[Item] | None']
# A drop gets a token, its parent, the parent's children and the token's index in them.
Drop = Callable[['Node', 'Node', 'list[Node]', int], bool]


def serialize(
    rules: ModuleType, nodes: Sequence[Node], start: int, end: int, chunk: bytes
) -> list[bytes]:
    """The hashed parts of `nodes` clipped to bytes [start, end), `chunk` being those bytes,
    after the context of the first node."""
    out: list[bytes] = []
    context = context_items(rules, nodes[0])
    if context:
        root = [nodes[0], *definition.ancestors(nodes[0])][-1]
        # The root node starts at its first token: pad so that offsets index the source.
        source = b' ' * root.start_byte + (root.text or b'')
        out.append(b'@context(')
        walk(rules, context, 0, len(source), out, source, 0)
        out.append(b')')
    walk(rules, list(nodes), start, end, out, chunk, start)
    return out


def walk(
    rules: ModuleType,
    items: list[Item],
    lo: int,
    hi: int,
    out: list[bytes],
    chunk: bytes,
    base: int,
) -> None:
    """Append the hashed parts of `items` (nodes clipped to bytes [lo, hi)) to `out`;
    `chunk` holds the source from byte `base` on.

    Nodes the walk reaches through their parent carry it, (node, parent): rules get it without
    asking tree-sitter, whose `parent` and sibling look-ups walk the tree."""
    handlers: dict[str, Handler] = rules.HANDLERS
    drops: dict[str, Drop] = rules.DROPS
    aliases: dict[str, str] = getattr(rules, 'ALIASES', {})
    noops: bytes = getattr(rules, 'GAP_NOOPS', b'')
    stack: list[Item | tuple[Node, Node]] = list(reversed(items))
    while stack:
        item = stack.pop()
        if type(item) is bytes:
            out.append(item)
            continue
        if type(item) is tuple:
            node, parent = item
        else:
            node, parent = cast('Node', item), None
        kind = node.type
        if 'comment' in kind or kind == 'line_continuation':
            continue
        first, last = node.start_byte, node.end_byte
        if (first >= hi or last <= lo) and not (first == last and lo <= first <= hi):
            continue
        if node.is_error:  # hashed as ts1 hashes it
            a, b = max(lo, first), min(hi, last)
            out.extend(ts1.serialize((node,), a, b, chunk[a - base : b - base]))
            continue
        inside = first >= lo and last <= hi
        if inside:
            handler = handlers.get(kind)
            if handler is not None:
                replaced = handler(node, parent)
                if replaced is not None:
                    stack.extend(reversed(replaced))
                    continue
        container = not inside and first <= lo and last >= hi
        if not container:
            out.append(open_marker(aliases.get(kind, kind), node.is_named, node.is_missing))
        children = node.children
        if not children:
            a = first if first > lo else lo
            b = last if last < hi else hi
            out.append(field(b'"', chunk[a - base : b - base]) + b')')
            continue
        todo: list[Item | tuple[Node, Node]] = [b')'] if not container else []
        at = last
        for index in range(len(children) - 1, -1, -1):
            child = children[index]
            child_start, child_end = child.start_byte, child.end_byte
            if child_end < at and child_end < hi and at > lo:
                low, high = child_end if child_end > lo else lo, at if at < hi else hi
                gap = _gap(chunk[low - base : high - base], noops)
                if gap:
                    todo.append(gap)
            drop = drops.get(child.type)
            if not (
                drop is not None
                and lo <= child_start
                and child_end <= hi
                and not child.is_named
                and drop(child, node, children, index)
            ):
                todo.append((child, node))
            if child_start < at:
                at = child_start
        if at > first and at > lo and first < hi:
            low, high = first if first > lo else lo, at if at < hi else hi
            gap = _gap(chunk[low - base : high - base], noops)
            if gap:
                todo.append(gap)
        stack.extend(todo)


def _gap(text: bytes, noops: bytes = b'') -> bytes:
    """Source text between children that no node covers (a hidden token), whitespace collapsed.
    A `\\` line continuation (Python's, outside a string) is whitespace too; so are hidden
    tokens made only of the rules' GAP_NOOPS characters (Kotlin's and Swift's hidden `;`)."""
    if b'\\' in text:
        text = text.replace(b'\\\r\n', b' ').replace(b'\\\n', b' ')
    if noops:
        text = b' '.join(w for w in text.split() if w.strip(noops))
    return tagged_gap(text, verbatim=False)


def marker(node: Node) -> bytes:
    return open_marker(node.type, node.is_named, node.is_missing)


def open_marker(kind: str, named: bool = True, missing: bool = False) -> bytes:
    return opening_field(b'!' if missing else b'n' if named else b'a', kind)


field = tagged_field  # the rule modules spell it `ts2.field`


def encode(value: str) -> bytes:
    return value.encode('utf-8', 'surrogatepass')


def leaf(kind: str, text: bytes) -> list[Item]:
    """The parts a named leaf of `kind` with `text` hashes to (for canonical forms)."""
    return [open_marker(kind), field(b'"', text) + b')']


def value(kind: bytes, parts: Sequence[str | list[Item]]) -> list[Item]:
    """A literal by value: its kind, then text and holes (each hole's items hashed as code).
    Adjacent texts are joined, so the spelling of the pieces never counts."""
    out: list[Item] = [b'(v' + kind + b':']
    text: list[str] = []
    for part in parts:
        if isinstance(part, str):
            text.append(part)
            continue
        if text:
            out.append(field(b'"', encode(''.join(text))))
            text = []
        out += [b'{', *part, b'}']
    if text or len(out) == 1:
        out.append(field(b'"', encode(''.join(text))))
    out.append(b')')
    return out


# Helpers for the rule modules ------------------------------------------------------------------


def up(node: Node, parent: Node | None) -> Node | None:
    return parent if parent is not None else node.parent


def named(node: Node) -> list[Node]:
    return [c for c in node.named_children if 'comment' not in c.type]


def unwrap_single(node: Node, parent: Node | None = None) -> list[Item] | None:
    inner = named(node)
    return [inner[0]] if len(inner) == 1 else None


def next_token(siblings: list[Node], index: int) -> Node | None:
    return next((s for s in siblings[index + 1 :] if 'comment' not in s.type), None)


def prev_token(siblings: list[Node], index: int) -> Node | None:
    return next((s for s in reversed(siblings[:index]) if 'comment' not in s.type), None)


def always(token: Node, parent: Node, siblings: list[Node], index: int) -> bool:
    """A drop for a token that never means anything (an optional `;`: each rule says why)."""
    return True


def trailing_comma(token: Node, parent: Node, siblings: list[Node], index: int) -> bool:
    """A comma right before a closing bracket, after an element: a no-op in every supported language."""
    after, before = next_token(siblings, index), prev_token(siblings, index)
    return (
        after is not None
        and after.type in (')', ']', '}', '>', '|')
        and not after.is_named
        and before is not None
        and before.type not in ('(', '[', '{', '<', '|', ',')
    )


def nothing_in(kinds: frozenset[str]) -> Handler:
    """A node with nothing named inside that means nothing in one of `kinds`: an empty statement
    among statements (`;;`), an empty argument list where one may be left out (`class A():`)."""

    def handler(node: Node, parent: Node | None) -> list[Item] | None:
        holder = up(node, parent)
        return [] if holder is not None and holder.type in kinds and not named(node) else None

    return handler


def unbraced(owners: frozenset[str], alone: Callable[[Node], bool]) -> Handler:
    """A block of one statement that `alone` lets stand without braces, as the body of one of
    `owners`, is that statement: `if (a) { b(); }` is `if (a) b();` (formatters add and remove
    such braces); a block that declares something is a scope and stays."""

    def handler(node: Node, parent: Node | None) -> list[Item] | None:
        owner = up(node, parent)
        inner = named(node)
        if owner is None or owner.type not in owners or len(inner) != 1 or not alone(inner[0]):
            return None
        return [inner[0]]

    return handler


def unwrap_unless_callee(node: Node, parent: Node | None) -> list[Item] | None:
    """`(a)` is `a`, except as the callee of a call: `(a.f)()` calls a field, `a.f()` a method
    (Rust, Zig), and `(f)(x)` stops a function-like macro named `f` (C)."""
    parent = up(node, parent)
    if definition.is_a(parent, 'call_expression'):
        if definition.same(parent.child_by_field_name('function'), node):
            return None
    return unwrap_single(node)


def text(node: Node | None) -> str:
    return definition.text(node).replace('\r\n', '\n')


# Context ---------------------------------------------------------------------------------------


def context_items(rules: ModuleType, node: Node) -> list[Item]:
    """The headers of the control flow (and classes, impls) around `node`, up to the nearest
    enclosing function: kind, condition, and where `node` sits (`@`); other bodies are `{}`."""
    out: list[Item] = []
    child, parent = node, node.parent
    scopes: frozenset[str] = rules.SCOPES
    kinds: frozenset[str] = rules.CONTEXT
    around: Callable[[Node], list[Item]] | None = getattr(rules, 'AROUND', None)
    while parent is not None and parent.type not in scopes:
        if around is not None:  # context written beside a node, not around it (Swift's `#if`)
            out.extend(around(child))
        if parent.type in kinds:
            out.extend(_header(rules, parent, child))
        child, parent = parent, parent.parent
    return out


def _header(rules: ModuleType, node: Node, path: Node | None) -> list[Item]:
    out: list[Item] = [marker(node)]
    attached: frozenset[str] = getattr(rules, 'ATTACHED', frozenset())
    if attached:  # written just before the node (Rust's `#[cfg(test)]`)
        out.extend(definition.leading(node, attached)[:-1])
    # A node whose members stand beside the path without a field (a preprocessor block's other
    # declarations, a Zig struct's other members): only its own tokens and fields count.
    beside = node.type in getattr(rules, 'BESIDE', frozenset())
    for index, c in enumerate(node.children):
        if definition.same(c, path):
            out.append(b'@')
        elif 'comment' in c.type:
            continue
        elif beside and c.is_named and node.field_name_for_child(index) is None:
            continue
        elif c.type in rules.BODIES:
            out.append(b'{}')
        elif c.type in rules.CONTEXT:
            out.extend(_header(rules, c, None))
        else:
            out.append(c)
    out.append(b')')
    return out
