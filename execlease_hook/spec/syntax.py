"""The TLA+ syntax tree (tree-sitter-tlaplus), one parser per process, built on first use, for
every reader of a spec as syntax. The fast stage imports it only once a model is concerned
(guard/stage.py decides that first), so its early exit pays nothing for the grammar.
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Iterator

import tree_sitter
import tree_sitter_tlaplus


@functools.cache
def parser() -> tree_sitter.Parser:
    return tree_sitter.Parser(tree_sitter.Language(_capsule(tree_sitter_tlaplus.language())))


def _capsule(pointer: object) -> object:
    """tree-sitter-tlaplus hands out the language as a bare pointer (an int), which tree-sitter
    0.23+ accepts only with a DeprecationWarning; wrap it the way the other grammar wheels do."""
    if not isinstance(pointer, int):
        return pointer

    new = ctypes.pythonapi.PyCapsule_New
    new.restype = ctypes.py_object
    new.argtypes = (ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p)
    return new(pointer, b'tree_sitter.Language', None)


@functools.lru_cache(maxsize=32)  # a run reads one spec, its modules and one variant per mutation
def parse(source: bytes) -> tree_sitter.Tree:
    """The syntax tree of a .tla file's bytes; one parse per distinct text per process."""
    return parser().parse(source)


def walk(node: tree_sitter.Node) -> Iterator[tree_sitter.Node]:
    """Every node under `node` (itself included), in source order, without recursion: a spec
    nested thousands deep must not exhaust Python's stack."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))


def imports(source: bytes) -> list[tuple[str, int, str]]:
    """Each module a .tla file's bytes EXTEND or INSTANCE: (module, 0-based row, 'EXTENDS' or
    'INSTANCE'), in source order; nested modules' included."""
    found: list[tuple[str, int, str]] = []
    for node in walk(parse(source).root_node):
        if node.type not in ('extends', 'instance'):
            continue
        keyword = 'EXTENDS' if node.type == 'extends' else 'INSTANCE'
        for child in node.children:
            if child.type == 'identifier_ref':
                found.append(((child.text or b'').decode(), child.start_point.row, keyword))
                if keyword == 'INSTANCE':
                    break  # INSTANCE M WITH x <- y: only M is a module
    return found
