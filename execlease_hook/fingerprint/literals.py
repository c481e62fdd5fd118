"""A literal's value: the building blocks of the languages' escape decoders (each language's own
are in its rules), and a string read piece by piece.

Every decoder takes the literal's source text between its delimiters (CRLF already read as LF)
and returns the value the compiler builds from it. An escape a language does not define is kept
as written, so a decoder never merges two spellings the language tells apart.

`pieces` serves the languages whose grammars split a string into content, escape and
interpolation nodes with the delimiters around them (C#, Kotlin, Scala, Swift). Text is read from
the source bytes between the delimiters, whether or not a node covers it, so no space inside a
string is ever collapsed as the whitespace between tokens is. `character_literal` makes the
handler of a `'x'` literal from a language's escape reader (C#, Java, Kotlin, Scala).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterator

from execlease_hook.fingerprint.ts2 import Handler, Item, Node, text, value

# The one-letter escapes of the supported languages; each takes those it defines (`simple`).
SIMPLE = {
    'a': '\a',
    'b': '\b',
    'f': '\f',
    'n': '\n',
    'r': '\r',
    't': '\t',
    'v': '\v',
    '\\': '\\',
    "'": "'",
    '"': '"',
    '`': '`',
    '$': '$',
    's': ' ',
    '0': '\0',
    '\n': '',
}


def simple(letters: str) -> dict[str, str]:
    return {k: v for k, v in SIMPLE.items() if k in letters}


def escapes(
    pattern: str, letters: str, octal: bool, others_as_is: bool = False
) -> Callable[[str], str]:
    table = simple(letters)

    def replace(match: re.Match[str]) -> str:
        body = match.group(1)
        head = body[0]
        if head in table and len(body) == 1:
            return table[head]
        if head == 'x' or (head in 'uU' and body[1:2] != '{'):
            return chr(int(body.lstrip('uU')[1:] if head == 'x' else body.lstrip('uU'), 16))
        if head == 'u':  # \u{...}
            return chr(int(body[2:-1], 16))
        if head == 'N':
            try:
                return unicodedata.lookup(body[2:-1])
            except KeyError:
                return match.group(0)
        if octal and head in '01234567':
            return chr(int(body, 8))
        return body if others_as_is else match.group(0)

    def decode(text: str) -> str:
        # `re` compiles the pattern on first use (its cache): most runs meet few escapes
        return re.sub(pattern, replace, text, flags=re.S) if '\\' in text else text

    return decode


def byte_escapes(pattern: str, letters: str) -> Callable[[str], bytes]:
    """A decoder of a literal's body to bytes (Go's and Zig's rule): each match of `pattern` is an
    escape, its group 1 one of `letters`, `x` and two hex digits (one byte), three octal digits
    (one byte), or `u`/`U` and a code point (its UTF-8); any other is kept as written."""
    table = {k: v.encode() for k, v in simple(letters).items()}

    def escape(body: str) -> bytes | None:
        if body in table:
            return table[body]
        if body[0] == 'x':
            return bytes([int(body[1:], 16)])
        if body[0] in '01234567' and len(body) == 3:
            return bytes([int(body, 8) & 0xFF])
        if body[0] in 'uU':
            point = int(body[1:].strip('{}'), 16)  # Zig's `u{...}`, Go's `u` and `U`
            return chr(point).encode('utf-8', 'surrogatepass') if point < 0x110000 else None
        return None

    def decode(text: str) -> bytes:
        if '\\' not in text:
            return text.encode('utf-8')
        out = bytearray()
        at = 0
        for match in re.finditer(pattern, text, re.S):
            out += text[at : match.start()].encode('utf-8')
            at = match.end()
            found = escape(match.group(1))
            out += match.group(0).encode('utf-8') if found is None else found
        out += text[at:].encode('utf-8')
        return bytes(out)

    return decode


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
            if continued:
                value = value.removeprefix(indent)  # the line after a `\\` continuation
            if not out and value.startswith('\n'):
                value = value[1:].removeprefix(indent)
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


def split_at(node: Node, at: int, kinds: frozenset[str]) -> Iterator[tuple[bytes, Node | None]]:
    """The source of `node` from byte `at` on, cut at its children of `kinds` (a hole, a closing
    delimiter): each stretch with the child that ends it, then the rest with None."""
    source, base = node.text or b'', node.start_byte
    for child in node.children:
        if child.type in kinds and child.start_byte >= at:
            yield source[at - base : child.start_byte - base], child
            at = child.end_byte
    yield source[at - base :], None


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
