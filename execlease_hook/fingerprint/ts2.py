"""Fingerprint scheme ts2: the syntax tree as the language means it; formatting never counts.

The walk is ts1's (every node's kind with open and close markers, every token, comments and the
whitespace between tokens left out, syntax errors hashed verbatim) with each language's rules
applied on top (execlease_hook/fingerprint/rules_*.py):
  handlers   a node hashed differently: a string by its decoded value, a parenthesis that only
             groups by what it holds, a no-op spelling by its canonical form
  drops      a token that means nothing where it stands (a trailing comma, an optional `;`)
  aliases    two node kinds that mean the same (`(a, b)` and `a, b` in Python)
  context    the control flow (and class or impl headers) between a definition and its enclosing
             function: a definition moved under `if False:` changes, moved elsewhere does not.
"""
from __future__ import annotations

import hashlib
import importlib
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Union

if TYPE_CHECKING:
    from tree_sitter import Node

    from execlease_hook.locate import Located

SCHEME = 'ts2'
Item = Union[bytes, 'Node', tuple['Node']]     # a hashed part, a node to walk, a node to hash verbatim
Handler = Callable[['Node'], 'list[Item] | None']

_RULES = {
    'python': 'rules_python',
    'typescript': 'rules_ecmascript',
    'tsx': 'rules_ecmascript',
    'javascript': 'rules_ecmascript',
    'go': 'rules_go',
    'java': 'rules_java',
    'rust': 'rules_rust',
}


def rules_for(language: str) -> ModuleType:
    return importlib.import_module(f'execlease_hook.fingerprint.{_RULES[language]}')


def fingerprint(located: Located) -> str:
    from execlease_hook.locate import language_for

    language = language_for(located.path)
    assert language is not None, located.path
    digest = hashlib.sha256()
    for part in serialize(rules_for(language), located.nodes, located.start_byte, located.end_byte):
        digest.update(part)
    return f'{SCHEME}:sha256:{digest.hexdigest()}'


def serialize(rules: ModuleType, nodes: Sequence[Node], start: int, end: int) -> list[bytes]:
    out: list[bytes] = []
    root = nodes[0]
    while root.parent is not None:
        root = root.parent
    # The root node starts at the first token: pad so that byte offsets index the source.
    source = b' ' * root.start_byte + (root.text or b'')
    context = context_items(rules, nodes[0])
    if context:
        out.append(b'@context(')
        walk(rules, context, 0, len(source), out, source)
        out.append(b')')
    walk(rules, list(nodes), start, end, out, source)
    return out


def walk(rules: ModuleType, items: list[Item], lo: int, hi: int, out: list[bytes], source: bytes) -> None:
    """Append the hashed parts of `items` (nodes clipped to bytes [lo, hi)) to `out`."""
    handlers: dict[str, Handler] = rules.HANDLERS
    drops: dict[str, Callable[[Node], bool]] = rules.DROPS
    aliases: dict[str, str] = rules.ALIASES
    stack = list(reversed(items))
    while stack:
        item = stack.pop()
        if isinstance(item, bytes):
            out.append(item)
            continue
        if isinstance(item, tuple):
            out.extend(_verbatim(item[0], lo, hi, source))
            continue
        node = item
        kind = node.type
        if 'comment' in kind or kind == 'line_continuation':
            continue
        first, last = node.start_byte, node.end_byte
        if (first >= hi or last <= lo) and not (first == last and lo <= first <= hi):
            continue
        if node.is_error:
            out.extend(_verbatim(node, lo, hi, source))
            continue
        inside = first >= lo and last <= hi
        if inside:
            handler = handlers.get(kind)
            if handler is not None:
                replaced = handler(node)
                if replaced is not None:
                    stack.extend(reversed(replaced))
                    continue
            drop = drops.get(kind)
            if drop is not None and not node.is_named and drop(node):
                continue
        container = not inside and first <= lo and last >= hi
        if not container:
            out.append(marker(node, aliases.get(kind, kind)))
        children = node.children
        if not children:
            out.append(field(b'"', source[max(first, lo):min(last, hi)]) + b')')
            continue
        todo: list[Item] = [b')'] if not container else []
        at = last
        for child in reversed(children):
            child_end = child.end_byte
            if child_end < at and child_end < hi and at > lo:
                gap = _gap(source[max(child_end, lo):min(at, hi)])
                if gap:
                    todo.append(gap)
            todo.append(child)
            at = min(at, child.start_byte)
        if at > first and at > lo and first < hi:
            gap = _gap(source[max(first, lo):min(at, hi)])
            if gap:
                todo.append(gap)
        stack.extend(todo)


def _gap(text: bytes) -> bytes:
    """Source text between children that no node covers (a hidden token), whitespace collapsed.
    A `\\` line continuation (Python's, outside a string) is whitespace too."""
    if b'\\' in text:
        text = text.replace(b'\\\r\n', b' ').replace(b'\\\n', b' ')
    text = b' '.join(text.split())
    return field(b'g', text) if text else b''


def _verbatim(node: Node, lo: int, hi: int, source: bytes) -> list[bytes]:
    from execlease_hook.fingerprint import ts1

    first, last = max(lo, node.start_byte), min(hi, node.end_byte)
    return ts1.serialize((node,), first, last, source[first:last])


_markers: dict[tuple[str, bool], bytes] = {}


def marker(node: Node, kind: str) -> bytes:
    return open_marker(kind, node.is_named, node.is_missing)


def open_marker(kind: str, named: bool = True, missing: bool = False) -> bytes:
    key = (kind, named) if not missing else (kind + '!', named)
    found = _markers.get(key)
    if found is None:
        flag = b'!' if missing else b'n' if named else b'a'
        found = _markers[key] = field(b'(' + flag, kind.encode('utf-8'))
    return found


def field(tag: bytes, data: bytes) -> bytes:
    return tag + str(len(data)).encode('ascii') + b':' + data


def leaf(kind: str, text: bytes) -> list[Item]:
    """The parts a named leaf of `kind` with `text` hashes to (for canonical forms)."""
    return [open_marker(kind), field(b'"', text) + b')']


def value(kind: bytes, parts: Sequence[str | list[Item]]) -> list[Item]:
    """A literal by value: its kind, then text and holes (each hole's items hashed as code).
    Adjacent texts are joined, so the spelling of the pieces never counts."""
    from execlease_hook.fingerprint.literals import encode

    out: list[Item] = [b'(v' + kind + b':']
    text: list[str] = []
    for part in parts:
        if isinstance(part, str):
            text.append(part)
            continue
        if text:
            out.append(field(b'"', encode(''.join(text))))
            text = []
        out.append(b'{')
        out.extend(part)
        out.append(b'}')
    if text or len(out) == 1:
        out.append(field(b'"', encode(''.join(text))))
    out.append(b')')
    return out


# Helpers for the rule modules ------------------------------------------------------------------

def named(node: Node) -> list[Node]:
    """Named children that are not comments."""
    return [c for c in node.named_children if 'comment' not in c.type]


def unwrap_single(node: Node) -> list[Item] | None:
    inner = named(node)
    return [inner[0]] if len(inner) == 1 else None


def next_token(node: Node) -> Node | None:
    sibling = node.next_sibling
    while sibling is not None and 'comment' in sibling.type:
        sibling = sibling.next_sibling
    return sibling


def prev_token(node: Node) -> Node | None:
    sibling = node.prev_sibling
    while sibling is not None and 'comment' in sibling.type:
        sibling = sibling.prev_sibling
    return sibling


CLOSERS = frozenset({')', ']', '}', '>', '|'})
OPENERS = frozenset({'(', '[', '{', '<', '|', ','})


def trailing_comma(node: Node) -> bool:
    """A comma right before a closing bracket, after an element: a no-op in every supported language."""
    after, before = next_token(node), prev_token(node)
    return (
        after is not None and after.type in CLOSERS and not after.is_named
        and before is not None and before.type not in OPENERS
    )


def same(a: Node | None, b: Node | None) -> bool:
    return a is not None and b is not None and a.start_byte == b.start_byte and a.end_byte == b.end_byte \
        and a.type == b.type


def text(node: Node | None) -> str:
    if node is None or node.text is None:
        return ''
    return node.text.decode('utf-8').replace('\r\n', '\n')


# Context ---------------------------------------------------------------------------------------

def context_items(rules: ModuleType, node: Node) -> list[Item]:
    """The headers of the control flow (and classes, impls) around `node`, up to the nearest
    enclosing function: kind, condition, and where `node` sits (`@`); other bodies are `{}`."""
    out: list[Item] = []
    child, parent = node, node.parent
    scopes: frozenset[str] = rules.SCOPES
    kinds: frozenset[str] = rules.CONTEXT
    while parent is not None and parent.type not in scopes:
        if parent.type in kinds:
            out.extend(_header(rules, parent, child))
        child, parent = parent, parent.parent
    return out


def _header(rules: ModuleType, node: Node, path: Node | None) -> list[Item]:
    out: list[Item] = [marker(node, node.type)]
    attached: frozenset[str] = getattr(rules, 'ATTACHED', frozenset())
    if attached:
        before = []
        sibling = node.prev_named_sibling
        while sibling is not None and (sibling.type in attached or 'comment' in sibling.type):
            if sibling.type in attached:
                before.append(sibling)
            sibling = sibling.prev_named_sibling
        out.extend(reversed(before))
    for c in node.children:
        if same(c, path):
            out.append(b'@')
        elif 'comment' in c.type:
            continue
        elif c.type in rules.BODIES:
            out.append(b'{}')
        elif c.type in rules.CONTEXT:
            out.extend(_header(rules, c, None))
        else:
            out.append(c)
    out.append(b')')
    return out
