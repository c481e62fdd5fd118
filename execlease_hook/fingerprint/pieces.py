"""A string literal's value, piece by piece: text, escapes, and interpolation holes as code.

Used by the ts2 rules of the languages whose grammars split a string into content, escape and
interpolation nodes with the delimiters around them (C#, Kotlin, Scala, Swift). Text is read from
the source bytes between the delimiters, whether or not a node covers it, so no space inside a
string is ever collapsed as the whitespace between tokens is. `character_literal` makes the
handler of a `'x'` literal from a language's escape reader (C#, Java, Kotlin, Scala).
"""

from __future__ import annotations

from collections.abc import Callable

from execlease_hook.fingerprint.ts2 import Handler, Item, Node, text, value


def pieces(
    node: Node,
    kind: bytes,
    opening: int,
    closing: int,
    holes: frozenset[str] = frozenset(),
    text_of: Callable[[str], str | list[str | list[Item]]] = lambda text: text,
    escapes: frozenset[str] = frozenset(),
    escape_of: Callable[[str], str] | None = None,
    indent: str | None = None,
    hole_of: Callable[[Node], list[Item]] = lambda hole: [hole],
) -> list[Item] | None:
    """The value (ts2.value, of `kind`) of `node` without its first `opening` and last `closing`
    bytes: the source text read by `text_of` (as is by default; into parts, where templates in the
    text are holes: Kotlin's), escape nodes by `escape_of` (default `text_of`), hole nodes by
    `hole_of` (default kept as code), unnamed children (delimiters) left out. CRLF is read as LF,
    as every supported compiler reads it, so a checkout with CRLF line ends fingerprints as one
    with LF.

    `indent`: a multi-line literal's closing-line indentation (Swift's and C#'s): it is removed
    from the start of every line, with the line break after the opening delimiter and the one
    before the closing line. None when a child is a syntax error (the walk then hashes it verbatim).
    """
    raw = node.text or b''
    base = node.start_byte
    at, end = base + opening, node.end_byte - closing
    out: list[str | list[Item]] = []
    pending: list[bytes] = []  # adjacent raw text, read as one (a grammar may split `\\u0041`)
    continued = False  # the last escape was a `\\` line continuation

    def add(read: str | list[str | list[Item]]) -> None:
        out.extend(read if isinstance(read, list) else [read])

    def flush(last: bool = False) -> None:
        nonlocal continued
        if not pending:
            return
        value = b''.join(pending).decode('utf-8').replace('\r\n', '\n')
        pending.clear()
        if indent is not None:
            if continued and value.startswith(indent):
                value = value[len(indent) :]  # the line after a `\\` continuation
            if not out and value.startswith('\n'):
                value = value[1 + len(indent) :] if value[1:].startswith(indent) else value[1:]
            if indent:
                value = value.replace('\n' + indent, '\n')
            if last and value.endswith('\n'):
                value = value[:-1]
        continued = False
        add(text_of(value))

    escape = escape_of or text_of
    try:
        for child in node.children:
            if child.end_byte <= at or child.start_byte >= end:
                continue
            if child.is_error or child.is_missing:
                return None
            if child.start_byte > at:
                pending.append(raw[at - base : child.start_byte - base])
            chunk = raw[child.start_byte - base : child.end_byte - base]
            if not child.is_named:
                pass  # a hole's delimiter (Swift's `\\(` and `)`): the hole marks its place
            elif child.type in holes:
                flush()
                out.append(hole_of(child))
            elif child.type in escapes:
                flush()
                add(escape(chunk.decode('utf-8')))
                continued = chunk.endswith(b'\n')
            else:
                pending.append(chunk)
            at = child.end_byte
        if at < end:
            pending.append(raw[at - base : end - base])
        flush(last=True)
    except ValueError:  # an escape the language would reject: hash the literal as written
        return None
    return value(kind, out)


def closing_indent(raw: str, closing: str) -> str | None:
    """The whitespace before `closing` on its own line, or None when text precedes it there."""
    body = raw[: len(raw) - len(closing)]
    newline = body.rfind('\n')
    if newline < 0 or body[newline + 1 :].strip(' \t'):
        return None
    return body[newline + 1 :]


def character_literal(escaped: Callable[[str], str]) -> Handler:
    """The handler of a `'x'` character literal whose body `escaped` reads (C#, Kotlin and Scala
    alike); a literal with an escape the language would reject is hashed as written."""

    def handler(node: Node, parent: Node | None) -> list[Item] | None:
        raw = text(node)
        try:
            return value(b'c', [escaped(raw[1:-1])]) if len(raw) >= 3 else None
        except ValueError:  # an escape the language would reject: hashed as written
            return None

    return handler
