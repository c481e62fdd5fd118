"""A string literal's value, piece by piece: text, escapes, and interpolation holes as code.

Used by the ts2 rules of the languages whose grammars split a string into content, escape and
interpolation nodes with the delimiters around them (C#, Kotlin, Scala, Swift). Text is read
from the source bytes between the delimiters, whether or not a node covers it, so no space
inside a string is ever collapsed as the whitespace between tokens is.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Node

    from execlease_hook.fingerprint.ts2 import Item


def pieces(
        node: Node, opening: int, closing: int, holes: frozenset[str],
        text_of: Callable[[str], str], escapes: frozenset[str] = frozenset(),
        escape_of: Callable[[str], str] | None = None, indent: str | None = None,
) -> list[str | list[Item]] | None:
    """The value of `node` without its first `opening` and last `closing` bytes: the source text
    read by `text_of`, escape nodes by `escape_of` (default `text_of`), hole nodes kept as code,
    unnamed children (delimiters) left out.

    `indent`: a multi-line literal's closing-line indentation (Swift's and C#'s): it is removed
    from the start of every line, with the line break after the opening delimiter and the one
    before the closing line. None when a child is a syntax error (the walk then hashes it verbatim).
    """
    raw = node.text or b''
    base = node.start_byte
    at, end = base + opening, node.end_byte - closing
    texts: list[str | list[Item]] = []      # raw text, escapes already read, holes

    def add(chunk: bytes, read: Callable[[str], str], first: bool) -> None:
        value = chunk.decode('utf-8').replace('\r\n', '\n')
        if indent is not None:
            if first and value.startswith('\n'):
                value = value[1 + len(indent):] if value[1:].startswith(indent) else value[1:]
            if indent:
                value = value.replace('\n' + indent, '\n')
        texts.append(read(value))

    escape = escape_of or text_of
    for child in node.children:
        if child.end_byte <= at or child.start_byte >= end:
            continue
        if child.is_error or child.is_missing:
            return None
        if child.start_byte > at:
            add(raw[at - base:child.start_byte - base], text_of, at == base + opening)
        chunk = raw[child.start_byte - base:child.end_byte - base]
        if not child.is_named:
            pass    # a hole's delimiter (Swift's `\\(` and `)`): the hole marks its place
        elif child.type in holes:
            texts.append([child])
        elif child.type in escapes:
            texts.append(escape(chunk.decode('utf-8')))
        else:
            add(chunk, text_of, child.start_byte == base + opening)
        at = child.end_byte
    if at < end:
        add(raw[at - base:end - base], text_of, at == base + opening)
    if indent is not None and texts and isinstance(texts[-1], str) and texts[-1].endswith('\n'):
        texts[-1] = texts[-1][:-1]
    return texts


def closing_indent(raw: str, closing: str) -> str | None:
    """The whitespace before `closing` on its own line, or None when text precedes it there."""
    body = raw[:len(raw) - len(closing)]
    newline = body.rfind('\n')
    if newline < 0 or body[newline + 1:].strip(' \t'):
        return None
    return body[newline + 1:]
