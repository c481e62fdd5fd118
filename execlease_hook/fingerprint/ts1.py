"""Fingerprint scheme ts1 (kept so that recorded ts1 hashes still compare): sha256 over a
located entry's syntax tree, every token's text included.

What goes in, in document order: every node's kind (named, anonymous, missing or error) as
an open and a close marker, so nesting is part of the hash (in Python, indenting a statement
into a block moves it inside the `block` node); the text of every leaf; and any source text
the grammar does not expose as a node (hidden tokens such as Rust's `r#"`).
What stays out: comments (every node whose kind contains `comment`), Python's `\\` line
continuations, and whitespace between tokens. Whitespace inside string-like nodes (string
contents, f-string interpolations, regexes) is kept: it is part of the value. JSX text is
reduced the way JSX itself reduces it (lines trimmed, blank lines dropped, joined by a space).
CRLF counts as LF everywhere (the compilers of all supported languages read it so).
Inside a syntax error (`ERROR` node) every byte but comments is hashed verbatim, whitespace
included, so a parse the grammar could not structure never hides an edit.
Nothing outside the entry (its position, its file, its indentation level) takes part.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Union

from execlease_hook.core.digest import node_opening, tagged_field, tagged_gap

if TYPE_CHECKING:
    from tree_sitter import Node

    _Item = Union[bytes, tuple[Node, bool]]

_VERBATIM_ENDINGS = (
    'string',
    'string_literal',
    'string_content',
    'string_fragment',
    'string_literal_content',
    'char_literal',
    'character_literal',
    'regex',
    'regex_pattern',
    'format_specifier',
    'interpolation',
)


def serialize(nodes: Sequence[Node], start: int, end: int, chunk: bytes) -> list[bytes]:
    """The hashed parts of `nodes` clipped to bytes [start, end); `chunk` is source[start:end].

    ts2 uses it for the inside of syntax errors, which both schemes hash verbatim.
    """

    def clip(a: int, b: int) -> bytes:
        low, high = max(a, start), min(b, end)
        text = chunk[low - start : high - start] if high > low else b''
        # Every supported language reads CRLF inside a string literal as LF.
        return text.replace(b'\r\n', b'\n') if b'\r' in text else text

    out: list[bytes] = []
    stack: list[_Item] = [(node, False) for node in reversed(nodes)]
    while stack:
        item = stack.pop()
        if isinstance(item, bytes):
            if item:  # an empty gap (children that touch) hashes nothing
                out.append(item)
            continue
        node, in_error = item
        kind = node.type
        if 'comment' in kind or kind == 'line_continuation':
            continue
        first, last = node.start_byte, node.end_byte
        if (first >= end or last <= start) and not (first == last and start <= first <= end):
            continue
        in_error = in_error or node.is_error
        container = first <= start and last >= end and (first < start or last > end)
        if not container:
            out.append(node_opening(node))
        children = node.children
        if not children:
            text = clip(first, last)
            out.append(tagged_field(b'"', jsx_text(text) if kind == 'jsx_text' else text) + b')')
            continue
        verbatim = in_error or kind.endswith(_VERBATIM_ENDINGS) and kind != 'concatenated_string'
        todo: list[_Item] = [b')'] if not container else []
        at = last
        for child in reversed(children):  # stack order: last child first
            todo += [tagged_gap(clip(child.end_byte, at), verbatim), (child, in_error)]
            at = min(at, child.start_byte)
        todo.append(tagged_gap(clip(first, at), verbatim))
        stack.extend(todo)
    return out


def jsx_text(text: bytes) -> bytes:
    """JSX's own reading: lines trimmed (but not where they touch other children on the same
    line), blank lines dropped, the rest joined by one space."""
    lines = text.replace(b'\r\n', b'\n').split(b'\n')
    if len(lines) == 1:
        return text
    middle = [line.strip(b' \t') for line in lines[1:-1]]
    kept = [lines[0].rstrip(b' \t'), *middle, lines[-1].lstrip(b' \t')]
    return b' '.join(line for line in kept if line)
