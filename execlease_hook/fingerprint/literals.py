"""The building blocks of the languages' escape decoders (each language's own are in its rules).

Every decoder takes the literal's source text between its delimiters (CRLF already read as LF)
and returns the value the compiler builds from it. An escape a language does not define is kept
as written, so a decoder never merges two spellings the language tells apart.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

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


def encode(value: str) -> bytes:
    return value.encode('utf-8', 'surrogatepass')
