"""Literal values as each language reads them: escapes decoded, numbers by value.

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


# Python: str literals; bytes literals have no \N, \u, \U.
python_str = escapes(
    r'\\(N\{[^}]*\}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|x[0-9a-fA-F]{2}|[0-7]{1,3}|.)',
    'abfnrtv\\\'"\n',
    octal=True,
)
python_bytes = escapes(r'\\(x[0-9a-fA-F]{2}|[0-7]{1,3}|.)', 'abfnrtv\\\'"\n', octal=True)
# JavaScript / TypeScript: any other escaped character stands for itself.
_js = escapes(
    r'\\(u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|0(?![0-9])|[0-7]{1,3}|.)',
    'bfnrtv0\\\'"`$\n',
    octal=True,
    others_as_is=True,
)
_JS_LINE_CONTINUATION = re.compile('\\\\(\u2028|\u2029)')


def javascript(text: str) -> str:
    if '\\' not in text:
        return text
    return _join_surrogates(_js(_JS_LINE_CONTINUATION.sub('', text)))


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


# Go: \x and octal escapes are single bytes, so Go values are bytes.
go = byte_escapes(r'\\(U[0-9a-fA-F]{8}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|[0-7]{3}|.)', 'abfnrtv\\\'"')


# Rust: `\` at the end of a line skips the line break and the next line's leading whitespace.
_RUST_CONTINUATION = re.compile(r'\\\n[ \t\n\r]*')
_rust = escapes(r'\\(u\{[0-9a-fA-F_]+\}|x[0-9a-fA-F]{2}|.)', 'nrt0\\\'"', octal=False)


def rust(text: str) -> str:
    if '\\' not in text:
        return text
    return _rust(_RUST_CONTINUATION.sub('', text))


# Java (string literals and text blocks; \uXXXX is read before lexing, \s is a space).
java = escapes(r'\\(u+[0-9a-fA-F]{4}|[0-3][0-7]{2}|[0-7]{1,2}|.)', 'bstnfr\\\'"\n', octal=True)


def java_text_block(content: str) -> str:
    """A text block's value: the content after the opening line, incidental whitespace stripped
    (the common indentation of the non-blank lines and of the closing line), trailing spaces
    removed from every line, then escapes read."""
    lines = content.split('\n')
    significant = [line for line in lines[:-1] if line.strip(' \t\f')] + [lines[-1]]
    indent = min(len(line) - len(line.lstrip(' \t\f')) for line in significant)
    stripped = [line[indent:].rstrip(' \t\f') if line.strip(' \t\f') else '' for line in lines]
    return java('\n'.join(stripped))


def _join_surrogates(value: str) -> str:
    """JavaScript strings are UTF-16: `\\uD83D\\uDE00` is the same string as the emoji."""
    if not any('\ud800' <= c <= '\udfff' for c in value):
        return value
    return value.encode('utf-16-le', 'surrogatepass').decode('utf-16-le', 'surrogatepass')


def encode(value: str) -> bytes:
    return value.encode('utf-8', 'surrogatepass')


# Numbers --------------------------------------------------------------------------------------


def python_number(text: str) -> str | None:
    text = text.replace('_', '')
    try:
        if text[-1] in 'jJ':
            return repr(complex(0, float(text[:-1])))
        if text[:2].lower() in ('0x', '0o', '0b') or not any(c in text for c in '.eE'):
            return f'i{int(text, 0)}'
        return f'f{float(text)!r}'
    except ValueError:
        return None


def javascript_number(text: str) -> str | None:
    text = text.replace('_', '')
    try:
        if text.endswith('n'):
            return f'n{int(text[:-1], 0)}'
        low = text.lower()
        if low[:2] in ('0x', '0o', '0b'):
            return f'f{float(int(low, 0))!r}'
        # legacy octal (or decimal with 8/9)
        if len(text) > 1 and text[0] == '0' and text.isdigit():
            return f'f{float(int(text, 8) if set(text) <= set("01234567") else int(text))!r}'
        return f'f{float(text)!r}'
    except ValueError:
        return None


def go_number(text: str, kind: str) -> str | None:
    text = text.replace('_', '')
    if kind == 'int_literal':
        try:
            if len(text) > 1 and text[0] == '0' and text[1].isdigit():
                return f'i{int(text, 8)}'
            return f'i{int(text, 0)}'
        except ValueError:
            return None
    return f'{kind[0]}{text.lower()}'
