"""A TLA+ spec read as a syntax tree (tree-sitter-tlaplus) into its top-level units, and a TLC
config read as tokens (docs/architecture.md, the model side).

A unit is a definition by its name (`LOCAL` ones too), or any other unit by its keyword
(`EXTENDS`, `ASSUME`, a nested `MODULE`, a PlusCal algorithm, ...), numbered from the second one
on (`ASSUME#2`). Its fingerprint leaves comments and the whitespace between tokens out, so
rewording a comment or re-wrapping a line does not change it; the layout of a bulleted `/\\` or
`\\/` list is part of the tree (the grammar reads its indentation), so changing what a bullet
belongs to does. Text outside the module (before its header, after `====`) is not read by TLC
and not indexed.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Iterator
from dataclasses import dataclass, field

from tree_sitter import Node

# The spec's parts are encoded exactly as covered code is under ts1 (length-prefixed fields).
from execlease_hook.core.digest import node_opening, tagged_field, tagged_gap
from execlease_hook.core.errors import CannotRun, utf8
from execlease_hook.spec.cfg import SYNONYMS, token_matches
from execlease_hook.spec.syntax import parse

SCHEME = 'tla1'
DEFINITIONS = frozenset({'operator_definition', 'function_definition', 'module_definition'})
_KEYWORDS = {
    'extends': 'EXTENDS',
    'constant_declaration': 'CONSTANTS',
    'variable_declaration': 'VARIABLES',
    'assumption': 'ASSUME',
    'instance': 'INSTANCE',
    'recursive_declaration': 'RECURSIVE',
    'theorem': 'THEOREM',
    'module': 'MODULE',
    'ERROR': 'syntax error',
}
# The keys of the units that are not definitions.
KEYWORDS = frozenset({*(k.split(' ')[0] for k in _KEYWORDS.values()), 'PlusCal'})
_LAYOUT = frozenset({'header_line', 'MODULE', 'double_line', 'single_line'})
_VERBATIM = frozenset({'string'})
_SYNONYMS = {word.encode(): plural.encode() for word, plural in SYNONYMS.items()}


@dataclass(frozen=True)
class Unit:
    key: str  # a definition's name, or 'EXTENDS', 'ASSUME#2', 'MODULE Inner', ...
    definition: bool  # an operator, function or module definition (an action can be one)
    start_line: int  # 1-based, inclusive; trailing comments are not part of the unit
    end_line: int
    start_byte: int
    end_byte: int
    digest: str  # sha256 hex of the unit's syntax tree
    node: Node = field(compare=False, hash=False, repr=False)
    file: str = field(default='', compare=False, hash=False)  # the module file defining it


@dataclass(frozen=True)
class SpecIndex:
    name: str  # the spec's file name, for messages
    module: str  # the module's name ('' when the parse found none)
    units: tuple[Unit, ...]

    def definitions(self) -> dict[str, Unit]:
        return {u.key: u for u in self.units if u.definition}

    def digests(self) -> dict[str, str]:
        return {u.key: u.digest for u in self.units}

    def where(self, unit: Unit) -> str:
        end = '' if unit.start_line == unit.end_line else f'-{unit.end_line}'
        return f'{unit.file or self.name}:{unit.start_line}{end}'


# A run reads one spec many times (each mutation's `within`, the map, the model record): the
# index of the same bytes under the same name is built once per process. SpecIndex is frozen and
# holds only its own parse tree, so sharing it is safe; at most a few specs are kept.
@functools.lru_cache(maxsize=8)
def read_spec(source: bytes, name: str) -> SpecIndex:
    """The spec's units; CannotRun when the bytes are not UTF-8 or hold no module."""
    utf8(source, name)
    root = parse(source).root_node
    module = next((c for c in root.children if c.type == 'module'), None)
    if module is None:
        raise CannotRun(f'{name}: no `---- MODULE Name ----` header found; is this a TLA+ spec?')
    units: list[Unit] = []
    seen: dict[str, int] = {}
    for node in _unit_nodes(module, root):
        key, definition = _key(node)
        seen[key] = seen.get(key, 0) + 1
        if seen[key] > 1:
            key = f'{key}#{seen[key]}'
        last = _last_token(node)
        units.append(
            Unit(
                key=key,
                definition=definition,
                start_line=node.start_point.row + 1,
                end_line=last.end_point.row + 1,
                start_byte=node.start_byte,
                end_byte=last.end_byte,
                digest=tree_digest(node, source),
                node=node,
                file=name,
            )
        )
    return SpecIndex(name, _text(module.child_by_field_name('name')), tuple(units))


def _unit_nodes(module: Node, root: Node) -> Iterator[Node]:
    name = module.child_by_field_name('name')
    for child in module.children:
        if child.type in _LAYOUT or (name is not None and child.id == name.id):
            continue
        if 'comment' in child.type:
            algorithm = next((c for c in child.children if c.type == 'pcal_algorithm'), None)
            if algorithm is not None:
                yield algorithm
            continue
        yield child
    # A syntax error the parser could not place inside the module still changes the spec.
    for child in root.children:
        if child.type == 'ERROR':
            yield child


def _key(node: Node) -> tuple[str, bool]:
    if node.type == 'local_definition':
        inner = next((c for c in node.named_children if c.type in DEFINITIONS), None)
        if inner is not None:
            return _text(inner.child_by_field_name('name')), True
    if node.type in DEFINITIONS:
        return _text(node.child_by_field_name('name')), True
    if node.type == 'pcal_algorithm':
        return f'PlusCal {_text(node.child_by_field_name("name"))}'.rstrip(), False
    keyword = _KEYWORDS.get(node.type, node.type)
    if node.type in ('module', 'theorem') and node.child_by_field_name('name') is not None:
        return f'{keyword} {_text(node.child_by_field_name("name"))}', False
    return keyword, False


def _text(node: Node | None) -> str:
    return node.text.decode('utf-8') if node is not None and node.text is not None else ''


def _last_token(node: Node) -> Node:
    """The last descendant that is not a comment: a definition's node runs on over the comments
    that follow it, which belong to the next definition."""
    while True:
        children = [c for c in node.children if 'comment' not in c.type]
        if not children:
            return node
        node = children[-1]


def tree_digest(node: Node, source: bytes) -> str:
    """sha256 over the node's syntax tree: kinds, token text, nothing of comments or layout."""
    # The fields are gathered and hashed at once; each kind's opening field is encoded once.
    out: list[bytes] = []
    stack: list[bytes | tuple[Node, bool]] = [(node, False)]
    while stack:
        item = stack.pop()
        if isinstance(item, bytes):
            out.append(item)
            continue
        current, verbatim = item
        kind = current.type
        if 'comment' in kind and current.id != node.id:
            continue
        verbatim = verbatim or current.is_error or kind in _VERBATIM
        out.append(node_opening(current))
        children = current.children
        if not children:
            out.append(tagged_field(b'"', source[current.start_byte : current.end_byte]) + b')')
            continue
        stack.append(b')')
        at = current.end_byte
        for child in reversed(children):
            if child.end_byte < at:
                stack.append(tagged_gap(source[child.end_byte : at], verbatim))
            stack.append((child, verbatim))
            at = min(at, child.start_byte)
        if at > current.start_byte:
            stack.append(tagged_gap(source[current.start_byte : at], verbatim))
    return hashlib.sha256(b''.join(out)).hexdigest()


def cfg_digest(source: bytes) -> str:
    """sha256 over a config's tokens, comments left out (spec/cfg.token_matches), singular keywords
    read as their plurals."""
    digest = hashlib.sha256()
    for match in token_matches(source):
        digest.update(tagged_field(b't', _SYNONYMS.get(match.group(0), match.group(0))))
    return digest.hexdigest()
