"""ts2 rules for Java.

Java declares methods only in classes; the enclosing class headers (modifiers, annotations,
`extends`, `implements`) are the context of a method.
"""

from __future__ import annotations

from execlease_hook.fingerprint import ts2
from execlease_hook.fingerprint.literals import character_literal, escapes
from execlease_hook.fingerprint.ts2 import Item, Node
from execlease_hook.locate import java

# String literals and text blocks; \uXXXX is read before lexing, \s is a space.
_escaped = escapes(r'\\(u+[0-9a-fA-F]{4}|[0-3][0-7]{2}|[0-7]{1,2}|.)', 'bstnfr\\\'"\n', octal=True)
_STATEMENT_LISTS = frozenset({'block', 'class_body', 'program'})


def string_literal(node: Node, parent: Node | None) -> list[Item] | None:
    """A text block is its value after Java strips incidental whitespace (the common indentation
    of the non-blank lines and of the closing line, trailing spaces of every line), then reads its
    escapes: re-indenting the block with its closing delimiter changes nothing."""
    raw = ts2.text(node)
    if raw.startswith('"""') and raw.endswith('"""') and len(raw) >= 6:
        body = raw[3:-3]
        newline = body.find('\n')
        if newline < 0 or body[:newline].strip():
            return None
        lines = body[newline + 1 :].split('\n')
        significant = [line for line in lines[:-1] if line.strip(' \t\f')] + [lines[-1]]
        indent = min(len(line) - len(line.lstrip(' \t\f')) for line in significant)
        stripped = [line[indent:].rstrip(' \t\f') if line.strip(' \t\f') else '' for line in lines]
        return ts2.value(b's', [_escaped('\n'.join(stripped))])
    if raw.startswith('"') and raw.endswith('"') and len(raw) >= 2:
        return ts2.value(b's', [_escaped(raw[1:-1])])
    return None


def empty_statement(token: Node, parent: Node, siblings: list[Node], index: int) -> bool:
    """`;;` in a block: the second is an empty statement, which means nothing there."""
    return parent.type in _STATEMENT_LISTS


HANDLERS = {
    'string_literal': string_literal,
    'character_literal': character_literal(_escaped),
    'parenthesized_expression': ts2.unwrap_single,
}
DROPS = {
    ',': ts2.trailing_comma,
    ';': empty_statement,
}
SCOPES = frozenset({'method_declaration', 'constructor_declaration', 'lambda_expression'})
CONTEXT = java.TYPES
BODIES = frozenset({'class_body', 'interface_body', 'enum_body', 'annotation_type_body'})
