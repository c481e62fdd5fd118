"""A source read as the tokens a region's anchors are matched against (locate/anchor.py): what
the fingerprint scheme ts2 reads of each token, so that an anchor moves with formatting exactly
as little as a fingerprint does.

Each token is `(key, start byte, end byte, optional)`:
  key        the token's text; for a literal (its language's row: `literals`) and a node the
             rules hash as a canonical form (a number by value), the ts2 parts of the whole node,
             so `'a'` and `"a"`, `0XFF` and `0xff` have one key
  optional   a token ts2 drops (a trailing comma, an optional `;`) or one its rules leave out of
             a node (a parenthesis that only groups, `()` of `new Foo()`): either side of a
             match may skip it
Comments are no tokens.
"""

from __future__ import annotations

from types import ModuleType

from execlease_hook.fingerprint import ts2
from execlease_hook.fingerprint.scheme import rules_for
from execlease_hook.fingerprint.ts2 import Node
from execlease_hook.locate.anchor import Token
from execlease_hook.locate.languages import LANGUAGES
from execlease_hook.locate.source import parse


def tokens(language: str, source: bytes, low: int = 0, high: int | None = None) -> list[Token]:
    """The tokens of `source` that overlap bytes [low, high) (the whole source by default)."""
    high = len(source) if high is None else high
    rules = rules_for(language)
    handlers, drops = rules.HANDLERS, rules.DROPS
    literals = LANGUAGES[language].literals
    out: list[Token] = []
    # (node, its parent, optional, the nodes a handler above kept or None); iterative, as ts2's
    # walk is: a long chain of `a + b + ...` nests deeper than Python's recursion limit
    stack: list[tuple[Node, Node | None, bool, frozenset[tuple[int, int, str]] | None]] = [
        (parse(language, source).root_node, None, False, None)
    ]
    while stack:
        node, parent, optional, kept = stack.pop()
        kind, a, b = node.type, node.start_byte, node.end_byte
        if 'comment' in kind or kind == 'line_continuation' or b <= low or a >= high:
            continue
        children = node.children
        if kept is not None and (a, b, kind) not in kept:
            if children:  # inside a node a handler rewrote: only what it kept counts
                stack.extend((child, node, optional, kept) for child in reversed(children))
                continue
            optional = True  # a token the rules left out: it means nothing there
        if not node.is_error and b > a:
            if kind in literals:
                out.append((_parts(rules, node, source), a, b, optional))
                continue
            handler = handlers.get(kind)
            replaced = handler(node, parent) if handler is not None else None
            if replaced is not None:
                nodes = _nodes(replaced)
                if not replaced:  # the node means nothing where it stands (`()` of `class K():`)
                    optional = True
                elif not nodes:  # a canonical form: the node is one token
                    out.append((_parts(rules, node, source), a, b, optional))
                    continue
                elif (a, b, kind) not in nodes:
                    kept = frozenset(nodes)
                    stack.extend((child, node, optional, kept) for child in reversed(children))
                    continue
        if not children:
            if b > a:
                out.append((source[a:b], a, b, optional))
            continue
        for index in range(len(children) - 1, -1, -1):
            child = children[index]
            drop = drops.get(child.type)
            dropped = drop is not None and not child.is_named and drop(child, node, children, index)
            stack.append((child, node, optional or dropped, None))
    return _words(out)


def _words(found: list[Token]) -> list[Token]:
    """Word pieces with nothing between them joined into one token: a grammar's error recovery
    can read a word of an anchor (code cut from its context) letter by letter (Swift's does),
    and no lexer ends one word token where the next begins."""
    out: list[Token] = []
    for token in found:
        if out and out[-1][2] == token[1] and _word(out[-1][0]) and _word(token[0]):
            key, start, _, optional = out[-1]
            out[-1] = (key + token[0], start, token[2], optional and token[3])
        else:
            out.append(token)
    return out


def _word(key: bytes) -> bool:
    return key[:1] != b'\0' and (key.replace(b'_', b'a').isalnum())


def _nodes(items: list[ts2.Item]) -> set[tuple[int, int, str]]:
    """The nodes among a handler's items."""
    return {(n.start_byte, n.end_byte, n.type) for n in items if not isinstance(n, bytes)}


def _parts(rules: ModuleType, node: Node, source: bytes) -> bytes:
    """What ts2 hashes for the node; a canonical form that is one token (a quoted property name
    read as a name: `ts2.leaf`) by that token's text, as the token itself is."""
    out: list[bytes] = []
    ts2.walk(rules, [node], node.start_byte, node.end_byte, out, source, 0)
    if (
        len(out) == 2
        and out[0].startswith(b'(n')
        and out[1].startswith(b'"')
        and out[1].endswith(b')')
    ):
        return out[1][out[1].index(b':') + 1 : -1]
    return b'\0' + b''.join(out)  # no text token starts with NUL (the source has none)
